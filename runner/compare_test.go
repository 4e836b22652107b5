package runner

import (
	"strings"
	"testing"

	"pragmalab/analysis"
	"pragmalab/scoring"
	"pragmalab/store"
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
	rs, err := analysis.ReadRatingsWith(strings.NewReader(ratings), analysis.ReadOptions{WithinParticipant: true}) // both conditions per participant
	if err != nil {
		t.Fatal(err)
	}
	// z-scores over each participant's ratings of both items, then only
	// x001's means are kept: the Analysis page's z-scores
	// (docs/statistics.md#human-toplines-beside-model-results).
	human := analysis.ComputeToplines(rs, analysis.DefaultOptions()).OverItems(func(k string) bool { return k == "x001" })
	if human.ByType["scalar"].Items != 1 {
		t.Fatalf("human toplines over %d scalar items, want only x001", human.ByType["scalar"].Items)
	}
	// A model that recognises x001's implicature (0.8 > 0.5) but does not
	// lower it with the cancellation (0.9 > 0.8).
	res := &Results{Job: &store.Job{ID: 7}, Scorer: "m"}
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
