package report

import (
	"fmt"
	"os"
	"pragmalab/analysis"
	"pragmalab/analysis/contextsurvey"
	"pragmalab/analysis/modelhuman"
	"strings"
	"testing"
)

func TestContextAndExplanationsMethods(t *testing.T) {
	f, err := os.Open("../contextsurvey/testdata/context_alpha.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	as, err := contextsurvey.ReadContextAnswers(f)
	if err != nil {
		t.Fatal(err)
	}
	c := contextsurvey.ComputeContextWith(as, analysis.Bootstrap{Replicates: 200, Seed: 1})
	o := c.Overall
	m := ContextMethods(c, English).Markdown()
	for _, want := range []string{
		fmt.Sprintf("Experts gave %d final answers on %d passages in 2 surveys", o.Judgements, o.Items),
		fmt.Sprintf("Krippendorff's α (nominal) = %s (95 %% CI [%s, %s]) over 20 passages", analysis.Fixed(*o.KrippendorffAlphaNominal, 2), analysis.Fixed(o.KrippendorffAlphaNominalCI[0], 2), analysis.Fixed(o.KrippendorffAlphaNominalCI[1], 2)),
		"200 bootstrap replicates (seed 1) resampling passages within each survey",
	} {
		if !strings.Contains(m, want) {
			t.Errorf("context methods lack %q:\n%s", want, m)
		}
	}

	rs, err := modelhuman.ReadExplanationRatings(strings.NewReader("annotator_id,item_id,kind,strategy,judgment,model\n" +
		"e1,i1,Impl,zero-shot,totally_correct,m1\ne1,i2,Impl,zero-shot,totally_wrong,m1\ne1,i1,Impl,zero-shot,partially_correct,m2\ne1,i3,Impl,few-shot,totally_correct,m2\n"))
	if err != nil {
		t.Fatal(err)
	}
	e := modelhuman.ComputeExplanations(rs)
	txt := ExplanationsMethods(e, len(rs), English).Text()
	// 3 of 4 acceptable, two ratings of passage i1 (both acceptable): the
	// clustered Wilson interval, n_eff = p(1−p)/v with
	// v = 3/2·((2−1.5)² + (0−0.75)² + (1−0.75)²)/4² (docs/statistics.md#explanation-ratings).
	ci := analysis.WilsonN(0.75, 0.75*0.25/(1.5*0.875/16))
	for _, want := range []string{"Experts gave 4 ratings", fmt.Sprintf("75 %% (95 %% CI %s–%s %%) of the explanations were acceptable", analysis.Percent(ci[0]), analysis.Percent(ci[1])),
		"zero-shot 67 %", "Acceptable by model: m1 50 %", "m2 100 %"} {
		if !strings.Contains(txt, want) {
			t.Errorf("explanation methods lack %q:\n%s", want, txt)
		}
	}
}

func TestLaTeXEscapesAndIntervals(t *testing.T) {
	v, lo, hi := 0.5, 0.25, 0.75
	tb := &Table{Name: "x_y", Title: "κ & α ≤ 5 % of #1", Columns: []string{"Type_a", "Estimate"},
		Rows: [][]any{{"scalar", analysis.Est{V: &v, CI: &analysis.CI{lo, hi}}}, {"natural", analysis.Est{V: nil, CI: nil}}}, Notes: []string{"p < 0.001 – see $x"}}
	var b strings.Builder
	if err := tb.WriteLaTeX(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{`\caption{$\kappa$ \& $\alpha$ $\leq$ 5 \% of \#1}`, `\label{tab:x-y}`, `\begin{tabular}{lr}`,
		`Type\_a & Estimate \\`, `scalar & \begin{tabular}[t]{@{}r@{}}0.50\\{\scriptsize [0.25, 0.75]}\end{tabular} \\`, `natural & -- \\`,
		`\toprule`, `\midrule`, `\bottomrule`, `p $<$ 0.001 -- see \$x\par`} {
		if !strings.Contains(out, want) {
			t.Errorf("LaTeX lacks %q:\n%s", want, out)
		}
	}
	var csv strings.Builder
	if err := tb.WriteCSV(&csv); err != nil {
		t.Fatal(err)
	}
	if want := "Type_a,Estimate,Estimate 95% CI low,Estimate 95% CI high\nscalar,0.5,0.25,0.75\nnatural,,,\n"; csv.String() != want {
		t.Errorf("CSV = %q, want %q", csv.String(), want)
	}
	var js strings.Builder
	if err := tb.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `"Estimate": 0.5, "Estimate_ci95": [0.25,0.75]`) || !strings.Contains(js.String(), `"Estimate": null, "Estimate_ci95": null`) {
		t.Errorf("JSON = %s", js.String())
	}
}
