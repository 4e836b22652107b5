package recruit

import (
	"bytes"
	"context"
	"encoding/csv"
	"net/http"
	"strings"
	"testing"

	"pragmalab/domain"
	"pragmalab/prolific"
)

// demographicsFixture is the linked crowd study with two participants'
// answers to Prolific's demographic questions on the fake.
func demographicsFixture(t *testing.T) (context.Context, *Service, int64, func() (int, int)) {
	db, cs, srv, p := prolificFixture(t)
	srv.SetDemographics(pid(1), map[string]string{"Age": "34", "Sex": "Female", "Language": "Italian", "Nationality": "Italy"})
	srv.SetDemographics(strings.ToUpper(pid(2)), map[string]string{"Age": "51", "Language": "English"})
	counts := func() (int, int) {
		n, err := db.KeptDemographics(context.Background(), cs.ID)
		if err != nil {
			t.Fatal(err)
		}
		return n, srv.Calls("POST demographic-export")
	}
	return context.Background(), p, cs.ID, counts
}

func readExport(t *testing.T, b []byte) (map[string]int, [][]string) {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("export %q: %v", b, err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		if _, dup := col[h]; dup {
			t.Fatalf("column %s twice", h)
		}
		col[h] = i
	}
	return col, recs[1:]
}

// The join puts each participant's demographics on their own row,
// matching PROLIFIC_PIDs without regard to case; a participant Prolific
// does not list gets empty cells, and a formula from Prolific is quoted.
func TestDemographicsJoinedToParticipants(t *testing.T) {
	ctx, p, study, counts := demographicsFixture(t)
	var buf bytes.Buffer
	if err := p.ExportParticipantsWithDemographics(ctx, study, "alice", &buf); err != nil {
		t.Fatal(err)
	}
	col, rows := readExport(t, buf.Bytes())
	for _, c := range []string{"prolific_pid", "prolific_age", "prolific_sex", "prolific_language", "prolific_submission_id", "prolific_status", "excluded"} {
		if _, ok := col[c]; !ok {
			t.Fatalf("no column %s in %v", c, col)
		}
	}
	if _, ok := col["prolific_participant_id"]; ok {
		t.Error("the participant id is repeated: prolific_pid is it")
	}
	want := map[string][3]string{pid(1): {"34", "Italian", "sub1"}, pid(2): {"51", "English", "sub2"}, pid(3): {"DATA_EXPIRED", "DATA_EXPIRED", "sub3"}}
	for _, r := range rows {
		w, ok := want[r[col["prolific_pid"]]]
		if !ok {
			t.Errorf("unexpected row %v", r)
			continue
		}
		if got := [3]string{r[col["prolific_age"]], r[col["prolific_language"]], r[col["prolific_submission_id"]]}; got != w {
			t.Errorf("%s: %v, want %v", r[col["prolific_pid"]], got, w)
		}
		if r[col["prolific_pid"]] == pid(1) && r[col["prolific_nationality"]] != "Italy" {
			t.Errorf("nationality %q", r[col["prolific_nationality"]])
		}
		delete(want, r[col["prolific_pid"]])
	}
	if len(want) != 0 || len(rows) != 3 {
		t.Errorf("rows %d, missing %v", len(rows), want)
	}
	if kept, calls := counts(); kept != 0 || calls != 1 {
		t.Errorf("kept %d rows, %d calls", kept, calls)
	}
}

// A formula in Prolific's data is quoted as in every export, and a
// column whose name is taken gets a suffix.
func TestJoinDemographicsQuotesFormulas(t *testing.T) {
	d := &prolific.Demographics{Columns: []string{"Participant id", "Status", "status", "Note"}, PID: 0,
		Rows: [][]string{{"P1", "APPROVED", "x", "=HYPERLINK(1)"}}}
	var out bytes.Buffer
	if err := JoinDemographics(strings.NewReader("prolific_pid,status\np1,completed\n"), d, &out); err != nil {
		t.Fatal(err)
	}
	want := "prolific_pid,status,prolific_status,prolific_status_2,prolific_note\np1,completed,APPROVED,x,'=HYPERLINK(1)\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

// Keep on stores the rows; off stores none, and turning it off deletes
// what was kept. Every fetch is in the call journal.
func TestDemographicsKeptOnlyWhenOn(t *testing.T) {
	ctx, p, study, counts := demographicsFixture(t)
	if _, kept, err := p.Demographics(ctx, study, "alice"); err != nil || kept {
		t.Fatalf("kept %v (%v) with keep off", kept, err)
	}
	if n, _ := counts(); n != 0 {
		t.Fatalf("%d rows stored with keep off", n)
	}
	if err := p.SetKeepDemographics(ctx, study, true, "alice"); err != nil {
		t.Fatal(err)
	}
	if on, _ := p.KeepDemographics(ctx, study); !on {
		t.Fatal("keep not on")
	}
	if _, kept, err := p.Demographics(ctx, study, "alice"); err != nil || !kept {
		t.Fatalf("kept %v (%v) with keep on", kept, err)
	}
	if n, _ := counts(); n != 4 {
		t.Errorf("%d rows stored, want the export's 4", n)
	}
	if err := p.SetKeepDemographics(ctx, study, false, "alice"); err != nil {
		t.Fatal(err)
	}
	if n, calls := counts(); n != 0 || calls != 2 {
		t.Errorf("after keep off: %d rows, %d calls", n, calls)
	}
	st, err := p.Status(ctx, study)
	if err != nil {
		t.Fatal(err)
	}
	journaled := 0
	for _, c := range st.Calls {
		if c.Kind == CallDemographics && c.State == domain.CallDone && c.Actor == "alice" {
			journaled++
		}
	}
	if journaled != 2 {
		t.Errorf("%d demographic exports in the journal, want 2: %+v", journaled, st.Calls)
	}
}

// A 5xx from Prolific is a clear error, nothing is written (no export
// without half its data), nothing is stored, and the call is recorded as
// failed.
func TestDemographicsFailureWritesNothing(t *testing.T) {
	db, cs, srv, p := prolificFixture(t)
	ctx := context.Background()
	if err := p.SetKeepDemographics(ctx, cs.ID, true, "alice"); err != nil {
		t.Fatal(err)
	}
	srv.Fail("POST demographic-export", http.StatusBadGateway, "upstream timed out")
	var buf bytes.Buffer
	err := p.ExportParticipantsWithDemographics(ctx, cs.ID, "alice", &buf)
	if err == nil || !strings.Contains(err.Error(), "nothing was exported") || !strings.Contains(err.Error(), "502") {
		t.Fatalf("error %v", err)
	}
	if buf.Len() != 0 {
		t.Errorf("wrote %q", buf.String())
	}
	if n, _ := db.KeptDemographics(ctx, cs.ID); n != 0 {
		t.Errorf("%d rows stored", n)
	}
	st, _ := p.Status(ctx, cs.ID)
	if len(st.Calls) == 0 || st.Calls[0].Kind != CallDemographics || st.Calls[0].State != domain.CallFailed {
		t.Errorf("journal %+v", st.Calls)
	}
}
