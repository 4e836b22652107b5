package cli

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"pragmalab/runner"
	"pragmalab/scoring"
)

// printHumanTask prints the results of a task that asks the participants'
// own questions (docs/scoring.md#the-humans-own-questions): how often
// each option was chosen per condition or question, the measures of the
// task, and the option-order bias.
func printHumanTask(tw io.Writer, res *runner.Results) {
	m := res.HumanMetrics
	labels := res.Options()
	fmt.Fprintf(tw, "%d questions answered in both orders, %d items\n", m.Questions, res.JobItems[scoring.AllTypes])
	fmt.Fprintf(tw, "question\t%s", strings.Join(labels, "\t"))
	if m.MeanRating != nil {
		fmt.Fprint(tw, "\tmean")
	}
	fmt.Fprintln(tw)
	var qs []string
	for q := range m.Counts {
		qs = append(qs, q)
	}
	sort.Strings(qs)
	for _, q := range qs {
		fmt.Fprint(tw, q)
		for _, n := range m.Counts[q] {
			fmt.Fprintf(tw, "\t%d", n)
		}
		if v, ok := m.MeanRating[q]; ok {
			fmt.Fprintf(tw, "\t%.2f", v)
		}
		fmt.Fprintln(tw)
	}
	if m.CancellationRecognition != nil {
		fmt.Fprintf(tw, "cancellation recognition (rated lower with the cancellation): %s (n=%d)\n", pct(sharePtr(*m.CancellationRecognition)), m.CancellationRecognition.N)
	}
	if m.Plausible != nil {
		fmt.Fprintf(tw, "implicature plausible: %s (n=%d); cancellation correct, where plausible: %s (n=%d)\n",
			pct(sharePtr(*m.Plausible)), m.Plausible.N, pct(sharePtr(*m.CancellationCorrect)), m.CancellationCorrect.N)
	}
	if m.Needed != nil {
		var ks []string
		for k := range m.Needed {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		var parts []string
		for _, k := range ks {
			parts = append(parts, fmt.Sprintf("%s: %d", k, m.Needed[k]))
		}
		fmt.Fprintf(tw, "preceding sentences needed (questions): %s\n", strings.Join(parts, ", "))
	}
	if b := m.OrderBias; b.Mean != nil {
		fmt.Fprintf(tw, "option-order bias: mean |E(forward) − E(reversed)| / (options − 1) = %.3f (max %.3f) over %d questions\n", *b.Mean, *b.Max, b.N)
	}
}
