package contextsurvey

import (
	"encoding/json"
	"errors"
	"fmt"
	"pragmalab/analysis"
	"pragmalab/analysis/internal/atest"
	"pragmalab/analysis/modelhuman"
	"strings"
	"testing"
)

// contextRow writes one answer; category 6 means "insufficient at 5".
func contextRow(b *strings.Builder, ann, survey, item string, cat int) {
	sent, suff := cat, "yes"
	if cat == 6 {
		sent, suff = 5, "no"
	}
	fmt.Fprintf(b, "%s,%s,%s,Impl,1946-1972,%d,%s,5\n", ann, survey, item, sent, suff)
}

func TestContext(t *testing.T) {
	var b strings.Builder
	b.WriteString("annotator_id,survey_id,item_id,kind,period,sentences,sufficient,max_sentences\n")
	s1 := map[string][3]int{"i1": {0, 0, 0}, "i2": {0, 0, 2}, "i3": {1, 3, 6}, "i4": {6, 6, 6}}
	for _, it := range []string{"i1", "i2", "i3", "i4"} {
		for a, cat := range s1[it] {
			contextRow(&b, fmt.Sprintf("e%d", a+1), "S1", it, cat)
		}
	}
	contextRow(&b, "e4", "S2", "j1", 0)
	contextRow(&b, "e5", "S2", "j1", 1)
	contextRow(&b, "e4", "S2", "j2", 4)
	// A passage with only 4 preceding sentences ends "insufficient" at 4.
	b.WriteString("e5,S2,j2,Ppp,1994-2023,4,no,4\n")
	as, err := ReadContextAnswers(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	c := ComputeContext(as)
	s := c.Surveys["S1"]
	shares := func(ps []*float64) string {
		out := make([]string, len(ps))
		for i, p := range ps {
			out[i] = atest.Round2(p)
		}
		return strings.Join(out, " ")
	}
	rows := [][]int{{3, 0, 0, 0, 0, 0, 0}, {2, 0, 1, 0, 0, 0, 0}, {0, 1, 0, 1, 0, 0, 1}, {0, 0, 0, 0, 0, 0, 3}}
	wantK, _ := analysis.FleissKappa(rows)
	if s.Items != 4 || s.Judgements != 12 || !atest.Near(s.FleissKappa, wantK) || s.FleissItems != 4 ||
		atest.Round2(s.FullConsensus) != "0.50" || atest.Round2(s.MajorityConsensus) != "0.25" {
		t.Errorf("S1 = %+v (κ %s, want %v)", s, atest.FmtPtr(s.FleissKappa), wantK)
	}
	if got := shares(s.CumulativeJudgements); got != "0.42 0.50 0.58 0.67 0.67 0.67" {
		t.Errorf("S1 cumulative judgements = %s", got)
	}
	if got := shares(s.CumulativeItems); got != "0.50 0.50 0.50 0.75 0.75 0.75" {
		t.Errorf("S1 cumulative items = %s", got)
	}
	// S2: j1 has two annotators who disagree; j2 two who disagree too.
	s2 := c.Surveys["S2"]
	if s2.Items != 2 || s2.ConsensusItems != 2 || atest.Round2(s2.CumulativeJudgements[5]) != "0.75" || atest.Round2(s2.FullConsensus) != "0.00" || s2.FleissItems != 2 || s2.FleissRaters != 2 {
		t.Errorf("S2 = %+v", s2)
	}
	o := c.Overall
	if o.Items != 6 || o.Judgements != 16 || o.FleissItems != 4 || !atest.Near(o.FleissKappa, wantK) {
		t.Errorf("overall = %+v", o)
	}
	js, _ := json.Marshal(c)
	for _, k := range []string{`"surveys":{"S1":{"items":4`, `"fleiss_kappa"`, `"full_consensus"`, `"majority_consensus"`, `"cumulative_judgements":[`, `"cumulative_items":[`, `"overall":{`} {
		if !strings.Contains(string(js), k) {
			t.Errorf("JSON lacks %s: %s", k, js)
		}
	}
}

// TestReadContextInsufficientBeforeFive: a passage with only four sentences
// before its target ends "insufficient" at 4, the same category as at 5.
func TestReadContextInsufficientBeforeFive(t *testing.T) {
	// Issue 12: "no" before the last sentence is final only when the
	// passage could show no more, which max_sentences says.
	h := "annotator_id,survey_id,item_id,kind,period,sentences,sufficient,max_sentences\n"
	as, err := ReadContextAnswers(strings.NewReader(h + "e1,S1,i1,Impl,p,4,no,4\ne1,S1,i2,Impl,p,5,no,\n"))
	if err != nil {
		t.Fatal(err)
	}
	if as[0].Category() != MaxAddedSentences+1 || as[1].Category() != MaxAddedSentences+1 {
		t.Errorf("categories %d, %d; want both insufficient (%d)", as[0].Category(), as[1].Category(), MaxAddedSentences+1)
	}
}

func TestReadContextErrors(t *testing.T) {
	h := "annotator_id,survey_id,item_id,kind,period,sentences,sufficient\n"
	tests := []struct {
		name, csv string
		line      int
		column    string
	}{
		{"empty", "", 1, ""},
		{"sentences 6", h + "e1,S1,i1,Impl,p,6,yes\n", 2, "sentences"},
		{"sentences text", h + "e1,S1,i1,Impl,p,two,yes\n", 2, "sentences"},
		{"bad sufficient", h + "e1,S1,i1,Impl,p,3,perhaps\n", 2, "sufficient"},
		{"duplicate", h + "e1,S1,i1,Impl,p,3,yes\ne1,S1,i1,Impl,p,2,yes\n", 3, "item_id"},
		{"empty survey", h + "e1,,i1,Impl,p,3,yes\n", 2, "survey_id"},
		// Issue 12: "no" before every sentence was shown is not "insufficient".
		{"no before five", h + "e1,S1,i1,Impl,p,1,yes\ne1,S1,i2,Impl,p,3,no\n", 3, "sufficient"},
		{"no before max", h[:len(h)-1] + ",max_sentences\ne1,S1,i1,Impl,p,3,no,4\n", 2, "sufficient"},
		{"more than max", h[:len(h)-1] + ",max_sentences\ne1,S1,i1,Impl,p,5,yes,4\n", 2, "sentences"},
		{"bad max", h[:len(h)-1] + ",max_sentences\ne1,S1,i1,Impl,p,3,yes,7\n", 2, "max_sentences"},
		{"period all", h + "e1,S1,i1,Impl,all,3,yes\n", 2, "period"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadContextAnswers(strings.NewReader(tc.csv))
			var ie *analysis.InputError
			if !errors.As(err, &ie) || ie.Line != tc.line || ie.Column != tc.column {
				t.Errorf("err = %v, want line %d column %q", err, tc.line, tc.column)
			}
		})
	}
}

