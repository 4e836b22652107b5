package cli

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"pragmalab/analysis"
	"pragmalab/analysis/conditions"
	"pragmalab/analysis/report"
	"pragmalab/analysis/toplines"
	"pragmalab/domain"
)

// analyzeConditions is `pragmalab analyze conditions`: judgement by
// condition (docs/cli.md#analyze-conditions). Its exclusion flags are the
// toplines' own, with the same defaults, so one study's rules give the
// same participants in both.
func analyzeConditions(args []string, env *Env) error {
	o := newAnalyzeFlags("conditions", "ratings", "ratings file: participant_id, item_id, condition, rating, check (the crowd ratings export)",
		"For any rating or acceptability study, per condition of its own naming: the mean\nrating on the scale and the mean z with 95% intervals (participants and items\ncrossed), the distribution of the ratings, and the differences between\nconditions (docs/statistics.md#judgement-by-condition).", env, true)
	// The methods of this command are also in German.
	o.fs.Lookup("lang").Usage = `language of the --methods paragraph: "en" (default), "it" or "de"`
	lang := report.English
	def := toplines.DefaultOptions()
	opt := conditions.Options{HighPass: def.HighPass, LowPass: def.LowPass, MaxFailed: def.MaxFailed}
	var exclude, include, conds string
	checkFlags(o.fs, &opt.HighPass, &opt.LowPass, &opt.MaxFailed, &exclude, &include)
	within := o.fs.Bool("within-participant", false, "allow a participant to rate the same item in several conditions (a within-participant design; by default an input error)")
	o.fs.StringVar(&conds, "conditions", "", "comma-separated conditions the study declares, in the order to report them (default: those rated, in the order first seen); a rating in another is an input error")
	o.fs.StringVar(&opt.Reference, "reference", "", "compare every other condition with this one (default: every pair of conditions)")
	scale := o.fs.Int("scale-points", 0, fmt.Sprintf("points of the scale of a file without the scale_points column (default %d)", conditions.DefaultScalePoints))
	dv := designVersionFlag(o)
	rDir := rFlag(o)
	// --lang takes de too: parse it apart from the shared flag.
	o.fs.Lookup("lang").Value = langValue{&lang}
	if err := o.parse(args); err != nil {
		return err
	}
	o.lang = lang
	if *scale != 0 && (*scale < domain.MinScalePoints || *scale > domain.MaxScalePoints) {
		return usagef("analyze conditions: --scale-points must be %d–%d", domain.MinScalePoints, domain.MaxScalePoints)
	}
	if opt.MaxFailed < 1 {
		return usagef("analyze conditions: --max-failed must be at least 1")
	}
	opt.Exclude, opt.Include = splitIDs(exclude), splitIDs(include)
	declared := splitIDs(conds)
	for k, c := range declared {
		if slices.Contains(declared[:k], c) {
			return usagef("analyze conditions: --conditions names %q twice", c)
		}
	}
	rs, err := readInput(o, env, func(r io.Reader) (*conditions.Ratings, error) {
		r, err := pickVersion(r, *dv)
		if err != nil {
			return nil, err
		}
		return conditions.ReadRatings(r, conditions.ReadOptions{ScalePoints: *scale, WithinParticipant: *within, Conditions: declared})
	})
	if err != nil {
		return err
	}
	if opt.HighPass < 1 || opt.HighPass > rs.ScalePoints || opt.LowPass < 1 || opt.LowPass > rs.ScalePoints {
		return usagef("analyze conditions: --high-pass %d and --low-pass %d must be points of the %d-point scale", opt.HighPass, opt.LowPass, rs.ScalePoints)
	}
	res, err := conditions.Compute(rs, opt)
	if err != nil {
		return usagef("analyze conditions: %v", err)
	}
	if *rDir != "" {
		if err := conditionsCompanion(args, rs, res, opt, *within).write(*rDir, env); err != nil {
			return err
		}
	}
	all := report.ConditionsTables(res)
	tables, err := o.pick(all, all[:1])
	if err != nil {
		return err
	}
	return o.emit(env, res, tables, report.ConditionsMethods(res, o.lang), func() ([]report.Figure, error) { return report.ConditionsFigures(res) })
}

// langValue is --lang for judgement by condition: en, it or de.
type langValue struct{ l *report.Lang }

func (v langValue) String() string {
	if v.l == nil {
		return ""
	}
	return string(*v.l)
}

func (v langValue) Set(s string) error {
	for _, l := range report.ConditionsLangs {
		if strings.EqualFold(s, string(l)) {
			*v.l = l
			return nil
		}
	}
	return fmt.Errorf("want en, it or de")
}

