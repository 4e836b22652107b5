package scoring

import (
	"bytes"
	"encoding/json"
	"strconv"

	"pragmalab/analysis"
)

// Wilson is the share's 95 % Wilson score interval (nil when n is 0): the
// interval for a share of independent trials, here items.
func (s Share) Wilson() *analysis.CI { return analysis.Wilson(s.Hits, s.N) }

// withIntervals appends "<key>_ci95": [lo, hi] (null when the share has no
// value) for each share to the JSON object js, so every existing key stays
// where it was.
func withIntervals(js []byte, keys []string, shares []Share) []byte {
	js = bytes.TrimRight(js, " \n")
	js = js[:len(js)-1] // the closing brace
	var b bytes.Buffer
	b.Write(js)
	for i, k := range keys {
		b.WriteString(`,"` + k + `_ci95":`)
		if ci := shares[i].Wilson(); ci != nil {
			b.WriteString("[" + strconv.FormatFloat(ci[0], 'g', -1, 64) + "," + strconv.FormatFloat(ci[1], 'g', -1, 64) + "]")
		} else {
			b.WriteString("null")
		}
	}
	b.WriteString("}")
	return b.Bytes()
}

// MarshalJSON writes the measures with a Wilson interval beside each share.
func (m TFMetrics) MarshalJSON() ([]byte, error) {
	type plain TFMetrics
	js, err := json.Marshal(plain(m))
	if err != nil {
		return nil, err
	}
	return withIntervals(js,
		[]string{"implicature_recognition", "cancellation_recognition", "belief_update", "prior_control", "negation_cancellation", "strengthening", "unchanged"},
		[]Share{m.ImplicatureRecognition, m.CancellationRecognition, m.BeliefUpdate, m.PriorControl, m.NegationCancellation, m.Strengthening, m.Unchanged}), nil
}

// MarshalJSON writes the measures with a Wilson interval beside each share.
func (m MCMetrics) MarshalJSON() ([]byte, error) {
	type plain MCMetrics
	js, err := json.Marshal(plain(m))
	if err != nil {
		return nil, err
	}
	return withIntervals(js, []string{"accuracy", "hard_negatives", "easy_negatives"}, []Share{m.Accuracy, m.HardNegatives, m.EasyNegatives}), nil
}
