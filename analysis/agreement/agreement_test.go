package agreement

import (
	"errors"
	"fmt"
	"math"
	"pragmalab/analysis"
	"pragmalab/analysis/internal/atest"
	"strings"
	"testing"
)

func TestBinaryFromConfusion(t *testing.T) {
	tests := []struct {
		name              string
		c                 [2][2]int
		raw, kappa, pabak string
	}{
		// ImplicatureX round 1, docs/statistics.md#reference-values.
		{"plausibility reference", [2][2]int{{43, 4}, {4, 3}}, "0.85", "0.34", "0.70"},
		{"cancellation reference", [2][2]int{{35, 3}, {3, 2}}, "0.86", "0.32", "0.72"},
		{"perfect agreement, two classes", [2][2]int{{5, 0}, {0, 5}}, "1.00", "1.00", "1.00"},
		{"complete disagreement", [2][2]int{{0, 5}, {5, 0}}, "0.00", "-1.00", "-1.00"},
		// Both annotators use one and the same class: chance agreement is 1, κ is 0/0.
		{"both all yes", [2][2]int{{9, 0}, {0, 0}}, "1.00", "null", "1.00"},
		{"both all no", [2][2]int{{0, 0}, {0, 4}}, "1.00", "null", "1.00"},
		// Each uses one class but different ones: chance agreement 0, κ = 0.
		{"A all yes, B all no", [2][2]int{{0, 6}, {0, 0}}, "0.00", "0.00", "-1.00"},
		{"no items", [2][2]int{}, "null", "null", "null"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := BinaryFromConfusion(tc.c)
			if got := [3]string{atest.Round2(b.Raw), atest.Round2(b.Kappa), atest.Round2(b.PABAK)}; got != [3]string{tc.raw, tc.kappa, tc.pabak} {
				t.Errorf("raw/kappa/pabak = %v, want %v %v %v", got, tc.raw, tc.kappa, tc.pabak)
			}
		})
	}
}

func TestFleissKappa(t *testing.T) {
	// Wikipedia's worked example ("Fleiss' kappa"): 10 subjects, 14 raters,
	// 5 categories, P̄ = 0.378, P̄e = 0.213, κ = 0.210.
	wiki := [][]int{
		{0, 0, 0, 0, 14}, {0, 2, 6, 4, 2}, {0, 0, 3, 5, 6}, {0, 3, 9, 2, 0}, {2, 2, 8, 1, 1},
		{7, 7, 0, 0, 0}, {3, 2, 6, 3, 0}, {2, 5, 3, 2, 2}, {6, 5, 2, 1, 0}, {0, 2, 2, 3, 7},
	}
	k, ok := analysis.FleissKappa(wiki)
	if !ok || math.Abs(k-0.20993) > 5e-5 {
		t.Errorf("Wikipedia example: κ = %v %v, want 0.210", k, ok)
	}
	if k, ok := analysis.FleissKappa([][]int{{3, 0}, {0, 3}, {3, 0}}); !ok || k != 1 {
		t.Errorf("perfect agreement: κ = %v %v", k, ok)
	}
	for name, c := range map[string][][]int{
		"no subjects":     nil,
		"one rater":       {{1, 0}, {0, 1}},
		"unequal raters":  {{2, 0}, {1, 2}},
		"single category": {{3, 0}, {3, 0}},
	} {
		if _, ok := analysis.FleissKappa(c); ok {
			t.Errorf("%s: κ should be undefined", name)
		}
	}
}

// judgementsCSV builds a two-annotator file whose plausibility confusion is
// c and, over items both found plausible, cancellation confusion is cc.
func judgementsCSV(c, cc [2][2]int) string {
	var b strings.Builder
	b.WriteString("annotator_id,item_id,item_type,plausible,cancellation_correct\n")
	yn := []string{"yes", "no"}
	item := 0
	for a := range 2 {
		for bb := range 2 {
			for range c[a][bb] {
				item++
				ca, cb := "", ""
				if a == 0 && bb == 0 {
					// Fill the cancellation cells in order until used up.
					for x := range 2 {
						for y := range 2 {
							if cc[x][y] > 0 && ca == "" {
								cc[x][y]--
								ca, cb = yn[x], yn[y]
							}
						}
					}
				}
				fmt.Fprintf(&b, "ann1,i%d,scalar,%s,%s\nann2,i%d,scalar,%s,%s\n", item, yn[a], ca, item, yn[bb], cb)
			}
		}
	}
	return b.String()
}

