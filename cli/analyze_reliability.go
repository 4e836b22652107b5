package cli

import (
	"io"

	"pragmalab/analysis"
	"pragmalab/analysis/conditions"
	"pragmalab/analysis/modelhuman"
	"pragmalab/analysis/report"
	"pragmalab/analysis/toplines"
	"pragmalab/studies"
)

// analyzeReliability runs "analyze reliability": the crowd's own
// reliability from a ratings file (docs/statistics.md#crowd-reliability-and-the-correlation-ceiling).
func analyzeReliability(args []string, env *Env) error {
	o := newAnalyzeFlags("reliability", "ratings", "ratings file: participant_id, batch_id, item_id, item_type, condition, rating, check",
		"Krippendorff's α (interval and ordinal) of the crowd ratings per condition and\npooled, and the split-half reliability of the item means (Spearman–Brown,\naveraged over random splits), over the participants analyze toplines keeps\nwith the same thresholds.", env, false)
	opt := toplines.DefaultOptions()
	ex := addExclusionFlags(o.fs, &opt)
	splits := o.fs.Int("splits", 1000, "random half-splits of the split-half reliability")
	within := o.fs.Bool("within-participant", false, "allow a participant to rate the same item in several conditions")
	byCond := o.fs.Bool("by-condition", false, "read the file by the study's own conditions, as analyze conditions does (a judgement study), with its exclusions")
	conds := o.fs.String("conditions", "", "with --by-condition: the study's conditions in their declared order, comma-separated")
	if err := o.parse(args); err != nil {
		return err
	}
	if *splits < 1 {
		return usagef("analyze reliability: --splits must be at least 1")
	}
	if err := ex.check("reliability"); err != nil {
		return err
	}
	if *byCond {
		return reliabilityByCondition(o, env, opt, ex, *within, splitIDs(*conds), *splits)
	}
	if *conds != "" {
		return usagef("analyze reliability: --conditions reads the file by condition: give --by-condition")
	}
	opt.Bootstrap = analysis.Bootstrap{} // the toplines only decide who is kept
	rs, err := readInput(o, env, func(r io.Reader) (*toplines.Ratings, error) {
		r, err := pickVersion(r, ex.designVersion)
		if err != nil {
			return nil, err
		}
		return toplines.ReadRatingsWith(r, ex.readOptions(*within))
	})
	if err != nil {
		return err
	}
	if err := ex.onScale("reliability", rs); err != nil {
		return err
	}
	rows := modelhuman.CrowdRatingsOf(rs, toplines.ComputeToplines(rs, opt))
	if len(rows) == 0 {
		return usagef("analyze reliability: no item rating left once the excluded participants are left out")
	}
	return emitReliability(o, env, rows, rs.ScalePoints, *splits)
}

// reliabilityByCondition is `analyze reliability --by-condition`: the
// participants `analyze conditions` keeps with the same flags, on a file
// of any condition names — the reliability a judgement study's Analysis
// page shows (docs/statistics.md#judgement-by-condition).
func reliabilityByCondition(o *outputFlags, env *Env, t toplines.Options, ex *exclusionFlags, within bool, declared []string, splits int) error {
	rs, err := readInput(o, env, func(r io.Reader) (*conditions.Ratings, error) {
		r, err := pickVersion(r, ex.designVersion)
		if err != nil {
			return nil, err
		}
		return conditions.ReadRatings(r, conditions.ReadOptions{ScalePoints: ex.scalePoints, WithinParticipant: within, Conditions: declared})
	})
	if err != nil {
		return err
	}
	if t.HighPass > rs.ScalePoints || t.LowPass > rs.ScalePoints {
		return usagef("analyze reliability: --high-pass %d and --low-pass %d must lie on the file's %d-point scale (1–%d): give the study's check thresholds", t.HighPass, t.LowPass, rs.ScalePoints, rs.ScalePoints)
	}
	res, err := conditions.Compute(rs, conditions.Options{HighPass: t.HighPass, LowPass: t.LowPass, MaxFailed: t.MaxFailed, Exclude: t.Exclude, Include: t.Include})
	if err != nil {
		return usagef("analyze reliability: %v", err)
	}
	rows := studies.ConditionsReliabilityRows(rs, res)
	if len(rows) == 0 {
		return usagef("analyze reliability: no item rating left once the excluded participants are left out")
	}
	return emitReliability(o, env, rows, rs.ScalePoints, splits)
}

// emitReliability computes the crowd's α and split-half reliability of
// rows and writes them as the output flags ask.
func emitReliability(o *outputFlags, env *Env, rows []modelhuman.CrowdRating, points, splits int) error {
	rel, err := modelhuman.ComputeCrowdReliability(rows, modelhuman.ReliabilityOptions{Points: points, Splits: splits, Bootstrap: o.boot})
	if err != nil {
		return usagef("analyze reliability: %v", err)
	}
	all := report.CrowdReliabilityTables(rel)
	tables, err := o.pick(all, all[:1])
	if err != nil {
		return err
	}
	return o.emit(env, rel, tables, report.CrowdReliabilityMethodsOf(rel, o.lang), nil)
}
