package web

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"pragmalab/store"
)

// answerExperts stores every screen's answer for both experts: Ada answers
// as answerFor, Ben says yes/yes throughout. It returns the expected
// plausibility and cancellation confusion matrices (Ada rows, Ben columns)
// over the data items, checks left out as the export leaves them out.
func answerExperts(t *testing.T, e *testEnv, experts []store.Annotator) (plaus, canc [2][2]int) {
	t.Helper()
	ctx := context.Background()
	for k, ex := range experts {
		as, err := e.db.AnnotatorAssignments(ctx, ex.ID)
		if err != nil || len(as) != 1 {
			t.Fatalf("assignments of %s: %v %v", ex.Name, as, err)
		}
		for pos, sc := range mustScreens(t, e, as[0].ID) {
			j := store.Judgement{Plausible: "yes", CancellationCorrect: "yes"}
			if k == 0 {
				v := answerFor(sc.Item)
				j = store.Judgement{Plausible: v.Get("plausible"), CancellationCorrect: v.Get("cancellation_correct"),
					AltImplicature: v.Get("alt_implicature"), AltCancellation: v.Get("alt_cancellation")}
				if sc.Item.Check == "" {
					row := 0
					if j.Plausible == "no" {
						row = 1
					}
					plaus[row][0]++
					if row == 0 {
						col := 0
						if j.CancellationCorrect == "no" {
							col = 1
						}
						canc[col][0]++
					}
				}
			}
			if err := e.db.SaveJudgement(ctx, ex.ID, as[0].ID, pos+1, j); err != nil {
				t.Fatalf("save %s %d: %v", ex.Name, pos+1, err)
			}
		}
	}
	return plaus, canc
}

// rowText returns the text of the table row with the given data-testid.
func rowText(t *testing.T, body, testid string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)<tr data-testid="` + regexp.QuoteMeta(testid) + `">(.*?)</tr>`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no row %s in\n%s", testid, short(body))
	}
	return strings.Join(strings.Fields(regexp.MustCompile(`<[^>]+>`).ReplaceAllString(m[1], " ")), " ")
}

func TestExpertAnalysisPage(t *testing.T) {
	e := newTestEnv(t)
	admin := e.adminClient()
	s, experts := expertStudy(t, e, admin)
	base := fmt.Sprintf("/admin/studies/%d/analysis", s.ID)

	admin.get(fmt.Sprintf("/admin/studies/%d", s.ID)).mustStatus(t, 200).mustContain(t, `data-testid="nav-analysis"`, `href="`+base+`"`)
	admin.get(base).mustStatus(t, 200).mustContain(t, `data-testid="analysis-empty"`)

	plaus, canc := answerExperts(t, e, experts)
	if plaus[1][0] == 0 || canc[1][0] == 0 {
		t.Fatalf("the fixture should hold disagreements: %v %v", plaus, canc)
	}
	p := admin.get(base).mustStatus(t, 200).mustContain(t, `data-testid="table-agreement"`, `data-testid="result-json"`, "Ada, Ben")
	items := plaus[0][0] + plaus[1][0]
	if got := rowText(t, p.Body, "agreement-row-0"); !strings.HasPrefix(got, fmt.Sprintf("Plausibility Ada, Ben %d ", items)) ||
		!strings.Contains(got, fmt.Sprintf("[[%d,0],[%d,0]]", plaus[0][0], plaus[1][0])) {
		t.Errorf("plausibility row: %s", got)
	}
	// Ben always says yes: Cohen's κ is 0, raw agreement the share of Ada's yes.
	if got := rowText(t, p.Body, "agreement-row-0"); !strings.Contains(got, fmt.Sprintf(" %.2f 0.00 ", float64(plaus[0][0])/float64(items))) {
		t.Errorf("plausibility row raw/κ: %s", got)
	}
	conf := regexp.MustCompile(`(?s)<table class="confusion" data-testid="confusion-plausibility-Ada-Ben">.*?</table>`).FindString(p.Body)
	if conf == "" || !strings.Contains(conf, fmt.Sprintf("<td>%d</td><td>0</td>", plaus[0][0])) || !strings.Contains(conf, fmt.Sprintf("<td>%d</td><td>0</td>", plaus[1][0])) {
		t.Errorf("confusion matrix: %s", conf)
	}
	if !strings.Contains(p.Body, `data-testid="confusion-cancellation-Ada-Ben"`) {
		t.Error("no cancellation confusion matrix")
	}

	// Downloads: the table as CSV and JSON, the whole result as the CLI's JSON.
	dl := admin.get(base+"/agreement.csv").mustStatus(t, 200)
	if ct := dl.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") || !strings.Contains(dl.Header.Get("Content-Disposition"), "attachment") {
		t.Errorf("CSV headers %q %q", ct, dl.Header.Get("Content-Disposition"))
	}
	recs, err := csv.NewReader(strings.NewReader(dl.Body)).ReadAll()
	if err != nil || len(recs) != 3 || recs[0][0] != "Question" || recs[1][2] != fmt.Sprint(items) {
		t.Errorf("agreement.csv (%v):\n%s", err, dl.Body)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(admin.get(base+"/agreement.json").mustStatus(t, 200).Body), &rows); err != nil || len(rows) != 2 || rows[0]["Items"] != float64(items) {
		t.Errorf("agreement.json: %v %v", err, rows)
	}
	var res struct {
		Plausibility struct {
			Items     int       `json:"items"`
			Kappa     *float64  `json:"kappa"`
			Confusion [2][2]int `json:"confusion"`
		} `json:"plausibility"`
		Cancellation struct {
			Confusion [2][2]int `json:"confusion"`
		} `json:"cancellation"`
		Pairs []any `json:"pairs"`
	}
	if err := json.Unmarshal([]byte(admin.get(base+"/result.json").mustStatus(t, 200).Body), &res); err != nil {
		t.Fatal(err)
	}
	if res.Plausibility.Items != items || res.Plausibility.Confusion != plaus || res.Cancellation.Confusion != canc || len(res.Pairs) != 1 {
		t.Errorf("result.json = %+v, want plausibility %v cancellation %v", res, plaus, canc)
	}
	admin.get(base+"/nonsense.csv").mustStatus(t, http.StatusNotFound)
	admin.get(base+"/agreement.xlsx").mustStatus(t, http.StatusNotFound)
	admin.get(base+"/plots/histogram_all.svg").mustStatus(t, http.StatusNotFound)

	// Admin only.
	if got := e.newClient().get(base + "/result.json"); got.StatusCode == 200 {
		t.Errorf("anonymous download: status %d", got.StatusCode)
	}
}