// conditionsCompanion holds the rows read with each participant's status,
// the settings and pragmalab's results.
func conditionsCompanion(args []string, rs *conditions.Ratings, res *conditions.Result, opt conditions.Options, within bool) *rCompanion {
	return &rCompanion{
		command: "conditions", args: args, ordinal: true,
		what: []string{
			"Re-computes pragmalab's analysis by condition from ratings.csv (every row read,",
			"with its line in the input file and its participant's status) and settings.csv:",
			"per condition the mean rating and the mean z (population SD within participant),",
			"their two-way cluster-robust standard errors and 95% intervals (Cameron, Gelbach",
			"& Miller 2011; t with min(participants, items) - 1 df), the distribution of the",
			"ratings, and each difference between conditions estimated within participants",
			"and items (lm with participant and item effects). Prints them, writes",
			"conditions_r.csv and compares them with pragmalab's (conditions_pragmalab.csv)",
			"to 1e-9. Then fits the cumulative link mixed model",
			"  ordered(rating) ~ condition + (1 + condition | participant) + (1 | item)",
			"where the design supports by-condition slopes, else with random intercepts",
			"only, falling back in printed steps to simpler models where a fit fails; prints",
			"the model the numbers come from and writes clmm.csv and clmm_coefficients.csv.",
		},
		data: map[string]func(io.Writer) error{
			"ratings.csv": func(w io.Writer) error { return writeConditionRows(w, rs, res) },
			"settings.csv": func(w io.Writer) error {
				l := newLongWriter(w, "setting")
				l.int(res.ScalePoints, "scale_points")
				l.int(opt.HighPass, "high_pass_at_least")
				l.int(opt.LowPass, "low_pass_at_most")
				l.int(opt.MaxFailed, "excluded_when_failed_at_least")
				l.cw.Write([]string{"within_participant", strconv.FormatBool(within)})
				l.cw.Write([]string{"reference", opt.Reference})
				return l.close()
			},
			"conditions_order.csv":     func(w io.Writer) error { return writeConditionOrder(w, rs) },
			"conditions_pragmalab.csv": func(w io.Writer) error { return writeConditionsLong(w, res) },
		},
		outputs: []string{"conditions_r.csv", "clmm.csv", "clmm_coefficients.csv"},
	}
}

// writeConditionRows writes every row read, in file order, with its
// participant's status.
func writeConditionRows(w io.Writer, rs *conditions.Ratings, res *conditions.Result) error {
	status := map[string]string{}
	for _, p := range res.Participants.Details {
		status[p.ID] = p.Status
	}
	l := newLongWriter(w, "line", "participant_id", "item_id", "condition", "check", "participant_status")
	// (the rating goes in the value column)
	for _, rt := range rs.Rows {
		l.int(rt.Value, strconv.Itoa(rt.Line), rt.Participant, rt.Item, rt.Condition, rt.Check, status[rt.Participant])
	}
	return l.close()
}

func writeConditionOrder(w io.Writer, rs *conditions.Ratings) error {
	l := newLongWriter(w, "condition")
	for k, c := range rs.Conditions {
		l.int(k+1, c)
	}
	return l.close()
}

func writeConditionsLong(w io.Writer, res *conditions.Result) error {
	l := newLongWriter(w, "condition", "versus", "measure")
	l.int(res.Participants.Total, "", "", "participants_total")
	l.int(res.Participants.Analysed, "", "", "participants_analysed")
	l.int(len(res.Participants.Excluded), "", "", "participants_excluded")
	l.int(len(res.Participants.ZeroVariance), "", "", "participants_zero_variance")
	for _, c := range res.Conditions {
		l.int(c.Ratings, c.Name, "", "ratings")
		l.int(c.Participants, c.Name, "", "participants")
		l.int(c.Items, c.Name, "", "items")
		l.num(c.MeanRating, c.Name, "", "mean_rating")
		l.num(c.MeanRatingSE, c.Name, "", "mean_rating_se")
		if c.MeanRatingCI != nil {
			l.num(&c.MeanRatingCI[0], c.Name, "", "mean_rating_ci95_low")
			l.num(&c.MeanRatingCI[1], c.Name, "", "mean_rating_ci95_high")
		}
		l.int(c.ZRatings, c.Name, "", "z_ratings")
		l.num(c.MeanZ, c.Name, "", "mean_z")
		l.num(c.MeanZSE, c.Name, "", "mean_z_se")
		if c.MeanZCI != nil {
			l.num(&c.MeanZCI[0], c.Name, "", "mean_z_ci95_low")
			l.num(&c.MeanZCI[1], c.Name, "", "mean_z_ci95_high")
		}
		for _, pt := range c.Distribution {
			l.int(pt.Count, c.Name, "", "count_"+strconv.Itoa(pt.Point))
		}
	}
	for _, d := range res.Differences {
		l.num(d.MeanRating, d.Condition, d.Versus, "mean_rating_difference")
		l.num(d.MeanRatingSE, d.Condition, d.Versus, "mean_rating_difference_se")
		if d.MeanRatingCI != nil {
			l.num(&d.MeanRatingCI[0], d.Condition, d.Versus, "mean_rating_difference_ci95_low")
			l.num(&d.MeanRatingCI[1], d.Condition, d.Versus, "mean_rating_difference_ci95_high")
		}
		l.num(d.MeanZ, d.Condition, d.Versus, "mean_z_difference")
		l.num(d.MeanZSE, d.Condition, d.Versus, "mean_z_difference_se")
		if d.MeanZCI != nil {
			l.num(&d.MeanZCI[0], d.Condition, d.Versus, "mean_z_difference_ci95_low")
			l.num(&d.MeanZCI[1], d.Condition, d.Versus, "mean_z_difference_ci95_high")
		}
	}
	return l.close()
}

// designVersionFlag is --design-version: the one design version of a
// ratings file to analyse (docs/studies.md#design-versions).
func designVersionFlag(o *outputFlags) *int {
	return o.fs.Int("design-version", 0, designVersionUsage)
}

const designVersionUsage = "analyse the ratings of this design version only; a file holding several versions (the design_version column) is refused without it"

// pickVersion is analysis.PickDesignVersion of a ratings file, refusing a
// negative --design-version.
func pickVersion(r io.Reader, k int) (io.Reader, error) {
	if k < 0 {
		return nil, &analysis.InputError{Line: 1, Msg: fmt.Sprintf("--design-version must be 1 or more, got %d", k)}
	}
	return analysis.PickDesignVersion(r, k)
}
