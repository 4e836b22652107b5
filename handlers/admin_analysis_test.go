package handlers

import (
	"bytes"
	"context"
	"pragmalab/domain"
	"pragmalab/studies"
	"regexp"
	"strings"
	"testing"

	"pragmalab/analysis/contextsurvey"
	"pragmalab/analysis/modelhuman"
	"pragmalab/analysis/plan"
	"pragmalab/analysis/toplines"
	"pragmalab/templates"
)

// renderAnalysis renders the analysis page of a into HTML.
func renderAnalysis(t *testing.T, kind string, a *studies.Analysis) string {
	t.Helper()
	v, err := analysisView(templates.Nav{Admin: "r"}, &domain.Study{ID: 7, Kind: kind, Name: "S"}, a)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := templates.Analysis(v).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func mustContain(t *testing.T, body string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(body, s) {
			t.Errorf("page lacks %q", s)
		}
	}
}

func TestRatingsAnalysisPage(t *testing.T) {
	var csv bytes.Buffer
	if err := plan.WriteSyntheticRatings(&csv, 4000, 40, 3); err != nil {
		t.Fatal(err)
	}
	// A constant rater is appended: listed as left out, with the reason.
	csv.WriteString("Pconst,B1,item1,scalar,trigger,4,\nPconst,B1,item2,scalar,cancel,4,\n")
	opt := toplines.DefaultOptions()
	opt.Exclude = []string{"P100001"}
	rs, err := toplines.ReadRatings(&csv)
	if err != nil {
		t.Fatal(err)
	}
	a := studies.RatingsAnalysis(rs, opt)
	body := renderAnalysis(t, domain.KindCrowd, a)
	mustContain(t, body, `data-testid="table-toplines"`, `data-testid="table-item_means"`, `data-testid="table-participants"`,
		`data-testid="table-crowd_alpha"`, `data-testid="table-split_half"`, "α of the crowd ratings",
		`data-testid="excluded-P100001"`, "excluded by the researcher", `data-testid="excluded-Pconst"`, "all 2 ratings equal",
		`data-testid="figure-histogram_all"`, `src="/admin/studies/7/analysis/plots/scatter_natural.svg"`,
		`href="/admin/studies/7/analysis/toplines.csv"`, `href="/admin/studies/7/analysis/result.json"`,
		"41 participants in the export", "--max-failed 3")
	row := regexp.MustCompile(`(?s)<tr data-testid="toplines-row-0">(.*?)</tr>`).FindStringSubmatch(body)
	if row == nil || !strings.Contains(row[1], ">Items<") || !strings.Contains(row[1], ">271<") {
		t.Errorf("items row: %v", row)
	}
}

func TestContextAndExplanationsAnalysisPages(t *testing.T) {
	ctxCSV := "annotator_id,survey_id,item_id,kind,period,sentences,sufficient\n" +
		"e1,S1,i1,Impl,1946-1972,0,yes\ne2,S1,i1,Impl,1946-1972,0,yes\ne1,S1,i2,Ppp,1994-2023,5,no\ne2,S1,i2,Ppp,1994-2023,3,yes\n"
	as, err := contextsurvey.ReadContextAnswers(strings.NewReader(ctxCSV))
	if err != nil {
		t.Fatal(err)
	}
	a := studies.ContextAnalysis(as)
	body := renderAnalysis(t, domain.KindContext, a)
	mustContain(t, body, `data-testid="table-context_agreement"`, `data-testid="table-context_cumulative"`, `data-testid="figure-context_cumulative"`, "4 answers on 2 passages in 1 surveys")
	row := regexp.MustCompile(`(?s)<tr data-testid="context_cumulative-row-0">(.*?)</tr>`).FindStringSubmatch(body)
	if row == nil || !strings.Contains(row[1], "0.50") || !strings.Contains(row[1], "0.75") {
		t.Errorf("cumulative row: %v", row)
	}
	exCSV := "annotator_id,item_id,kind,strategy,judgment\ne1,i1,Impl,zero-shot,totally_correct\ne1,i2,Impl,zero-shot,totally_wrong\n"
	ers, err := modelhuman.ReadExplanationRatings(strings.NewReader(exCSV))
	if err != nil {
		t.Fatal(err)
	}
	body = renderAnalysis(t, domain.KindExplain, studies.ExplanationsAnalysis(ers))
	mustContain(t, body, `data-testid="table-explanations"`, "Acceptable", "zero-shot", `data-testid="figure-explanations_acceptable"`)

	// Rows the analysis refuses are shown as a problem, with the line.
	_, err = toplines.NewRatings([]toplines.RatingRow{{Participant: "p", Batch: "1", Item: "i", Type: "scalar", Condition: "trigger", Rating: 12}})
	if err == nil {
		t.Fatal("rating 12 accepted")
	}
	body = renderAnalysis(t, domain.KindCrowd, &studies.Analysis{Problem: err})
	mustContain(t, body, `data-testid="analysis-problem"`, "line 2")
	if strings.Contains(body, `data-testid="table-`) {
		t.Error("no table may be shown for an export that failed")
	}
}
