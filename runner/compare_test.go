package runner

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"pragmalab/analysis"
	"pragmalab/analysis/toplines"
	"pragmalab/domain"
	"pragmalab/scoring"
)

func TestHumanToplinesOverTheJobsItems(t *testing.T) {
	// Two participants; x001 rises without cancellation and drops with it,
	// x002 (not in the job) the other way round; two attention checks each.
	ratings := `participant_id,batch_id,item_id,item_type,condition,rating,check
p1,1,x001,scalar,trigger,7,
p1,1,x001,scalar,cancel,2,
p1,1,x002,scalar,trigger,1,
p1,1,x002,scalar,cancel,6,
p1,1,c1,,trigger,7,high
p1,1,c2,,trigger,1,low
p2,1,x001,scalar,trigger,6,
p2,1,x001,scalar,cancel,1,
p2,1,x002,scalar,trigger,2,
p2,1,x002,scalar,cancel,7,
p2,1,c1,,trigger,6,high
p2,1,c2,,trigger,2,low
`
	rs, err := toplines.ReadRatingsWith(strings.NewReader(ratings), toplines.ReadOptions{WithinParticipant: true}) // both conditions per participant
	if err != nil {
		t.Fatal(err)
	}
	// z-scores over each participant's ratings of both items, then only
	// x001's means are kept: the Analysis page's z-scores
	// (docs/statistics.md#human-toplines-beside-model-results).
	human := toplines.ComputeToplines(rs, toplines.DefaultOptions()).OverItems(func(k string) bool { return k == "x001" })
	if human.ByType["scalar"].Items != 1 {
		t.Fatalf("human toplines over %d scalar items, want only x001", human.ByType["scalar"].Items)
	}
	// A model that recognises x001's implicature (0.8 > 0.5) but does not
	// lower it with the cancellation (0.9 > 0.8).
	res := &Results{Job: &domain.Job{ID: 7}, Scorer: "m"}
	res.TF = []scoring.TFItemResult{{Key: "x001", Type: "scalar", P: map[scoring.Condition]float64{scoring.Trigger: 0.8, scoring.Cancel: 0.9}}}
	res.TFMetrics = scoring.ComputeTF(res.TF)
	c := Compare(human, res)
	if strings.Join(c.Types, ",") != "scalar,all" {
		t.Fatalf("types %v", c.Types)
	}
	h, m := c.Human, c.Models[0].Values
	if *h["implicature_recognition"]["scalar"] != 1 || *h["cancellation_recognition"]["scalar"] != 1 || h["prior_control"]["scalar"] != nil {
		t.Errorf("humans: recognition %v, cancellation %v, prior %v", *h["implicature_recognition"]["scalar"], *h["cancellation_recognition"]["scalar"], h["prior_control"]["scalar"])
	}
	if *m["implicature_recognition"]["scalar"] != 1 || *m["cancellation_recognition"]["scalar"] != 0 || m["strengthening"]["scalar"] != nil {
		t.Errorf("model column wrong: %+v", m)
	}
	if _, err := c.Bars("belief_update"); err != nil {
		t.Errorf("bars: %v", err)
	}
}

