package recruit

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"pragmalab/domain"
)

func TestRequestReturnSentOnce(t *testing.T) {
	_, cs, srv, p := prolificFixture(t)
	ctx := context.Background()
	if _, err := p.Sync(ctx, cs.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := p.RequestReturn(ctx, cs.ID, "alice", pid(1), "  "); domain.ErrorCode(err) != domain.EINVALID {
		t.Errorf("no reason: %v", err)
	}
	if _, err := p.RequestReturn(ctx, cs.ID, "alice", pid(3), "Encountered technical problems"); domain.ErrorCode(err) != domain.EINVALID {
		t.Errorf("a returned submission: %v", err)
	}
	plan, err := p.RequestReturn(ctx, cs.ID, "alice", pid(1), "Encountered technical problems")
	if err != nil || plan.SubmissionID != "sub1" || srv.ReturnRequests("sub1") != 1 {
		t.Fatalf("plan %+v (%v), requests %d", plan, err, srv.ReturnRequests("sub1"))
	}
	if _, err := p.RequestReturn(ctx, cs.ID, "bob", pid(1), "Encountered technical problems"); domain.ErrorCode(err) != domain.ECONFLICT {
		t.Errorf("second request: %v", err)
	}
	if srv.ReturnRequests("sub1") != 1 {
		t.Errorf("sent %d times", srv.ReturnRequests("sub1"))
	}
}

// A request whose answer never came (the server died, or Prolific failed
// with a 5xx after maybe carrying it out) is never sent again.
func TestRequestReturnNotResentAfterLostAnswer(t *testing.T) {
	db, cs, srv, p := prolificFixture(t)
	ctx := context.Background()
	if _, err := p.Sync(ctx, cs.ID); err != nil {
		t.Fatal(err)
	}
	srv.Fail("POST request-return", http.StatusBadGateway, "gateway timeout")
	if _, err := p.RequestReturn(ctx, cs.ID, "alice", pid(2), "Withdrew consent"); err == nil {
		t.Fatal("a 5xx was taken for an answer")
	}
	c, err := db.ProlificCallByKey(ctx, "return:sub2")
	if err != nil || c.State != domain.CallPending {
		t.Fatalf("call %+v (%v): want it pending", c, err)
	}
	srv.Fail("POST request-return", 0, "")
	// A new service over the same database: as after a restart.
	p2 := New(db, p.getenv)
	_, err = p2.RequestReturn(ctx, cs.ID, "alice", pid(2), "Withdrew consent")
	if domain.ErrorCode(err) != domain.ECONFLICT || !strings.Contains(domain.ErrorMessage(err), "never came") {
		t.Errorf("resend after a lost answer: %v", err)
	}
	if n := srv.Calls("POST request-return"); n != 1 {
		t.Errorf("request-return sent %d times", n)
	}
	// A 4xx did nothing: it may be asked again.
	srv.Fail("POST request-return", http.StatusBadRequest, "nope")
	if _, err := p.RequestReturn(ctx, cs.ID, "alice", pid(4), "Withdrew consent"); domain.ErrorCode(err) != domain.EINVALID {
		t.Fatalf("refused: %v", err)
	}
	srv.Fail("POST request-return", 0, "")
	if _, err := p.RequestReturn(ctx, cs.ID, "alice", pid(4), "Withdrew consent"); err != nil || srv.ReturnRequests("sub4") != 1 {
		t.Errorf("after a refusal: %v, %d requests", err, srv.ReturnRequests("sub4"))
	}
}
