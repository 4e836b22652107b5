package cli

import (
	"io"
	"strconv"

	"pragmalab/analysis/modelhuman"
	"pragmalab/csvsafe"
)

// altTestCompanion holds the two label files as read, the options and
// pragmalab's alt-test, for `analyze alt-test --r DIR` (docs/formats.md#r-companion): R
// recomputes every model's ω, ρ, verdict and each human's p-value and
// rejection from the definitions (docs/statistics.md#reproducing-in-r).
func altTestCompanion(args []string, humans, models []modelhuman.AltLabel, res *modelhuman.AltTest) *rCompanion {
	labels := func(head string, rows []modelhuman.AltLabel) func(io.Writer) error {
		return func(w io.Writer) error {
			recs := [][]string{{head, "item_id", "label"}}
			for _, r := range rows {
				recs = append(recs, []string{r.Who, r.Item, r.Label})
			}
			return csvsafe.NewWriter(w).WriteAll(recs)
		}
	}
	o := res.Options
	return &rCompanion{
		command: "alt-test", args: args,
		what: []string{
			"Re-computes pragmalab's alternative annotator test (Calderon, Reichart and",
			"Dror, ACL 2025) from humans.csv, models.csv and settings.csv: for each model,",
			"each human's leave-one-out scores against the other humans, the wins W_h and",
			"W_m, the one-sided t-test of W_h - W_m < epsilon, Benjamini-Yekutieli across",
			"the humans (p.adjust \"BY\"), the winning rate, the advantage probability and",
			"the verdict. Prints them, writes alttest_r.csv and compares them with",
			"pragmalab's (alttest_pragmalab.csv).",
		},
		data: map[string]func(io.Writer) error{
			"humans.csv": labels("annotator", humans),
			"models.csv": labels("model", models),
			"settings.csv": func(w io.Writer) error {
				return csvsafe.NewWriter(w).WriteAll([][]string{{"setting", "value"},
					{"scoring", o.Scoring.String()}, {"epsilon", strconv.FormatFloat(o.Epsilon, 'g', -1, 64)},
					{"q", strconv.FormatFloat(o.Q, 'g', -1, 64)}, {"min_items", strconv.Itoa(o.MinItems)},
					{"min_humans", strconv.Itoa(o.MinHumans)}, {"zscore", strconv.FormatBool(o.ZScore)}})
			},
			"alttest_pragmalab.csv": func(w io.Writer) error { return writeAltTestLong(w, res) },
		},
		outputs: []string{"alttest_r.csv"},
	}
}

func writeAltTestLong(w io.Writer, res *modelhuman.AltTest) error {
	l := newLongWriter(w, "model", "annotator", "measure")
	b := func(v bool) float64 {
		if v {
			return 1
		}
		return 0
	}
	for _, name := range res.Order {
		m := res.Models[name]
		for _, kv := range []struct {
			k string
			v float64
		}{{"winning_rate", m.WinningRate}, {"advantage_probability", m.AdvantageProbability}, {"passed", b(m.Passed)},
			{"humans", float64(m.Humans)}, {"items", float64(m.Items)}} {
			v := kv.v
			l.num(&v, name, "", kv.k)
		}
		for _, h := range m.PerHuman {
			items, p, rej := float64(h.Items), h.PValue, b(h.Rejected)
			l.num(&items, name, h.Annotator, "items")
			l.num(&p, name, h.Annotator, "p_value")
			l.num(&rej, name, h.Annotator, "rejected")
		}
	}
	return l.close()
}
