package studies

import (
	"bytes"
	"context"
	"encoding/csv"
	"pragmalab/domain"
	"pragmalab/itemfiles"
	"strings"
	"testing"

	"pragmalab/store"
)

func mustPassageStudy(t testing.TB, db *store.DB, kind string) *domain.Study {
	t.Helper()
	s := &domain.Study{Kind: kind, Name: "IMPAQTS " + kind, Lang: "it"}
	if err := db.CreateStudy(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	return s
}

func passageCount(t *testing.T, db *store.DB, studyID int64) int {
	t.Helper()
	ps, err := db.ListPassages(context.Background(), studyID)
	if err != nil {
		t.Fatal(err)
	}
	return len(ps)
}

func TestImportPassagesWholeSample(t *testing.T) {
	db := mustOpenDB(t)
	ctx := context.Background()
	s := mustPassageStudy(t, db, domain.KindContext)
	ps := mustParseSample(t)
	if err := db.ImportPassages(ctx, s.ID, ps); err != nil {
		t.Fatal(err)
	}
	got, err := db.ListPassages(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 130 {
		t.Fatalf("%d passages stored, want 130", len(got))
	}
	for i := range got {
		w := ps[i]
		g := got[i]
		if g.Key != w.Key || g.Text != w.Text || g.Target() != w.Target() || len(g.Sentences) != len(w.Sentences) ||
			g.Options != w.Options || g.Period != w.Period || g.Topic != w.Topic || g.Explanation != w.Explanation {
			t.Fatalf("passage %d stored as %+v\nwant %+v", i, g, w)
		}
	}
	counts, total, err := db.PassageCounts(ctx, s.ID)
	if err != nil || total != 130 || counts["Impl "+domain.Period1946] != 1 || counts["Ppp "+domain.Period1994] != 49 {
		t.Errorf("counts = %v, %d, %v", counts, total, err)
	}
	// The same file again: every key clashes and nothing more is stored.
	err = db.ImportPassages(ctx, s.ID, mustParseSample(t))
	if domain.ErrorCode(err) != domain.ECONFLICT || !strings.Contains(err.Error(), `row 1, field "IMPAQTS_id": the study already has passage "22185"`) {
		t.Errorf("re-import: %v", err)
	}
	if n := passageCount(t, db, s.ID); n != 130 {
		t.Errorf("%d passages after the rejected re-import", n)
	}
}

func TestImportPassagesRejectsBadFilesStoringNothing(t *testing.T) {
	db := mustOpenDB(t)
	ctx := context.Background()
	s := mustPassageStudy(t, db, domain.KindContext)
	sample := string(readSample(t))
	header, rest, _ := strings.Cut(sample, "\n")
	bad := map[string]string{
		"unterminated quote": sample + "99999\tAMOR77-A1.xmi\tImpl_cvrs\tImpl\t-1\t\"Mai chiusa.\tA. x\tA\tA. x\n",
		"missing column":     strings.Replace(header, "\ttext", "", 1) + "\n" + rest,
		"empty text":         sample + "99999\tAMOR77-A1.xmi\tImpl_cvrs\tImpl\t-1\t\t\"A. x\"\tA\t\"A. a\nB. b\nC. c\nD. d\"\n",
	}
	for name, in := range bad {
		t.Run(name, func(t *testing.T) {
			ps, err := itemfiles.ParsePassagesTSV(strings.NewReader(in))
			if err == nil {
				err = db.ImportPassages(ctx, s.ID, ps)
			}
			if err == nil {
				t.Fatal("accepted")
			}
			if n := passageCount(t, db, s.ID); n != 0 {
				t.Fatalf("%d passages stored from a bad file", n)
			}
		})
	}
	// A valid file whose last passage fails Validate at the store: nothing stored.
	ps := mustParseSample(t)
	ps[len(ps)-1].Kind = "Xyz"
	if err := db.ImportPassages(ctx, s.ID, ps); domain.ErrorCode(err) != domain.EINVALID || !strings.Contains(err.Error(), "row 130") {
		t.Errorf("err = %v", err)
	}
	if n := passageCount(t, db, s.ID); n != 0 {
		t.Fatalf("%d passages stored", n)
	}
	exp := mustPassageStudy(t, db, domain.KindExpert)
	if err := db.ImportPassages(ctx, exp.ID, mustParseSample(t)); domain.ErrorCode(err) != domain.EINVALID {
		t.Errorf("passages into an expert study: %v", err)
	}
}

// contextFixture makes a context study with the sample, one survey of the
// given keys and one expert assigned to it.
func contextFixture(t *testing.T, keys ...string) (*store.DB, *domain.Study, *domain.Annotator, int64) {
	t.Helper()
	db := mustOpenDB(t)
	ctx := context.Background()
	s := mustPassageStudy(t, db, domain.KindContext)
	if err := db.ImportPassages(ctx, s.ID, mustParseSample(t)); err != nil {
		t.Fatal(err)
	}
	if err := db.SaveContextSurveys(ctx, s.ID, [][]string{keys}); err != nil {
		t.Fatal(err)
	}
	a, err := db.CreateAnnotator(ctx, s.ID, "Giulia")
	if err != nil {
		t.Fatal(err)
	}
	asg, err := db.AssignContextSurvey(ctx, s.ID, a.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	return db, s, a, asg
}

func TestContextActExpandAndAnswer(t *testing.T) {
	// 14739 has six sentences (five before the target), 22185 five.
	db, s, a, asg := contextFixture(t, "14739", "22185")
	ctx := context.Background()
	act := func(pos, seen int, action string) domain.ContextQuestion {
		t.Helper()
		q, err := db.ContextAct(ctx, a.ID, asg, pos, seen, action, 5, 0, domain.Integrity{})
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	// Question 1: expand to the end, then "more" once more: final no at 5.
	for seen := range 5 {
		if q := act(1, seen, domain.ContextMore); q.Shown != seen+1 || q.Final() {
			t.Fatalf("after more #%d: %+v", seen+1, q)
		}
	}
	if q := act(1, 3, domain.ContextMore); q.Shown != 5 || q.Final() {
		t.Fatalf("an outdated click changed the question: %+v", q)
	}
	if q := act(1, 5, domain.ContextMore); q.Shown != 5 || q.Sufficient != "no" {
		t.Fatalf("more at the limit: %+v", q)
	}
	if q := act(1, 5, domain.ContextMore); q.Shown != 5 || q.Sufficient != "no" {
		t.Fatalf("double click at the limit: %+v", q)
	}
	// Question 2: two expansions, then sufficient; a double click changes nothing.
	act(2, 0, domain.ContextMore)
	act(2, 1, domain.ContextMore)
	act(2, 1, domain.ContextMore) // the second click of a double click
	if q := act(2, 2, domain.ContextSufficient); q.Shown != 2 || q.Sufficient != "yes" {
		t.Fatalf("sufficient after two: %+v", q)
	}
	var buf bytes.Buffer
	if err := db.ExportContextAnswers(ctx, s.ID, &buf); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range recs {
		if len(r) != 16 || (i > 0 && r[9] == "") { // the times, then the integrity signals
			t.Fatalf("row %d without its answer times: %q", i, r)
		}
		recs[i] = r[:8]
	}
	want := [][]string{
		{"annotator_id", "survey_id", "item_id", "kind", "period", "sentences", "sufficient", "max_sentences"},
		{"Giulia", "1", "14739", "Ppp", domain.Period1994, "5", "no", "5"},
		{"Giulia", "1", "22185", "Impl", domain.Period1994, "2", "yes", "4"},
	}
	if got := recs; !equalRecords(got, want) {
		t.Errorf("export =\n%q\nwant\n%q", got, want)
	}
	as, err := db.AnnotatorContextAssignment(ctx, a.ID, asg)
	if err != nil || !as.Done() {
		t.Errorf("assignment = %+v, %v; want done", as, err)
	}
	// Another expert cannot answer this assignment.
	b, _ := db.CreateAnnotator(ctx, s.ID, "Marco")
	if _, err := db.ContextAct(ctx, b.ID, asg, 1, 0, domain.ContextSufficient, 5, 0, domain.Integrity{}); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Errorf("foreign expert: %v", err)
	}
	// Restart goes back to the target alone; the surveys are now fixed.
	if q := act(2, 2, domain.ContextRestart); q.Shown != 0 || q.Final() {
		t.Errorf("restart: %+v", q)
	}
	if err := db.SaveContextSurveys(ctx, s.ID, [][]string{{"22185"}}); domain.ErrorCode(err) != domain.ECONFLICT {
		t.Errorf("rebuilding assigned surveys: %v", err)
	}
}

func TestContextActShortPassageEndsAtItsFirstSentence(t *testing.T) {
	// 34103 has two sentences: one can be revealed, then the answer is final.
	db, _, a, asg := contextFixture(t, "34103")
	ctx := context.Background()
	q, _ := db.ContextAct(ctx, a.ID, asg, 1, 0, domain.ContextMore, 5, 0, domain.Integrity{})
	if q.Shown != 1 || q.Final() {
		t.Fatalf("first more: %+v", q)
	}
	q, _ = db.ContextAct(ctx, a.ID, asg, 1, 1, domain.ContextMore, 5, 0, domain.Integrity{})
	if q.Shown != 1 || q.Sufficient != "no" {
		t.Fatalf("more with nothing left: %+v", q)
	}
}

func equalRecords(a, b [][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if strings.Join(a[i], "\x00") != strings.Join(b[i], "\x00") {
			return false
		}
	}
	return true
}
