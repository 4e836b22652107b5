package runner

import (
	"math"
	"strings"
	"testing"

	"pragmalab/analysis/toplines"
	"pragmalab/domain"
	"pragmalab/scoring"
)

func TestOrderBiasAndHumanCorrelation(t *testing.T) {
	P := func(tf, ft float64) map[scoring.Order]float64 {
		return map[scoring.Order]float64{scoring.TrueFirst: tf, scoring.FalseFirst: ft}
	}
	res := &Results{Job: &domain.Job{ID: 1, Task: "truefalse"}}
	trig := []float64{0.9, 0.8, 0.6, 0.3, 0.2}
	for i, p := range trig {
		key := string(rune('a' + i))
		res.TF = append(res.TF, scoring.TFItemResult{Key: key, Type: "scalar",
			P:       map[scoring.Condition]float64{scoring.Trigger: p, scoring.Prior: 0.5},
			ByOrder: map[scoring.Condition]map[scoring.Order]float64{scoring.Trigger: P(p+0.1, p-0.1), scoring.Prior: P(0.5, 0.5)}})
	}
	b := res.OrderBias()
	// Five triggers differ by 0.2, five priors by 0: mean 0.1, max 0.2.
	if b.N != 10 || math.Abs(*b.Mean-0.1) > 1e-9 || math.Abs(*b.Max-0.2) > 1e-9 {
		t.Errorf("order bias %+v", b)
	}
	// Human mean z of the trigger condition, by item.
	ratings := "participant_id,batch_id,item_id,item_type,condition,rating,check\n"
	for i, r := range []string{"7", "6", "5", "3", "1"} {
		ratings += "p1,1," + string(rune('a'+i)) + ",scalar,trigger," + r + ",\n"
	}
	rs, err := toplines.ReadRatings(strings.NewReader(ratings))
	if err != nil {
		t.Fatal(err)
	}
	human := toplines.ComputeToplines(rs, toplines.DefaultOptions())
	hc := res.CorrelateWithHumans(human)
	var ys []float64
	for _, m := range human.Items {
		ys = append(ys, m.MeanZ[toplines.Trigger])
	}
	want := toplines.Correlate(trig, ys)
	if hc.Trigger.N != 5 || hc.Trigger.R == nil || math.Abs(*hc.Trigger.R-*want.R) > 1e-12 {
		t.Fatalf("trigger correlation %+v", hc.Trigger)
	}
	if hc.Conditions.N != 5 {
		t.Errorf("the prior has no human counterpart: %d pairs, want 5", hc.Conditions.N)
	}
	if res.CorrelateWithHumans(nil).Trigger.N != 0 {
		t.Error("no humans, no correlation")
	}
}

func TestFisherInterval(t *testing.T) {
	// r = 0.98678 over 5 pairs; 95% CI tanh(atanh r ± 1.96/√2).
	c := toplines.Correlate([]float64{0.9, 0.8, 0.6, 0.3, 0.2}, []float64{1.2, 0.9, 0.1, -0.4, -1.0})
	if c.N != 5 || math.Abs(*c.R-0.9867820824) > 1e-9 || math.Abs(*c.Lo-0.8077237534) > 1e-9 || math.Abs(*c.Hi-0.9991680804) > 1e-9 {
		t.Errorf("correlation %+v lo %v hi %v", c, *c.Lo, *c.Hi)
	}
	if c := toplines.Correlate([]float64{1, 2, 3}, []float64{1, 3, 2}); c.R == nil || c.Lo != nil {
		t.Errorf("3 pairs give r but no interval: %+v", c)
	}
}

// TestHumanSharesSayTheirItems: a human share standing on fewer items
// than the job has carries its n of N, as the model's do.
func TestHumanSharesSayTheirItems(t *testing.T) {
	ratings := "participant_id,batch_id,item_id,item_type,condition,rating,check\n" +
		"p1,1,a,scalar,trigger,7,\np1,1,a,scalar,cancel,2,\np1,1,b,scalar,trigger,5,\np1,1,c,scalar,trigger,1,\n"
	rs, err := toplines.ReadRatingsWith(strings.NewReader(ratings), toplines.ReadOptions{WithinParticipant: true}) // a in two conditions
	if err != nil {
		t.Fatal(err)
	}
	human := toplines.ComputeToplines(rs, toplines.DefaultOptions())
	res := &Results{Job: &domain.Job{ID: 1}, Scorer: "m"}
	for _, k := range []string{"a", "b", "c"} {
		res.TF = append(res.TF, scoring.TFItemResult{Key: k, Type: "scalar", P: map[scoring.Condition]float64{scoring.Trigger: 0.7, scoring.Cancel: 0.2}})
	}
	res.TFMetrics = scoring.ComputeTF(res.TF)
	c := Compare(human, res)
	if got := c.HumanN["cancellation_recognition"]["scalar"]; got != [2]int{1, 3} {
		t.Errorf("human cancellation recognition on %v items, want 1 of 3 (only a has both conditions)", got)
	}
	if got := c.HumanN["implicature_recognition"]["scalar"]; got != [2]int{3, 3} {
		t.Errorf("human implicature recognition on %v, want 3 of 3", got)
	}
	// The model is compared on the same item as the humans.
	if got := c.Models[0].N["cancellation_recognition"]["scalar"]; got != [2]int{1, 3} {
		t.Errorf("model on %v, want 1 of 3, the humans' item", got)
	}
}
