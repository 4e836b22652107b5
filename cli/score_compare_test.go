package cli

import (
	"fmt"
	"strings"
	"testing"

	"pragmalab/analysis/toplines"
	"pragmalab/domain"
	"pragmalab/runner"
	"pragmalab/scoring"
)

// TestScoreComparePrintsOneItemSet: a job of 16 items with results for 7,
// humans who rated 10 of them. `score --compare` prints the humans and the
// model on the same 7 ("7 of 16"), with intervals, where it printed the
// humans' 0.70 over their 10.
func TestScoreComparePrintsOneItemSet(t *testing.T) {
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
	human := toplines.ComputeToplines(rs, toplines.DefaultOptions())
	res := &runner.Results{Job: &domain.Job{ID: 3, Task: string(scoring.TrueFalse)}, Scorer: "m"}
	for i := 1; i <= 16; i++ {
		it := scoring.TFItemResult{Key: fmt.Sprintf("k%02d", i), Type: "scalar", P: map[scoring.Condition]float64{}}
		if i <= 7 {
			it.P[scoring.Trigger], it.P[scoring.Cancel] = 0.8, 0.3
		}
		res.TF = append(res.TF, it)
	}
	res.TFMetrics = scoring.ComputeTF(res.TF)
	c := runner.Compare(human, res)
	var out strings.Builder
	printResults(&out, res, &c, nil)
	// Humans 4 of 7 = 0.57, Wilson [0.25, 0.84]; the model 7 of 7 = 1.00,
	// Wilson [0.65, 1.00]; the difference +0.43.
	if !lineHasInOrder(out.String(), "Implicature recognition", "scalar", "7 of 16", "0.57", "[0.25,", "0.84]", "1.00", "[0.65,", "1.00]", "+0.43", "[") {
		t.Errorf("no line comparing on the same 7 items:\n%s", out.String())
	}
	if strings.Contains(out.String(), "0.70") || strings.Contains(out.String(), "10 of 16") {
		t.Errorf("the humans' share over items the job has no result for is printed:\n%s", out.String())
	}
}
