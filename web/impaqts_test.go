package web

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"os"
	"pragmalab/domain"
	"strings"
	"testing"

	"pragmalab/analysis/contextsurvey"
	"pragmalab/analysis/modelhuman"
	"pragmalab/itemfiles"
	"pragmalab/store"
)

func readPassageSample(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile("../itemfiles/testdata/impaqts-pid-sample.tsv")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// samplePassages are the IMPAQTS-PID sample's passages.
func samplePassages(t *testing.T) []domain.Passage {
	t.Helper()
	ps, err := itemfiles.ParsePassagesTSV(bytes.NewReader(readPassageSample(t)))
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// newImpaqtsStudy creates a study of the kind through the admin pages, with
// a fixed seed, and returns it and its admin path.
func newImpaqtsStudy(t *testing.T, e *testEnv, admin *client, kind string) (*domain.Study, string) {
	t.Helper()
	ctx := context.Background()
	resp := admin.post("/admin/studies", url.Values{"name": {"IMPAQTS " + kind}, "kind": {kind}, "lang": {"it"}}).mustStatus(t, http.StatusSeeOther)
	path := resp.location()
	var id int64
	fmt.Sscanf(path, "/admin/studies/%d", &id)
	s, err := e.db.Study(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	s.Seed = 1
	if err := e.db.UpdateStudy(ctx, s); err != nil {
		t.Fatal(err)
	}
	return s, path
}

func mustPassages(t *testing.T, e *testEnv, studyID int64, want int) {
	t.Helper()
	ps, err := e.db.ListPassages(context.Background(), studyID)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != want {
		t.Fatalf("%d passages stored, want %d", len(ps), want)
	}
}

func TestPassageUploadAllOrNothing(t *testing.T) {
	e := newTestEnv(t)
	admin := e.adminClient()
	s, path := newImpaqtsStudy(t, e, admin, domain.KindContext)
	sample := string(readPassageSample(t))
	header, rest, _ := strings.Cut(sample, "\n")
	bad := []struct{ name, data, msg string }{
		{"unterminated quote", sample + "99999\tAMOR77-A1.xmi\tImpl_cvrs\tImpl\t-1\t\"Mai chiusa.\tA. x\tA\tA. x\n", "row 131 (line 522), field &#34;text&#34;: the quote opened on line 522 is never closed"},
		{"missing column", strings.Replace(header, "\ttext", "", 1) + "\n" + rest, "field &#34;text&#34;: missing column"},
		{"empty text", sample + "99999\tAMOR77-A1.xmi\tImpl_cvrs\tImpl\t-1\t\t\"A. x\"\tA\t\"A. a\nB. b\nC. c\nD. d\"\n", "row 131 (line 522), field &#34;text&#34;: is empty"},
	}
	for _, b := range bad {
		admin.upload(path+"/items", "file", "bad.tsv", []byte(b.data)).mustStatus(t, http.StatusBadRequest).
			mustContain(t, "Nothing was imported from bad.tsv", b.msg)
		mustPassages(t, e, s.ID, 0)
	}
	admin.upload(path+"/items", "file", "impaqts.tsv", []byte(sample)).mustStatus(t, http.StatusSeeOther)
	admin.get(path).mustStatus(t, http.StatusOK).mustContain(t, "Imported 130 passages from impaqts.tsv", "Impl 1946–1972")
	mustPassages(t, e, s.ID, 130)
	// The same file again clashes on every id: still 130.
	admin.upload(path+"/items", "file", "impaqts.tsv", []byte(sample)).mustStatus(t, http.StatusConflict).
		mustContain(t, "already has passage")
	mustPassages(t, e, s.ID, 130)
}

// contextSetup imports the sample, builds the surveys and invites one
// expert to the survey holding passage 14739 (six sentences: five can be
// revealed). It returns the expert's token, assignment and questions.
func contextSetup(t *testing.T, e *testEnv, admin *client) (string, int64, []domain.ContextQuestion, *domain.Study, string) {
	t.Helper()
	ctx := context.Background()
	s, path := newImpaqtsStudy(t, e, admin, domain.KindContext)
	admin.upload(path+"/items", "file", "impaqts.tsv", readPassageSample(t)).mustStatus(t, http.StatusSeeOther)
	admin.post(path+"/surveys", url.Values{"surveys": {"3"}, "per_survey": {"42"}, "experts_per_survey": {"3"}, "max_sentences": {"5"}}).
		mustStatus(t, http.StatusSeeOther)
	admin.get(path).mustStatus(t, http.StatusOK).
		mustContain(t, "balanced as far as the data allows", `data-testid="shortfall"`,
			"Impl 1946–1972: a balanced design wants 21, the data has 1")
	surveys, err := e.db.ContextSurveys(ctx, s.ID)
	if err != nil || len(surveys) != 3 {
		t.Fatalf("surveys %+v, %v", surveys, err)
	}
	var target int64
	for _, sv := range surveys {
		if sv.Size != 42 {
			t.Errorf("survey %d has %d passages", sv.Number, sv.Size)
		}
	}
	// Find the survey with 14739 through a throw-away expert's view of each.
	tmp, _ := e.db.CreateAnnotator(ctx, s.ID, "probe")
	for _, sv := range surveys {
		aid, _ := e.db.AssignContextSurvey(ctx, s.ID, tmp.ID, sv.ID)
		qs, _ := e.db.ContextQuestions(ctx, aid)
		for _, q := range qs {
			if q.Passage.Key == "14739" {
				target = sv.ID
			}
		}
	}
	if target == 0 {
		t.Fatal("passage 14739 is in no survey with seed 1")
	}
	admin.post(path+"/context/experts", url.Values{"name": {"Giulia"}, "survey": {fmt.Sprint(target)}}).mustStatus(t, http.StatusSeeOther)
	as, _ := e.db.Annotators(ctx, s.ID)
	var giulia domain.Annotator
	for _, a := range as {
		if a.Name == "Giulia" {
			giulia = a
		}
	}
	asg, err := e.db.AnnotatorContextAssignments(ctx, giulia.ID)
	if err != nil || len(asg) != 1 {
		t.Fatalf("assignments %+v, %v", asg, err)
	}
	qs, _ := e.db.ContextQuestions(ctx, asg[0].ID)
	admin.openStudy(t, path)
	return giulia.Token, asg[0].ID, qs, s, path
}

func TestContextSurveyWalk(t *testing.T) {
	e := newTestEnv(t)
	admin := e.adminClient()
	token, aid, qs, s, path := contextSetup(t, e, admin)
	ctx := context.Background()
	expert := e.newClient()
	base := fmt.Sprintf("/c/%s/s/%d", token, aid)

	expert.get("/c/"+token).mustStatus(t, http.StatusOK).mustContain(t, "Quanto contesto serve?", "Questionario", "0 risposte su 42")
	if loc := expert.get(base).mustStatus(t, http.StatusSeeOther).location(); loc != base+"/1" {
		t.Fatalf("resume goes to %s", loc)
	}
	// Question 1: more, more, then sufficient: stored as 2 / yes.
	q1 := qs[0]
	p := expert.get(base+"/1").mustStatus(t, http.StatusOK).
		mustContain(t, "<em>“"+html.EscapeString(q1.Passage.Target())+"”</em>", html.EscapeString(q1.Passage.Explanation),
			"Il contesto è sufficiente per ricavare il contenuto implicito", "Serve più contesto", `data-shown="0"`)
	if strings.Contains(p.Body, `data-testid="revealed"`) {
		t.Fatal("a sentence is revealed before any request for more context")
	}
	sents := q1.Passage.Sentences
	for seen := 0; seen < 2; seen++ {
		if loc := expert.post(base+"/1", url.Values{"action": {"more"}, "seen": {fmt.Sprint(seen)}}).mustStatus(t, http.StatusSeeOther).location(); loc != base+"/1" {
			t.Fatalf("more context went to %s", loc)
		}
		expert.get(base+"/1").mustStatus(t, http.StatusOK).
			mustContain(t, fmt.Sprintf(`data-shown="%d"`, seen+1), `<mark class="revealed" data-testid="revealed">`+html.EscapeString(sents[len(sents)-2-seen])+"</mark>")
	}
	// A double click on "more" sends seen=1 again: ignored.
	expert.post(base+"/1", url.Values{"action": {"more"}, "seen": {"1"}}).mustStatus(t, http.StatusSeeOther)
	if loc := expert.post(base+"/1", url.Values{"action": {"sufficient"}, "seen": {"2"}}).mustStatus(t, http.StatusSeeOther).location(); loc != base+"/2" {
		t.Fatalf("sufficient went to %s", loc)
	}

	// The question with 14739: expand to the end, five sentences, then final no.
	pos := 0
	for _, q := range qs {
		if q.Passage.Key == "14739" {
			pos = q.Position
		}
	}
	if pos == 1 {
		t.Fatal("14739 is question 1; the walk needs it elsewhere")
	}
	qpath := fmt.Sprintf("%s/%d", base, pos)
	for seen := 0; seen < 5; seen++ {
		expert.post(qpath, url.Values{"action": {"more"}, "seen": {fmt.Sprint(seen)}}).mustStatus(t, http.StatusSeeOther)
	}
	// With every preceding sentence shown, the last choice says what it
	// records — not "more context" as if there were more.
	atLimit := expert.get(qpath).mustStatus(t, http.StatusOK).mustContain(t, `data-shown="5"`, "(5/5)",
		"Non sufficiente, nemmeno con tutto il contesto disponibile (risposta definitiva)", `data-testid="insufficient"`)
	if strings.Contains(atLimit.Body, "Serve più contesto") || strings.Contains(atLimit.Body, "autofocus") {
		t.Fatalf("at the limit the page offers more context or focuses an answer:\n%s", atLimit.Body)
	}
	next := fmt.Sprintf("%s/%d", base, pos+1)
	if pos == len(qs) {
		next = base + "/2"
	}
	if loc := expert.post(qpath, url.Values{"action": {"more"}, "seen": {"5"}}).mustStatus(t, http.StatusSeeOther).location(); loc != next {
		t.Fatalf("final more went to %s, want %s", loc, next)
	}
	expert.get(qpath).mustStatus(t, http.StatusOK).mustContain(t, `data-testid="final"`, "non è sufficiente nemmeno con 5 frasi precedenti")

	// Back from question 2 leads to question 1, whose answer shows.
	expert.get(base+"/2").mustStatus(t, http.StatusOK).mustContain(t, `href="`+base+`/1"`)
	expert.get(base+"/1").mustStatus(t, http.StatusOK).mustContain(t, "il contesto è sufficiente con 2 frasi precedenti")
	// Resume: the first question still open is 2.
	if loc := expert.get(base).mustStatus(t, http.StatusSeeOther).location(); loc != base+"/2" {
		t.Fatalf("resume goes to %s", loc)
	}

	// Someone else's token cannot open the survey; the token is not a rater's.
	other, _ := e.db.CreateAnnotator(ctx, s.ID, "Marco")
	expert.get(fmt.Sprintf("/c/%s/s/%d/1", other.Token, aid)).mustStatus(t, http.StatusNotFound)
	expert.get("/x/"+token).mustStatus(t, http.StatusNotFound)

	// The export holds the two final answers.
	resp := admin.get(path+"/export/context_answers.csv").mustStatus(t, http.StatusOK)
	recs, err := csv.NewReader(strings.NewReader(resp.Body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range recs[1:] {
		got[r[2]] = strings.Join([]string{r[0], r[5], r[6]}, " ")
	}
	if strings.Join(recs[0], ",") != "annotator_id,survey_id,item_id,kind,period,sentences,sufficient,max_sentences,shown_at,answered_at,rt_ms,untrusted_events,pastes,webdriver,pointer_or_key,honeypot" || len(recs) != 3 ||
		got[q1.Passage.Key] != "Giulia 2 yes" || got["14739"] != "Giulia 5 no" {
		t.Errorf("export = %q", recs)
	}
	if _, err := contextsurvey.ReadContextAnswers(strings.NewReader(resp.Body)); err != nil {
		t.Errorf("analyze context cannot read the export: %v", err)
	}
}

func TestExplainStudyWalk(t *testing.T) {
	e := newTestEnv(t)
	admin := e.adminClient()
	ctx := context.Background()
	s, path := newImpaqtsStudy(t, e, admin, domain.KindExplain)
	admin.upload(path+"/items", "file", "impaqts.tsv", readPassageSample(t)).mustStatus(t, http.StatusSeeOther)
	ps, _ := e.db.ListPassages(ctx, s.ID)
	var b strings.Builder
	b.WriteString("item_id,strategy,model,output\n")
	for _, strat := range []string{"zero-shot", "few-shot", "cot"} {
		for _, p := range ps[:50] {
			fmt.Fprintf(&b, "%s,%s,gemma,\"Spiegazione %s di %s, \"\"tra virgolette\"\"\"\n", p.Key, strat, strat, p.Key)
		}
	}
	admin.upload(path+"/outputs", "file", "bad.csv", []byte(b.String()+"nope,cot,gemma,x\n")).mustStatus(t, http.StatusBadRequest).
		mustContain(t, "Nothing was imported from bad.csv", "row 151, field &#34;item_id&#34;: no passage &#34;nope&#34;")
	admin.get(path).mustContain(t, "0 outputs")
	admin.upload(path+"/outputs", "file", "outputs.csv", []byte(b.String())).mustStatus(t, http.StatusSeeOther)
	admin.get(path).mustContain(t, "Imported 150 model outputs", "150 outputs, 150 still to assign")
	for _, name := range []string{"Anna", "Bruno", "Carla", "Dario"} {
		admin.post(path+"/explain/experts", url.Values{"name": {name}}).mustStatus(t, http.StatusSeeOther)
	}
	admin.get(path).mustContain(t, "150 outputs, 0 still to assign", "0 / 45", "0 / 15")
	admin.openStudy(t, path)
	as, _ := e.db.Annotators(ctx, s.ID)
	anna := as[0]
	rater := e.newClient()
	base := "/x/" + anna.Token
	rater.get(base).mustStatus(t, http.StatusOK).mustContain(t, "Valutazione delle spiegazioni", `href="`+base+`/1"`)
	screens, _ := e.db.ExplainScreens(ctx, anna.ID)
	p1 := rater.get(base+"/1").mustStatus(t, http.StatusOK).
		mustContain(t, "Testo", "Annotazione umana", "Output", html.EscapeString(screens[0].Passage.Explanation),
			html.EscapeString(screens[0].Output), `<legend>Quanto è corretto l&#39;Output?</legend>`, "Totalmente corretta", "Risposta non data")
	if strings.Contains(p1.Body, `data-testid="back"`) {
		t.Error("the first screen has a Back button")
	}
	// No answer: the screen comes back asking for one; nothing is stored.
	rater.post(base+"/1", url.Values{}).mustStatus(t, http.StatusUnprocessableEntity).mustContain(t, "Scegli una delle cinque risposte")
	if loc := rater.post(base+"/1", url.Values{"judgment": {"3"}}).mustStatus(t, http.StatusSeeOther).location(); loc != base+"/2" {
		t.Fatalf("answer went to %s", loc)
	}
	rater.get(base+"/2").mustStatus(t, http.StatusOK).mustContain(t, `href="`+base+`/1"`)
	rater.get(base+"/1").mustStatus(t, http.StatusOK).mustContain(t, `value="3" required checked`)
	rater.post(base+"/1", url.Values{"judgment": {"1"}}).mustStatus(t, http.StatusSeeOther) // changed after Back
	resp := admin.get(path+"/export/explanation_ratings.csv").mustStatus(t, http.StatusOK)
	recs, _ := csv.NewReader(strings.NewReader(resp.Body)).ReadAll()
	want := "annotator_id,item_id,kind,strategy,judgment,model,shown_at,answered_at,rt_ms,untrusted_events,pastes,webdriver,pointer_or_key,honeypot|Anna," + screens[0].Passage.Key + "," + screens[0].Passage.Kind + "," + screens[0].Strategy + ",totally_correct," + screens[0].Model
	if len(recs) != 2 || strings.Join(recs[0], ",")+"|"+strings.Join(recs[1][:6], ",") != want || recs[1][6] == "" || recs[1][7] == "" {
		t.Errorf("export =\n%s\nwant\n%s + the screen's shown_at and answered_at", resp.Body, want)
	}
	if _, err := modelhuman.ReadExplanationRatings(strings.NewReader(resp.Body)); err != nil {
		t.Errorf("analyze explanations cannot read the export: %v", err)
	}
	if loc := rater.get(base+"/done").mustStatus(t, http.StatusSeeOther).location(); loc != base+"/2" {
		t.Errorf("done with screens open went to %s", loc)
	}
}

// TestContextPilot: the pilot link of a paused context survey walks the
// real survey; its answers stay out of the context answers unless
// ?pilot=include.
func TestContextPilot(t *testing.T) {
	e := newTestEnv(t)
	admin := e.adminClient()
	_, _, _, s, path := contextSetup(t, e, admin)
	ctx := context.Background()
	admin.post(path+"/state", url.Values{"state": {"paused"}}).mustStatus(t, http.StatusSeeOther)
	admin.post(path+"/pilot", url.Values{"action": {"new"}}).mustStatus(t, http.StatusSeeOther)
	tok, _ := e.db.PilotLink(ctx, s.ID)
	c := e.newClient()
	loc := c.get("/p/"+tok).mustStatus(t, http.StatusSeeOther).location()
	loc = c.get(loc).mustStatus(t, http.StatusSeeOther).location() // /e/… → /c/…
	if !strings.HasPrefix(loc, "/c/") {
		t.Fatalf("pilot expert sent to %s", loc)
	}
	c.get(loc).mustStatus(t, http.StatusOK)
	a, _ := e.db.AnnotatorByToken(ctx, strings.TrimPrefix(loc, "/c/"))
	asg, _ := e.db.AnnotatorContextAssignments(ctx, a.ID)
	base := fmt.Sprintf("%s/s/%d", loc, asg[0].ID)
	c.get(base+"/1").mustStatus(t, http.StatusOK)
	c.post(base+"/1", url.Values{"action": {"sufficient"}, "seen": {"0"}}).mustStatus(t, http.StatusSeeOther)
	if rows, _ := e.db.ContextAnswerRows(ctx, s.ID); len(rows) != 0 {
		t.Fatalf("pilot answers in the rows: %+v", rows)
	}
	if rows, _ := e.db.ContextAnswerRows(store.IncludePilot(ctx), s.ID); len(rows) != 1 || rows[0].Annotator != a.Name {
		t.Fatalf("with the pilot: %+v", rows)
	}
}
