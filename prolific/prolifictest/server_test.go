package prolifictest_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"pragmalab/prolific"
	"pragmalab/prolific/prolifictest"
)

// TestFailRefusesARouteUntilLifted: a route set to fail is answered with
// the error, in Prolific's shape, is counted, and changes nothing; lifted,
// it is served again.
func TestFailRefusesARouteUntilLifted(t *testing.T) {
	const token, study = "fake-test-token-0123456789", "6500000000000000000000aa"
	srv := prolifictest.NewServer(token)
	defer srv.Close()
	srv.AddStudy(study, "pilot")
	srv.AddSubmission(study, "sub1", prolifictest.PID(1), "AWAITING REVIEW")
	env := map[string]string{prolific.TokenEnv: token, prolific.APIEnv: srv.URL}
	c, err := prolific.New(func(k string) string { return env[k] }, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	srv.Fail("GET study", 400, "This study cannot be read now.")
	srv.Fail("POST transition", 503, "Try again later.")
	_, err = c.Study(ctx, study)
	var ae *prolific.APIError
	if !errors.As(err, &ae) || ae.Status != 400 || !strings.Contains(ae.Body, "This study cannot be read now.") {
		t.Fatalf("refused study: %v", err)
	}
	if err := c.Approve(ctx, "sub1"); !errors.As(err, &ae) || ae.Status != 503 {
		t.Fatalf("refused approval: %v", err)
	}
	if srv.Status("sub1") != "AWAITING REVIEW" || srv.Calls("GET study") != 1 || srv.Calls("POST transition") != 1 {
		t.Fatalf("after the refusals: status %s, %d study and %d transition calls", srv.Status("sub1"), srv.Calls("GET study"), srv.Calls("POST transition"))
	}

	srv.Fail("GET study", 0, "")
	srv.Fail("POST transition", 0, "")
	if st, err := c.Study(ctx, study); err != nil || st.Name != "pilot" {
		t.Fatalf("lifted: %+v, %v", st, err)
	}
	if err := c.Approve(ctx, "sub1"); err != nil || srv.Status("sub1") != "APPROVED" {
		t.Fatalf("lifted approval: %v, status %s", err, srv.Status("sub1"))
	}
}
