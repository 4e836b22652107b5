package web

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"pragmalab/domain"
	"regexp"
	"strings"
	"testing"

	"pragmalab/store"
)

// answerExperts stores every screen's answer for both experts: Ada answers
// as answerFor, Ben says yes/yes throughout. It returns the expected
// plausibility and cancellation confusion matrices (Ada rows, Ben columns)
// over the data items, checks left out as the export leaves them out.
func answerExperts(t *testing.T, e *testEnv, experts []domain.Annotator) (plaus, canc [2][2]int) {
	t.Helper()
	ctx := context.Background()
	for k, ex := range experts {
		as, err := e.db.AnnotatorAssignments(ctx, ex.ID)
		if err != nil || len(as) != 1 {
			t.Fatalf("assignments of %s: %v %v", ex.Name, as, err)
		}
		for pos, sc := range mustScreens(t, e, as[0].ID) {
			j := domain.Judgement{Plausible: "yes", CancellationCorrect: "yes"}
			if k == 0 {
				v := answerFor(sc.Item)
				j = domain.Judgement{Plausible: v.Get("plausible"), CancellationCorrect: v.Get("cancellation_correct"),
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
	// Ben always says yes: Cohen's κ is 0 by construction, shown as n/a (no
	// variation); raw agreement the share of Ada's yes.
	if got := rowText(t, p.Body, "agreement-row-0"); !strings.Contains(got, fmt.Sprintf(" %.2f n/a (no variation) ", float64(plaus[0][0])/float64(items))) {
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

// csvLines downloads a table as CSV and returns its lines.
func csvLines(t *testing.T, c *client, path string) []string {
	t.Helper()
	p := c.get(path).mustStatus(t, http.StatusOK)
	if !strings.HasPrefix(p.Header.Get("Content-Type"), "text/csv") {
		t.Fatalf("%s: content type %q", path, p.Header.Get("Content-Type"))
	}
	return strings.Split(strings.TrimSpace(p.Body), "\n")
}

// TestCrowdAnalysisPage runs four Prolific participants through a crowd
// study in the store and checks the toplines page computed from the
// study's ratings export: exclusion by checks, the researcher's override,
// a constant rater, the toplines and the figures.
func TestCrowdAnalysisPage(t *testing.T) {
	e := newTestEnv(t)
	admin := e.adminClient()
	ctx := context.Background()
	st := &domain.Study{Kind: domain.KindCrowd, Name: "Crowd", Lang: "en"}
	if err := e.db.CreateStudy(ctx, st); err != nil {
		t.Fatal(err)
	}
	base := fmt.Sprintf("/admin/studies/%d/analysis", st.ID)
	types := []string{"scalar", "discourse", "synthetic", "natural"}
	var items []domain.Item
	for i, typ := range types {
		items = append(items, domain.Item{Key: fmt.Sprintf("%c1", 'A'+i), Type: typ, Utterance: "u", Implicature: "b", Cancellation: "x"})
	}
	items = append(items,
		domain.Item{Key: "T1", Type: "scalar", Utterance: "u", Implicature: "b", Cancellation: "x"},
		domain.Item{Key: "T2", Type: "scalar", Utterance: "u", Implicature: "b", Cancellation: "x"},
		domain.Item{Key: "chk-high", Type: "synthetic", Utterance: "u", Implicature: "b", Cancellation: "x", Check: "high"},
		domain.Item{Key: "chk-low", Type: "synthetic", Utterance: "u", Implicature: "b", Cancellation: "x", Check: "low"})
	if err := e.db.ImportItems(ctx, st.ID, items); err != nil {
		t.Fatal(err)
	}
	stored, _ := e.db.ListItems(ctx, st.ID)
	id := map[string]int64{}
	for _, it := range stored {
		id[it.Key] = it.ID
	}
	// Two batches, each item in the other condition in the other batch.
	var batches [][]store.CrowdSlot
	for b := range 2 {
		var slots []store.CrowdSlot
		for i := range types {
			slots = append(slots, store.CrowdSlot{ItemID: id[fmt.Sprintf("%c1", 'A'+i)], Condition: []string{"trigger", "cancel"}[(i+b)%2]})
		}
		slots = append(slots, store.CrowdSlot{ItemID: id["chk-low"], Condition: "trigger"}, store.CrowdSlot{ItemID: id["chk-high"], Condition: "trigger"})
		batches = append(batches, slots)
	}
	if err := e.db.SaveCrowdBatches(ctx, st.ID, 1, []store.CrowdSlot{{ItemID: id["T1"], Condition: "trigger"}, {ItemID: id["T2"], Condition: "cancel"}}, batches); err != nil {
		t.Fatal(err)
	}
	set := domain.DefaultCrowdSettings()
	set.CompletionCode, set.MaxFailedChecks = "DONE1", 2
	if err := e.db.SaveCrowdSettings(ctx, st.ID, set); err != nil {
		t.Fatal(err)
	}
	admin.get(base).mustStatus(t, http.StatusOK).mustContain(t, `data-testid="analysis-empty"`)

	// Each participant rates trigger screens `trig`, cancel screens `canc`,
	// and the checks low/high.
	type person struct {
		pid                string
		trig, canc, lo, hi int
	}
	people := []person{
		{"aaaaaaaaaaaaaaaaaaaaaaa1", 7, 2, 1, 7}, // careful
		{"aaaaaaaaaaaaaaaaaaaaaaa2", 6, 1, 2, 6}, // careful
		{"aaaaaaaaaaaaaaaaaaaaaaa3", 1, 7, 7, 1}, // fails both checks: excluded
		{"aaaaaaaaaaaaaaaaaaaaaaa4", 4, 4, 2, 6}, // constant: no z-scores
	}
	pids := map[string]int64{}
	for i, pp := range people {
		p, err := e.db.EnterCrowd(ctx, st.ID, store.CrowdArrival{PID: pp.pid, StudyID: "st", SessionID: fmt.Sprint("se", i)}, set)
		if err != nil {
			t.Fatal(err)
		}
		// The session (and its id) is made at consent.
		if p, err = e.db.ConsentCrowd(ctx, st.ID, p.Token, set); err != nil {
			t.Fatal(err)
		}
		pids[pp.pid] = p.ID
		for pos, rating := range []int{6, 2} {
			if _, err := e.db.AnswerCrowdTraining(ctx, st.ID, p.Token, pos+1, 0, rating, 0, set); err != nil {
				t.Fatal(err)
			}
		}
		screens, err := e.db.CrowdBatchScreens(ctx, p.BatchID)
		if err != nil {
			t.Fatal(err)
		}
		for _, sc := range screens {
			r := pp.trig
			switch {
			case sc.Item.Check == "low":
				r = pp.lo
			case sc.Item.Check == "high":
				r = pp.hi
			case sc.Condition == "cancel":
				r = pp.canc
			}
			if _, err := e.db.SaveCrowdRating(ctx, st.ID, p.Token, sc.Position, r, 0, set); err != nil {
				t.Fatal(err)
			}
		}
	}
	p := admin.get(base).mustStatus(t, http.StatusOK).mustContain(t,
		`data-testid="table-toplines"`, `data-testid="excluded-aaaaaaaaaaaaaaaaaaaaaaa3"`, "failed 2 of 2 attention checks",
		`data-testid="excluded-aaaaaaaaaaaaaaaaaaaaaaa4"`, "all 4 ratings equal", "4 participants in the export, 1 excluded, 1 with constant ratings, 2 analysed",
		"--max-failed 2", `data-testid="figure-scatter_all"`, `data-testid="figure-histogram_natural"`)
	// Every item: mean z(trigger) > 0 and lower with cancellation.
	if got := rowText(t, p.Body, "toplines-row-0"); got != "Items 1 1 1 1 4" {
		t.Errorf("items row: %s", got)
	}
	for row, label := range map[int]string{1: "Implicature recognition", 2: "Cancellation recognition", 3: "Belief update"} {
		if got := rowText(t, p.Body, fmt.Sprintf("toplines-row-%d", row)); got != label+" 1.00 1.00 1.00 1.00 1.00" {
			t.Errorf("row %d: %s", row, got)
		}
	}
	svg := admin.get(base+"/plots/scatter_all.svg").mustStatus(t, http.StatusOK)
	if svg.Header.Get("Content-Type") != "image/svg+xml" || !strings.Contains(svg.Body, "<svg") || !strings.Contains(svg.Body, "n = 4") {
		t.Errorf("scatter SVG: %s %.200s", svg.Header.Get("Content-Type"), svg.Body)
	}
	if png := admin.get(base+"/plots/histogram_all.png").mustStatus(t, http.StatusOK); !strings.HasPrefix(png.Body, "\x89PNG") {
		t.Error("histogram PNG is not a PNG")
	}
	admin.get(base+"/plots/nonsense.svg").mustStatus(t, http.StatusNotFound)
	parts := csvLines(t, admin, base+"/participants.csv")
	if len(parts) != 5 || parts[3] != "aaaaaaaaaaaaaaaaaaaaaaa3,4,2,2,excluded" {
		t.Errorf("participants.csv: %q", parts)
	}

	// The researcher keeps participant 3 in: the page follows the override.
	if err := e.db.SetCrowdExclusion(ctx, st.ID, pids["aaaaaaaaaaaaaaaaaaaaaaa3"], "include"); err != nil {
		t.Fatal(err)
	}
	p = admin.get(base).mustStatus(t, http.StatusOK).mustContain(t, "0 excluded", "--include aaaaaaaaaaaaaaaaaaaaaaa3")
	if strings.Contains(p.Body, `data-testid="excluded-aaaaaaaaaaaaaaaaaaaaaaa3"`) {
		t.Error("overridden participant still listed as left out")
	}
	var res struct {
		Participants struct {
			Excluded []string `json:"excluded"`
		} `json:"participants"`
		ByType map[string]map[string]any `json:"by_type"`
	}
	if err := json.Unmarshal([]byte(admin.get(base+"/result.json").mustStatus(t, http.StatusOK).Body), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Participants.Excluded) != 0 || res.ByType["all"]["items"] != 4.0 {
		t.Errorf("result.json = %+v", res)
	}
}

// TestContextAnalysisPage has three experts answer one 42-passage survey:
// all find 30 passages clear from the target alone; on 12 two of them need
// one more sentence.
func TestContextAnalysisPage(t *testing.T) {
	e := newTestEnv(t)
	admin := e.adminClient()
	ctx := context.Background()
	_, aid, qs, s, _ := contextSetup(t, e, admin)
	base := fmt.Sprintf("/admin/studies/%d/analysis", s.ID)
	admin.get(base).mustStatus(t, http.StatusOK).mustContain(t, `data-testid="analysis-empty"`)
	as, err := e.db.ContextAssignments(ctx, s.ID)
	var surveyID, giuliaID int64
	for _, a := range as {
		if a.ID == aid {
			surveyID, giuliaID = a.SurveyID, a.AnnotatorID
		}
	}
	if err != nil || surveyID == 0 {
		t.Fatalf("assignment %d not found in %+v", aid, as)
	}
	type rater struct{ annotator, assignment int64 }
	raters := []rater{{giuliaID, aid}}
	for _, name := range []string{"Marco", "Luca"} {
		a, err := e.db.CreateAnnotator(ctx, s.ID, name)
		if err != nil {
			t.Fatal(err)
		}
		asg, err := e.db.AssignContextSurvey(ctx, s.ID, a.ID, surveyID)
		if err != nil {
			t.Fatal(err)
		}
		raters = append(raters, rater{a.ID, asg})
	}
	for k, r := range raters {
		for _, q := range qs {
			if q.Position > 30 && k > 0 {
				if _, err := e.db.ContextAct(ctx, r.annotator, r.assignment, q.Position, 0, domain.ContextMore, 5, 0, domain.Integrity{}); err != nil {
					t.Fatal(err)
				}
				if _, err := e.db.ContextAct(ctx, r.annotator, r.assignment, q.Position, 1, domain.ContextSufficient, 5, 0, domain.Integrity{}); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if _, err := e.db.ContextAct(ctx, r.annotator, r.assignment, q.Position, 0, domain.ContextSufficient, 5, 0, domain.Integrity{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	p := admin.get(base).mustStatus(t, http.StatusOK).mustContain(t, "126 answers on 42 passages in 1 surveys", `data-testid="figure-context_cumulative"`)
	// Full consensus 30/42, majority 12/42.
	if got := rowText(t, p.Body, "context_agreement-row-0"); !strings.HasSuffix(got, " 42 126 "+rowKappa(t, p.Body)+" 42 0.71 0.29") {
		t.Errorf("agreement row: %s", got)
	}
	// Judgements ≤0: (90 + 12) / 126 = 0.81; items ≤0: 30/42.
	if got := rowText(t, p.Body, "context_cumulative-row-0"); !strings.HasSuffix(got, "judgements 0.81 1.00 1.00 1.00 1.00 1.00") {
		t.Errorf("cumulative judgements: %s", got)
	}
	if got := rowText(t, p.Body, "context_cumulative-row-1"); !strings.HasSuffix(got, "items (majority) 0.71 1.00 1.00 1.00 1.00 1.00") {
		t.Errorf("cumulative items: %s", got)
	}
	if lines := csvLines(t, admin, base+"/context_cumulative.csv"); len(lines) != 5 {
		t.Errorf("context_cumulative.csv: %q", lines)
	}
}

// rowKappa returns the printed Fleiss' κ of the first agreement row, which
// the test checks separately for its sign.
func rowKappa(t *testing.T, body string) string {
	f := strings.Fields(rowText(t, body, "context_agreement-row-0"))
	k := f[len(f)-4]
	// 30 items all in category 0, 12 split 1/2 between categories 0 and 1:
	// agreement beyond chance is positive.
	if !strings.HasPrefix(k, "0.") {
		t.Errorf("Fleiss' κ %s, want a positive value", k)
	}
	return k
}

func TestExplainAnalysisPage(t *testing.T) {
	e := newTestEnv(t)
	admin := e.adminClient()
	ctx := context.Background()
	s, path := newImpaqtsStudy(t, e, admin, domain.KindExplain)
	admin.upload(path+"/items", "file", "impaqts.tsv", readPassageSample(t)).mustStatus(t, http.StatusSeeOther)
	ps, _ := e.db.ListPassages(ctx, s.ID)
	var b strings.Builder
	b.WriteString("item_id,strategy,model,output\n")
	for _, strat := range []string{"zero-shot", "few-shot"} {
		for _, p := range ps[:10] {
			fmt.Fprintf(&b, "%s,%s,gemma,Spiegazione\n", p.Key, strat)
		}
	}
	admin.upload(path+"/outputs", "file", "outputs.csv", []byte(b.String())).mustStatus(t, http.StatusSeeOther)
	admin.post(path+"/explain/experts", url.Values{"name": {"Anna"}}).mustStatus(t, http.StatusSeeOther)
	base := fmt.Sprintf("/admin/studies/%d/analysis", s.ID)
	admin.get(base).mustStatus(t, http.StatusOK).mustContain(t, `data-testid="analysis-empty"`)
	as, _ := e.db.Annotators(ctx, s.ID)
	for pos := 1; pos <= 10; pos++ {
		j := []string{"totally_correct", "answer_not_given"}[pos%2]
		if err := e.db.SaveExplainRating(ctx, as[0].ID, pos, j, 0, domain.Integrity{}); err != nil {
			t.Fatal(err)
		}
	}
	admin.get(base).mustStatus(t, http.StatusOK).mustContain(t, `data-testid="table-explanations"`, "10 ratings of model explanations")
	lines := csvLines(t, admin, base+"/explanations.csv")
	if lines[0] != "Kind,Strategy,n,Totally correct,Correct among various options,Partially correct,Totally wrong,Answer not given,Acceptable" ||
		lines[len(lines)-1] != "all,all,10,0.5,0,0,0,0.5,0.5" {
		t.Errorf("explanations.csv: %q", lines)
	}
}