func TestExplanations(t *testing.T) {
	csv := `annotator_id,item_id,kind,strategy,judgment
e1,i1,Impl,zero-shot,totally_correct
e1,i2,Impl,zero-shot,Partially correct
e2,i3,Impl,zero-shot,totally_wrong
e2,i4,Impl,zero-shot,Answer not given
e1,i1,Impl,few-shot,Correct among various options
e1,i5,Ppp,zero-shot,totally_wrong
`
	rs, err := modelhuman.ReadExplanationRatings(strings.NewReader(csv))
	if err != nil {
		t.Fatal(err)
	}
	e := modelhuman.ComputeExplanations(rs)
	zs := e.Table["Impl"]["zero-shot"]
	if zs.N != 4 || atest.Round2(zs.Share(0)) != "0.25" || atest.Round2(zs.Share(2)) != "0.25" || atest.Round2(zs.Acceptable()) != "0.50" {
		t.Errorf("Impl zero-shot = %+v", zs)
	}
	if a := e.Table["all"]["all"]; a.N != 6 || atest.Round2(a.Acceptable()) != "0.50" {
		t.Errorf("all/all = %+v", a)
	}
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]map[string]map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	fs := m["Impl"]["few-shot"]
	if fs["n"] != 1.0 || fs["correct_among_options"] != 1.0 || fs["acceptable"] != 1.0 || fs["totally_wrong"] != 0.0 {
		t.Errorf("Impl few-shot JSON = %v", fs)
	}
	_, err = modelhuman.ReadExplanationRatings(strings.NewReader("annotator_id,item_id,kind,strategy,judgment\ne1,i1,Impl,zs,great\n"))
	var ie *analysis.InputError
	if !errors.As(err, &ie) || ie.Line != 2 || ie.Column != "judgment" {
		t.Errorf("bad judgment: err = %v", err)
	}
}

// One expert may rate two models' explanations of the same item and
// strategy when the file says which model each row is about.
func TestExplanationsModelColumn(t *testing.T) {
	twoModels := "annotator_id,item_id,kind,strategy,judgment,model\n" +
		"ann,1,Impl,zero-shot,totally_correct,gemma\n" +
		"ann,1,Impl,zero-shot,totally_wrong,llama\n"
	rs, err := modelhuman.ReadExplanationRatings(strings.NewReader(twoModels))
	if err != nil {
		t.Fatalf("two models' outputs of one item: %v", err)
	}
	e := modelhuman.ComputeExplanations(rs)
	cell := e.Table["Impl"]["zero-shot"]
	if cell.N != 2 || *cell.Acceptable() != 0.5 {
		t.Fatalf("pooled cell n=%d acceptable=%v, want 2 and 0.5", cell.N, *cell.Acceptable())
	}
	sameModel := "annotator_id,item_id,kind,strategy,judgment,model\n" +
		"ann,1,Impl,zero-shot,totally_correct,gemma\n" +
		"ann,1,Impl,zero-shot,totally_wrong,gemma\n"
	if _, err := modelhuman.ReadExplanationRatings(strings.NewReader(sameModel)); err == nil || !strings.Contains(err.Error(), "model gemma") {
		t.Fatalf("the same model rated twice: err = %v, want a duplicate naming the model", err)
	}
	noModel := "annotator_id,item_id,kind,strategy,judgment\n" +
		"ann,1,Impl,zero-shot,totally_correct\n" +
		"ann,1,Impl,zero-shot,totally_wrong\n"
	if _, err := modelhuman.ReadExplanationRatings(strings.NewReader(noModel)); err == nil {
		t.Fatal("without a model column a repeated rating must still be refused")
	}
}
