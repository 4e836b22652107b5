package scoring

import (
	"encoding/json"
	"math"
	"testing"
)

func TestSharesCarryWilsonIntervals(t *testing.T) {
	// 7/10 and 0/0; reference: analysis/testdata/interval_ref.py (Python 3.11,
	// the Wilson interval as the roots of its quadratic).
	m := MCMetrics{Items: 10, Accuracy: Share{Hits: 7, N: 10}}
	js, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(js, &got); err != nil {
		t.Fatalf("%v: %s", err, js)
	}
	ci, ok := got["accuracy_ci95"].([]any)
	if !ok || math.Abs(ci[0].(float64)-0.396778147461145) > 1e-12 || math.Abs(ci[1].(float64)-0.892208732593699) > 1e-12 {
		t.Errorf("accuracy_ci95 = %v", got["accuracy_ci95"])
	}
	if got["accuracy"] != 0.7 || got["hard_negatives"] != nil || got["hard_negatives_ci95"] != nil {
		t.Errorf("JSON = %s", js)
	}
	tf, _ := json.Marshal(map[string]TFMetrics{"all": {Items: 3, ImplicatureRecognition: Share{Hits: 3, N: 3}}})
	var back map[string]map[string]any
	if err := json.Unmarshal(tf, &back); err != nil || back["all"]["implicature_recognition_ci95"] == nil || back["all"]["prior_control_ci95"] != nil {
		t.Errorf("TF JSON = %s (%v)", tf, err)
	}
}
