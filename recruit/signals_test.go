package recruit

import (
	"context"
	"encoding/csv"
	"net/http"
	"strings"
	"testing"

	"pragmalab/domain"
	"pragmalab/prolific/prolifictest"
	"pragmalab/store"
)

// flagFirst gives participant 1 the honeypot and webdriver flags.
func flagFirst(t *testing.T, db *store.DB, cs *domain.Study) {
	t.Helper()
	ctx := context.Background()
	_, set, _ := db.CrowdStudy(ctx, cs.ID)
	parts, _ := db.CrowdParticipants(ctx, cs.ID, set)
	if _, err := db.Writer().ExecContext(ctx, `UPDATE crowd_ratings SET honeypot = 'http://bot.example', webdriver = 1 WHERE participant_id = ?`, parts[0].ID); err != nil {
		t.Fatal(err)
	}
}

func TestSignalsUploadSendsFlagsAsEvidenceOnce(t *testing.T) {
	db, cs, srv, p := prolificFixture(t)
	ctx := context.Background()
	if _, err := p.Sync(ctx, cs.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := p.PlanSignals(ctx, cs.ID); domain.ErrorCode(err) != domain.EINVALID || !strings.Contains(domain.ErrorMessage(err), "nothing to send") {
		t.Fatalf("no flags: %v", err)
	}
	flagFirst(t, db, cs)
	plan, err := p.PlanSignals(ctx, cs.ID)
	if err != nil || len(plan.Rows) != 1 || plan.Rows[0].SubmissionID != "sub1" {
		t.Fatalf("plan %+v, %v", plan, err)
	}
	if srv.Calls("GET signals-upload-url")+len(srv.SignalUploads()) != 0 {
		t.Fatal("planning sent something")
	}
	before := srv.Status("sub1")
	if _, err := p.SendSignals(ctx, cs.ID, "alice"); err != nil {
		t.Fatal(err)
	}
	ups := srv.SignalUploads()
	if len(ups) != 1 || ups[0].Filename != plan.Filename || ups[0].WorkspaceID != prolifictest.WorkspaceID || ups[0].ContentType != "text/csv" {
		t.Fatalf("uploads %+v", ups)
	}
	recs, err := csv.NewReader(strings.NewReader(ups[0].Body)).ReadAll()
	if err != nil || len(recs) != 2 {
		t.Fatalf("file %q: %v", ups[0].Body, err)
	}
	row := strings.Join(recs[1], "|")
	for _, want := range []string{"sub1", prolifictest.PID(1), prolificStud, "honeypot;webdriver", "honeypot: ", SignalsDecision} {
		if !strings.Contains(row, want) {
			t.Errorf("the file's row %q lacks %q", row, want)
		}
	}
	// Evidence, never a rejection: the submission is as it was.
	if srv.Status("sub1") != before || srv.Calls("POST transition") != 0 {
		t.Errorf("the upload changed the submission: %s, %d transitions", srv.Status("sub1"), srv.Calls("POST transition"))
	}
	c, err := db.ProlificCallByKey(ctx, plan.Key)
	if err != nil || c.State != domain.CallDone || c.Kind != domain.CallSignals || c.Actor != "alice" || strings.Contains(c.Response, "Signature") {
		t.Fatalf("journal %+v (%v)", c, err)
	}
	// The same flags again: nothing sent.
	if _, err := p.SendSignals(ctx, cs.ID, "bob"); domain.ErrorCode(err) != domain.ECONFLICT || !strings.Contains(domain.ErrorMessage(err), "already sent") {
		t.Fatalf("second send: %v", err)
	}
	if n := len(srv.SignalUploads()); n != 1 || srv.Calls("GET signals-upload-url") != 1 {
		t.Fatalf("sent %d files, %d addresses", n, srv.Calls("GET signals-upload-url"))
	}
}

// A crash between the upload and the record of its answer: the retry — a
// new service over the same database, as after a restart — sends nothing.
func TestSignalsUploadNotResentAfterLostAnswer(t *testing.T) {
	db, cs, srv, p := prolificFixture(t)
	ctx := context.Background()
	p.Sync(ctx, cs.ID)
	flagFirst(t, db, cs)
	srv.SetAfterSignalUpload(func(string) { panic(http.ErrAbortHandler) })
	if _, err := p.SendSignals(ctx, cs.ID, "alice"); err == nil {
		t.Fatal("a lost answer looked like success")
	}
	srv.SetAfterSignalUpload(nil)
	plan, _ := p.PlanSignals(ctx, cs.ID)
	if c, err := db.ProlificCallByKey(ctx, plan.Key); err != nil || c.State != domain.CallPending {
		t.Fatalf("call %+v (%v): want it pending", c, err)
	}
	p2 := New(db, p.getenv)
	_, err := p2.SendSignals(ctx, cs.ID, "alice")
	if domain.ErrorCode(err) != domain.ECONFLICT || !strings.Contains(domain.ErrorMessage(err), "never came") {
		t.Fatalf("retry: %v", err)
	}
	if n := len(srv.SignalUploads()); n != 1 || srv.Calls("PUT signals-upload") != 1 {
		t.Fatalf("the retry uploaded again: %d files, %d PUTs", n, srv.Calls("PUT signals-upload"))
	}
}

// Without an upload address nothing was sent: the call is failed and may
// be made again; a PUT the store refuses (4xx) did nothing either.
func TestSignalsUploadRetriedAfterRefusal(t *testing.T) {
	db, cs, srv, p := prolificFixture(t)
	ctx := context.Background()
	p.Sync(ctx, cs.ID)
	flagFirst(t, db, cs)
	srv.Fail("GET signals-upload-url", http.StatusBadGateway, "down")
	if _, err := p.SendSignals(ctx, cs.ID, "alice"); err == nil {
		t.Fatal("no address, yet success")
	}
	srv.Fail("GET signals-upload-url", 0, "")
	srv.Fail("PUT signals-upload", http.StatusForbidden, "expired")
	if _, err := p.SendSignals(ctx, cs.ID, "alice"); err == nil {
		t.Fatal("a refused upload looked like success")
	}
	srv.Fail("PUT signals-upload", 0, "")
	if _, err := p.SendSignals(ctx, cs.ID, "alice"); err != nil {
		t.Fatalf("after refusals: %v", err)
	}
	if n := len(srv.SignalUploads()); n != 1 {
		t.Fatalf("%d files stored", n)
	}
	// New flags make a new file, sent on its own.
	_, set, _ := db.CrowdStudy(ctx, cs.ID)
	parts, _ := db.CrowdParticipants(ctx, cs.ID, set)
	db.Writer().ExecContext(ctx, `UPDATE crowd_ratings SET webdriver = 1 WHERE participant_id = ?`, parts[1].ID)
	if _, err := p.SendSignals(ctx, cs.ID, "alice"); err != nil || len(srv.SignalUploads()) != 2 {
		t.Fatalf("new flags: %v, %d files", err, len(srv.SignalUploads()))
	}
}
