package cli

import (
	"context"
	"io"
	"math"
	"strconv"

	"pragmalab/analysis/modelhuman"
	"pragmalab/comparisons"
	"pragmalab/csvsafe"
	"pragmalab/runner"
	"pragmalab/scoring"
)

// writeScoreR writes the R companion of a likert job's comparison with its
// study's crowd (`pragmalab score --job ID --r DIR`,
// docs/statistics.md#reproducing-in-r): the kept ratings, the model's
// distributions and pragmalab's distances, ceilings and calibration, with
// a script recomputing them in base R.
func writeScoreR(ctx context.Context, svc *app, env *Env, res *runner.Results, c *comparisons.JobHumanComparison, dir string, args []string) error {
	if res.Job.Task == string(scoring.Expert) {
		return writeExpertR(ctx, svc, env, res, c, dir, args)
	}
	if res.Job.Task != string(scoring.Likert) || c == nil || c.Distributions == nil || c.Calibration == nil {
		why := "it is neither a likert nor an expert job"
		if res.Job.Task == string(scoring.Likert) {
			why = "its study has no crowd ratings"
			if c != nil {
				why = "; " + humanCompareWhy(c)
				why = "its comparison with the crowd has no distributions or calibration" + why
			}
		}
		return usagef("score: --r writes the R companion of a likert job's comparison with its study's crowd or of an expert job's ΔA; job %d cannot have one: %s", res.Job.ID, why)
	}
	u, err := svc.comparisons.LikertUnits(ctx, res)
	if err != nil {
		return err
	}
	return scoreCompanion(res.Job.ID, args, u, c).write(dir, env)
}

func scoreCompanion(job int64, args []string, u *comparisons.LikertUnits, c *comparisons.JobHumanComparison) *rCompanion {
	d, cal := c.Distributions, c.Calibration
	return &rCompanion{
		command: "distributions", program: "score", args: args,
		what: []string{
			"Re-computes pragmalab's comparison of likert job " + strconv.FormatInt(job, 10) + " with its study's crowd from",
			"ratings.csv (the item ratings of the participants the analysis keeps, on the",
			"units the model answered), model.csv (the model's probability of each point",
			"per item x condition) and settings.csv: per unit the human histogram and the",
			"model's Jensen-Shannon divergence in bits, KL(human || model) with the model",
			"smoothed, the Wasserstein distance divided by (points - 1) and the total",
			"variation; the humans' split-half ceiling (every split when there are at most",
			"the setting's number, exact; else R's own random splits, within Monte Carlo",
			"error); the means per condition and pooled, and the share within the ceiling.",
			"Then the expected calibration error of the model's P(True) (its probability",
			"above the midpoint) against the share of the crowd rating above it. Prints",
			"them, writes distributions_r.csv and calibration_r.csv and compares them with",
			"pragmalab's (distributions_pragmalab.csv, calibration_pragmalab.csv). The",
			"bootstrap interval of the ECE and the Wilson intervals are not recomputed.",
		},
		data: map[string]func(io.Writer) error{
			"ratings.csv": func(w io.Writer) error {
				cw := csvsafe.NewWriter(w)
				cw.Write([]string{"participant_id", "item_id", "condition", "rating"})
				for _, r := range u.Rated {
					cw.Write([]string{r.Participant, r.Item, r.Condition, strconv.Itoa(r.Rating)})
				}
				cw.Flush()
				return cw.Error()
			},
			"model.csv": func(w io.Writer) error {
				cw := csvsafe.NewWriter(w)
				cw.Write([]string{"item_id", "condition", "point", "probability"})
				for _, k := range u.Order {
					for i, p := range u.Model[k] {
						cw.Write([]string{k.Item, k.Condition, strconv.Itoa(i + 1), strconv.FormatFloat(p, 'g', -1, 64)})
					}
				}
				cw.Flush()
				return cw.Error()
			},
			"settings.csv": func(w io.Writer) error {
				l := newLongWriter(w, "setting")
				l.int(d.Points, "points")
				l.int(d.Splits, "splits")
				s := d.Smoothing
				l.num(&s, "kl_smoothing")
				l.int(len(cal.Bins), "calibration_bins")
				return l.close()
			},
			"distributions_pragmalab.csv": func(w io.Writer) error { return writeDistributionsLong(w, d) },
			"calibration_pragmalab.csv":   func(w io.Writer) error { return writeCalibrationLong(w, cal) },
		},
		parts:   []string{"calibration"},
		outputs: []string{"distributions_r.csv", "calibration_r.csv"},
	}
}