// TestComparisonOnTheJobsItems: a job of 16 items has
// results for 7, the humans rated 10 of the 16. The humans' share used to
// stand on their 10 items (0.70, "10 of 16") while the correlation beside
// it used the 7; now humans and model stand on the same 7.
func TestComparisonOnTheJobsItems(t *testing.T) {
	// Humans rated k01–k10: the implicature is recognised (trigger 7, above
	// the participant's mean) on k01–k04 and k08–k10, not on k05–k07
	// (trigger 1): 7 of 10 = 0.70 over all they rated, 4 of 7 over k01–k07.
	var b strings.Builder
	b.WriteString("participant_id,batch_id,item_id,item_type,condition,rating,check\n")
	for _, p := range []string{"p1", "p2"} {
		for i := 1; i <= 10; i++ {
			trig := 7
			if i >= 5 && i <= 7 {
				trig = 1
			}
			fmt.Fprintf(&b, "%s,1,k%02d,scalar,trigger,%d,\n%s,1,k%02d,scalar,cancel,4,\n", p, i, trig, p, i)
		}
	}
	rs, err := toplines.ReadRatingsWith(strings.NewReader(b.String()), toplines.ReadOptions{WithinParticipant: true})
	if err != nil {
		t.Fatal(err)
	}
	all := toplines.ComputeToplines(rs, toplines.DefaultOptions())
	if v := all.ByType["scalar"].ImplicatureRecognition; v == nil || math.Abs(*v-0.7) > 1e-12 {
		t.Fatalf("humans over their 10 items: %v, want 0.70", v)
	}
	// The job: 16 items, results (both orders of every condition) for
	// k01–k07 only; the model recognises the implicature on k01–k06.
	res := &Results{Job: &domain.Job{ID: 3}, Scorer: "m"}
	for i := 1; i <= 16; i++ {
		it := scoring.TFItemResult{Key: fmt.Sprintf("k%02d", i), Type: "scalar", P: map[scoring.Condition]float64{}}
		if i <= 7 {
			it.P[scoring.Trigger], it.P[scoring.Cancel] = 0.8, 0.3
			if i == 7 {
				it.P[scoring.Trigger] = 0.2
			}
		}
		res.TF = append(res.TF, it)
	}
	res.TFMetrics = scoring.ComputeTF(res.TF)
	if keys := res.ItemKeys(); len(keys) != 7 {
		t.Errorf("the job has results for %d items, want 7", len(keys))
	}
	// Whatever the humans' toplines were filtered to (all 16, or the 7),
	// the comparison stands on the 7.
	for _, human := range []*toplines.Toplines{all, all.OverItems(func(k string) bool { return res.ItemKeys()[k] })} {
		c := Compare(human, res)
		const m = "implicature_recognition"
		if got := c.HumanN[m]["scalar"]; got != [2]int{7, 16} {
			t.Errorf("humans on %v items, want 7 of 16", got)
		}
		if v := c.Human[m]["scalar"]; v == nil || math.Abs(*v-4.0/7) > 1e-12 {
			t.Errorf("humans %v, want 4/7 over the job's 7 items", v)
		}
		col := c.Models[0]
		if got := col.N[m]["scalar"]; got != [2]int{7, 16} {
			t.Errorf("model on %v items, want 7 of 16", got)
		}
		if v := col.Values[m]["scalar"]; v == nil || math.Abs(*v-6.0/7) > 1e-12 {
			t.Errorf("model %v, want 6/7", v)
		}
		// Intervals: Wilson over the 7 items for each share, and the paired
		// difference 6/7 − 4/7 = 2/7 with its Newcombe interval.
		if ci, want := c.HumanCI[m]["scalar"], analysis.Wilson(4, 7); ci == nil || *ci != *want {
			t.Errorf("humans' interval %v, want Wilson(4, 7) = %v", ci, want)
		}
		if ci, want := col.CI[m]["scalar"], analysis.Wilson(6, 7); ci == nil || *ci != *want {
			t.Errorf("model's interval %v, want Wilson(6, 7) = %v", ci, want)
		}
		// k01–k04 both, k05 k06 model only, k07 neither.
		want := toplines.PairedShares{Both: 4, OnlyA: 2, Neither: 1}.DiffCI()
		if d, ci := col.Diff[m]["scalar"], col.DiffCI[m]["scalar"]; d == nil || math.Abs(*d-2.0/7) > 1e-12 || ci == nil || *ci != *want {
			t.Errorf("difference %v %v, want 2/7 %v", d, ci, want)
		}
		cell := col.JSON()[m]["scalar"]
		if cell.Items != 7 || cell.ItemsInJob != 16 || *cell.Humans != *c.Human[m]["scalar"] {
			t.Errorf("JSON cell %+v", cell)
		}
		// The correlation beside the comparison uses the same 7 items.
		if n := res.CorrelateWithHumans(human).Trigger.N; n != 7 {
			t.Errorf("correlation on %d items, want 7", n)
		}
	}
}

// TestModelHitIsTheScoringRule: the comparison's per-item verdicts add up
// to the job's own shares when no humans narrow the item set.
func TestModelHitIsTheScoringRule(t *testing.T) {
	res := &Results{Job: &domain.Job{ID: 1}, Scorer: "m"}
	ps := []float64{0.1, 0.4, 0.6, 0.9}
	k := 0
	for _, tr := range ps {
		for _, x := range ps {
			it := scoring.TFItemResult{Key: fmt.Sprint(k), Type: "scalar", P: map[scoring.Condition]float64{scoring.Trigger: tr}}
			for i, c := range []scoring.Condition{scoring.Cancel, scoring.Prior, scoring.Negation, scoring.Strengthen, scoring.Neutral} {
				if (k+i)%3 != 0 {
					it.P[c] = x
				}
			}
			res.TF = append(res.TF, it)
			k++
		}
	}
	res.TFMetrics = scoring.ComputeTF(res.TF)
	c := Compare(nil, res)
	for _, m := range Measures {
		want := tfShares(res.TFMetrics["scalar"])[m]
		got := c.Models[0]
		if v, ok := want.Value(); !ok || got.Values[m]["scalar"] == nil || *got.Values[m]["scalar"] != v || got.N[m]["scalar"][0] != want.N {
			t.Errorf("%s: comparison %v on %v, scoring %v", m, got.Values[m]["scalar"], got.N[m]["scalar"], want)
		}
	}
}

func tfShares(m scoring.TFMetrics) map[string]scoring.Share {
	return map[string]scoring.Share{
		"implicature_recognition": m.ImplicatureRecognition, "cancellation_recognition": m.CancellationRecognition,
		"belief_update": m.BeliefUpdate, "prior_control": m.PriorControl, "negation_cancellation": m.NegationCancellation,
		"strengthening": m.Strengthening, "unchanged": m.Unchanged,
	}
}
