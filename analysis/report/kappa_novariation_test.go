package report

import (
	"fmt"
	"pragmalab/analysis"
	"pragmalab/analysis/agreement"
	"strings"
	"testing"
)

// TestKappaConstantAnnotator: when one annotator says yes to every item,
// κ is 0 by construction; the JSON keeps the number with the reason, and
// the tables and methods text show "n/a (no variation)", never
// 0.00 [0.00, 0.00].
func TestKappaConstantAnnotator(t *testing.T) {
	var b strings.Builder
	b.WriteString("annotator_id,item_id,item_type,plausible,cancellation_correct\n")
	for i := range 40 {
		other := "yes"
		if i%3 == 0 {
			other = "no"
		}
		fmt.Fprintf(&b, "yes-sayer,i%d,scalar,yes,yes\nA2,i%d,scalar,%s,\n", i, i, other)
	}
	js, err := agreement.ReadJudgements(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	ag := agreement.ComputeAgreementWith(js, analysis.Bootstrap{Replicates: 200, Seed: 1})
	q := ag.Plausibility
	if q.Kappa == nil || *q.Kappa != 0 || q.KappaNA == "" {
		t.Fatalf("κ %v, reason %q", q.Kappa, q.KappaNA)
	}
	for _, tb := range []*Table{AgreementTable(ag), AgreementIntervalsTable(ag)} {
		var out strings.Builder
		tb.WriteText(&out)
		if !strings.Contains(out.String(), "n/a (no variation)") || strings.Contains(out.String(), "0.00 [0.00, 0.00]") {
			t.Errorf("%s:\n%s", tb.Name, out.String())
		}
	}
	if m := strings.Join(AgreementMethods(ag, len(js), English).Paragraphs, " "); !strings.Contains(m, "n/a (no variation") {
		t.Errorf("methods: %s", m)
	}
	// A pair whose annotators both vary keeps its κ.
	if b := agreement.BinaryFromConfusion([2][2]int{{43, 4}, {4, 3}}); b.KappaNA != "" {
		t.Errorf("varying pair flagged: %q", b.KappaNA)
	}
}

// TestClusterWilsonAtOne: at a share of 1 the clustered Wilson interval
// counts the clusters (40 items), never the trials (120 pairs).
func TestClusterWilsonAtOne(t *testing.T) {
	hits, trials := make([]float64, 40), make([]float64, 40)
	for i := range hits {
		hits[i], trials[i] = 3, 3
	}
	got, want := analysis.ClusterWilson(hits, trials), analysis.Wilson(40, 40)
	if got == nil || *got != *want {
		t.Fatalf("p = 1 over 40 items × 3 pairs: %v, want Wilson over 40 %v (over 120: %v)", got, want, analysis.Wilson(120, 120))
	}
}

// TestYesSayerWarning: an annotator answering yes on every item is named
// in a warning giving both models' view, in the JSON, the annotator table
// and the methods text.
func TestYesSayerWarning(t *testing.T) {
	var b strings.Builder
	b.WriteString("annotator_id,item_id,item_type,plausible,cancellation_correct\n")
	for i := range 40 {
		v := []string{"yes", "no"}[min(1, i%3)]
		w := []string{"yes", "no"}[min(1, i%4)]
		fmt.Fprintf(&b, "yes-sayer,i%d,scalar,yes,yes\nA2,i%d,scalar,%s,\nA3,i%d,scalar,%s,\n", i, i, v, i, w)
	}
	js, err := agreement.ReadJudgements(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	ag := agreement.ComputeAgreementWith(js, analysis.Bootstrap{})
	m := ag.AnnotatorModels["plausibility"]
	if m == nil || len(m.Warnings) != 1 || !strings.Contains(m.Warnings[0], "yes-sayer answered yes on every one of 40 items") || !strings.Contains(m.Warnings[0], "MACE competence") {
		t.Fatalf("warnings: %+v", m)
	}
	var out strings.Builder
	AnnotatorModelsTable(ag).WriteText(&out)
	if !strings.Contains(out.String(), "Warning (plausibility): yes-sayer") {
		t.Errorf("table:\n%s", out.String())
	}
	if p := strings.Join(AgreementMethods(ag, len(js), English).Paragraphs, " "); !strings.Contains(p, "yes-sayer answered yes") {
		t.Errorf("methods: %s", p)
	}
}