// writeDistributionsLong writes every unit's humans, distances, ceilings
// and verdicts, and every summary.
func writeDistributionsLong(w io.Writer, d *modelhuman.Distributions) error {
	l := newLongWriter(w, "level", "item_id", "condition", "measure")
	flag := func(b bool) int {
		if b {
			return 1
		}
		return 0
	}
	for _, it := range d.Items {
		l.int(it.Humans, "unit", it.Item, it.Condition, "humans")
		l.int(flag(it.Exhaustive), "unit", it.Item, it.Condition, "exhaustive")
		for _, m := range modelhuman.Measures {
			dm := it.Measures[m]
			v := dm.Model
			l.num(&v, "unit", it.Item, it.Condition, m+"_model")
			l.num(dm.Ceiling, "unit", it.Item, it.Condition, m+"_ceiling")
			if dm.Within != nil {
				l.int(flag(*dm.Within), "unit", it.Item, it.Condition, m+"_within")
			} else {
				l.num(nil, "unit", it.Item, it.Condition, m+"_within")
			}
		}
	}
	for _, s := range d.Summary {
		l.int(s.Units, "summary", "", s.Condition, s.Measure+"_units")
		l.num(s.MeanModel, "summary", "", s.Condition, s.Measure+"_mean_model")
		l.num(s.MeanCeiling, "summary", "", s.Condition, s.Measure+"_mean_ceiling")
		l.int(s.Within, "summary", "", s.Condition, s.Measure+"_within")
		l.num(s.WithinShare, "summary", "", s.Condition, s.Measure+"_within_share")
	}
	return l.close()
}

// writeCalibrationLong writes the ECE and every bin.
func writeCalibrationLong(w io.Writer, c *modelhuman.Calibration) error {
	l := newLongWriter(w, "bin", "measure")
	l.int(c.Items, "all", "items")
	l.num(c.ECE, "all", "ece")
	for i, b := range c.Bins {
		n := strconv.Itoa(i + 1)
		l.int(b.Items, n, "items")
		l.num(b.MeanModel, n, "mean_model")
		l.num(b.MeanHumans, n, "mean_humans")
	}
	return l.close()
}

// writeExpertR writes the R companion of an expert job's ΔA: the experts'
// plausibility judgements, the model's choices and pragmalab's α and ΔA.
func writeExpertR(ctx context.Context, svc *app, env *Env, res *runner.Results, c *comparisons.JobHumanComparison, dir string, args []string) error {
	if c == nil || c.Replacement == nil {
		why := "its study has no expert judgements"
		if c != nil {
			why = humanCompareWhy(c)
		}
		return usagef("score: --r: job %d has no ΔA to recompute: %s", res.Job.ID, why)
	}
	experts, items, data, model, err := svc.comparisons.ExpertReplacementData(ctx, res)
	if err != nil {
		return err
	}
	return expertCompanion(res.Job.ID, args, experts, items, data, model, c.Replacement).write(dir, env)
}

func expertCompanion(job int64, args []string, experts, items []string, data [][]float64, model []float64, r *modelhuman.ExpertReplacement) *rCompanion {
	cell := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return &rCompanion{
		command: "replacement", program: "score", args: args,
		what: []string{
			"Re-computes ΔA of expert job " + strconv.FormatInt(job, 10) + " from judgements.csv (each expert's",
			"plausibility judgement per item, 1 yes, 0 no) and model.csv (the model's choice",
			"per item, empty where it gave none): Krippendorff's α (nominal) of the",
			"experts, α with the model in each expert's place on the items that expert",
			"judged, the change, and ΔA, the mean change. Prints them, writes",
			"replacement_r.csv and compares them with pragmalab's (replacement_pragmalab.csv).",
			"The bootstrap interval of ΔA is not recomputed.",
		},
		data: map[string]func(io.Writer) error{
			"judgements.csv": func(w io.Writer) error {
				cw := csvsafe.NewWriter(w)
				cw.Write([]string{"expert", "item_id", "plausible"})
				for e, row := range data {
					for i, v := range row {
						if !math.IsNaN(v) {
							cw.Write([]string{experts[e], items[i], cell(v)})
						}
					}
				}
				cw.Flush()
				return cw.Error()
			},
			"model.csv": func(w io.Writer) error {
				cw := csvsafe.NewWriter(w)
				cw.Write([]string{"item_id", "choice"})
				for i, v := range model {
					cw.Write([]string{items[i], cell(v)})
				}
				cw.Flush()
				return cw.Error()
			},
			"replacement_pragmalab.csv": func(w io.Writer) error {
				l := newLongWriter(w, "expert", "measure")
				l.int(r.Units, "", "units")
				l.num(r.Alpha, "", "alpha_experts")
				l.num(r.DeltaA, "", "delta_a")
				for _, e := range r.PerExpert {
					l.num(e.Alpha, e.Expert, "alpha")
					l.num(e.DeltaA, e.Expert, "delta_a")
					l.int(e.Replace, e.Expert, "units_replaced")
				}
				return l.close()
			},
		},
		outputs: []string{"replacement_r.csv"},
	}
}