func TestAgreementReferenceFile(t *testing.T) {
	// 54 items: plausibility [[43,4],[4,3]]; 43 plausible for both, of which
	// the first 43 carry cancellation judgements [[35,3],[3,2]].
	csv := judgementsCSV([2][2]int{{43, 4}, {4, 3}}, [2][2]int{{35, 3}, {3, 2}})
	js, err := ReadJudgements(strings.NewReader(csv))
	if err != nil {
		t.Fatal(err)
	}
	ag := ComputeAgreement(js)
	p, c := ag.Plausibility, ag.Cancellation
	if p.Items != 54 || p.Confusion != [2][2]int{{43, 4}, {4, 3}} || atest.Round2(p.Raw) != "0.85" || atest.Round2(p.Kappa) != "0.34" || atest.Round2(p.PABAK) != "0.70" {
		t.Errorf("plausibility = %+v", p)
	}
	if c.Items != 43 || c.Confusion != [2][2]int{{35, 3}, {3, 2}} || atest.Round2(c.Raw) != "0.86" || atest.Round2(c.Kappa) != "0.32" || atest.Round2(c.PABAK) != "0.72" {
		t.Errorf("cancellation = %+v (raw %s κ %s)", c, atest.Round2(c.Raw), atest.Round2(c.Kappa))
	}
	if len(ag.Pairs) != 1 || ag.Pairs[0].A != "ann1" || ag.Pairs[0].B != "ann2" {
		t.Errorf("pairs = %+v", ag.Pairs)
	}
}

func TestAgreementThreeAnnotators(t *testing.T) {
	csv := `annotator_id,item_id,item_type,plausible,cancellation_correct
a,i1,scalar,yes,yes
b,i1,scalar,yes,yes
c,i1,scalar,yes,no
a,i2,scalar,no,
b,i2,scalar,yes,yes
c,i2,scalar,no,
a,i3,natural,yes,no
b,i3,natural,yes,no
c,i3,natural,yes,no
a,i4,natural,yes,yes
b,i4,natural,yes,yes
`
	js, err := ReadJudgements(strings.NewReader(csv))
	if err != nil {
		t.Fatal(err)
	}
	ag := ComputeAgreement(js)
	if len(ag.Pairs) != 3 {
		t.Fatalf("pairs = %d, want 3", len(ag.Pairs))
	}
	ab := ag.Pairs[0] // a–b share i1..i4
	if ab.A != "a" || ab.B != "b" || ab.Plausibility.Confusion != [2][2]int{{3, 0}, {1, 0}} || ab.Cancellation.Confusion != [2][2]int{{2, 0}, {0, 1}} {
		t.Errorf("a–b = %+v", ab)
	}
	// Pooled over a–b (4 items), a–c (3), b–c (3).
	if ag.Plausibility.Items != 10 {
		t.Errorf("pooled items = %d, want 10", ag.Plausibility.Items)
	}
	// Fleiss over i1..i3 (three raters each): yes/no counts [3,0],[1,2],[3,0].
	want, _ := analysis.FleissKappa([][]int{{3, 0}, {1, 2}, {3, 0}})
	if ag.Plausibility.FleissItems != 3 || ag.Plausibility.FleissRaters != 3 || !atest.Near(ag.Plausibility.FleissKappa, want) {
		t.Errorf("Fleiss = %s over %d items", atest.FmtPtr(ag.Plausibility.FleissKappa), ag.Plausibility.FleissItems)
	}
	// Cancellation Fleiss: i2 is spoiled (judged implausible), so i1 and i3 remain.
	wantC, _ := analysis.FleissKappa([][]int{{2, 1}, {0, 3}})
	if ag.Cancellation.FleissItems != 2 || !atest.Near(ag.Cancellation.FleissKappa, wantC) {
		t.Errorf("cancellation Fleiss = %s over %d items", atest.FmtPtr(ag.Cancellation.FleissKappa), ag.Cancellation.FleissItems)
	}
}

func TestReadJudgementsErrors(t *testing.T) {
	h := "annotator_id,item_id,item_type,plausible,cancellation_correct\n"
	tests := []struct {
		name, csv string
		line      int
		column    string
	}{
		{"empty file", "", 1, ""},
		{"unknown column", "annotator_id,item_id,item_type,plausible,cancellation_correct,note\n", 1, "note"},
		{"missing column", "annotator_id,item_id,plausible,cancellation_correct\n", 1, "item_type"},
		{"bad plausible", h + "a,i1,scalar,maybe,\n", 2, "plausible"},
		{"empty plausible", h + "a,i1,scalar,,yes\n", 2, "plausible"},
		{"bad cancellation", h + "a,i1,scalar,yes,perhaps\n", 2, "cancellation_correct"},
		{"duplicate", h + "a,i1,scalar,yes,\nb,i1,scalar,yes,\na,i1,scalar,no,\n", 4, "item_id"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadJudgements(strings.NewReader(tc.csv))
			var ie *analysis.InputError
			if !errors.As(err, &ie) || ie.Line != tc.line || ie.Column != tc.column {
				t.Errorf("err = %v, want line %d column %q", err, tc.line, tc.column)
			}
		})
	}
}
