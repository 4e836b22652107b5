package prolific_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"pragmalab/prolific"
	"pragmalab/prolific/prolifictest"
)

const (
	token   = "tok-secret-123456789"
	studyID = "6500000000000000000000aa"
)

func client(t *testing.T, srv *prolifictest.Server, tok string) *prolific.Client {
	t.Helper()
	env := map[string]string{prolific.TokenEnv: tok, prolific.APIEnv: srv.URL}
	c, err := prolific.New(func(k string) string { return env[k] }, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestConnectionErrorsSayWhatIsWrong(t *testing.T) {
	srv := prolifictest.NewServer(token)
	defer srv.Close()
	srv.AddStudy(studyID, "pilot")
	if _, err := prolific.New(func(string) string { return "" }, nil); !errors.Is(err, prolific.ErrNoToken) {
		t.Errorf("no token: %v", err)
	}
	_, err := client(t, srv, "wrong-token").Study(context.Background(), studyID)
	if !errors.Is(err, prolific.ErrBadToken) {
		t.Errorf("bad token: %v", err)
	}
	_, err = client(t, srv, token).Study(context.Background(), "6500000000000000000000bb")
	if !errors.Is(err, prolific.ErrUnknownStudy) {
		t.Errorf("unknown study: %v", err)
	}
	if _, err := client(t, srv, token).Study(context.Background(), "../../etc"); err == nil || !strings.Contains(err.Error(), "24 hexadecimal") {
		t.Errorf("malformed id: %v", err)
	}
	st, err := client(t, srv, token).Study(context.Background(), studyID)
	if err != nil || st.Name != "pilot" {
		t.Fatalf("study %+v, %v", st, err)
	}
}

func TestSubmissionsFollowPagesAndNormaliseStatus(t *testing.T) {
	srv := prolifictest.NewServer(token)
	defer srv.Close()
	srv.AddStudy(studyID, "s")
	for i, st := range []string{"ACTIVE", "AWAITING_REVIEW", "RETURNED", "TIMED-OUT", "APPROVED"} {
		srv.AddSubmission(studyID, strings.Repeat("a", 23)+string(rune('0'+i)), strings.Repeat("b", 23)+string(rune('0'+i)), st)
	}
	subs, err := client(t, srv, token).Submissions(context.Background(), studyID)
	if err != nil {
		t.Fatal(err)
	}
	if len(subs) != 5 || srv.Calls("GET submissions") != 3 {
		t.Fatalf("%d submissions in %d pages", len(subs), srv.Calls("GET submissions"))
	}
	if subs[1].Status != prolific.StatusAwaitingReview || !prolific.FreesSlot(subs[2].Status) || !prolific.FreesSlot(subs[3].Status) || prolific.FreesSlot(subs[4].Status) {
		t.Errorf("statuses %+v", subs)
	}
}

func TestRejectionIsCheckedBeforeSending(t *testing.T) {
	srv := prolifictest.NewServer(token)
	defer srv.Close()
	srv.AddStudy(studyID, "s")
	srv.AddSubmission(studyID, "sub1", "pid1", "AWAITING REVIEW")
	c := client(t, srv, token)
	if err := c.Reject(context.Background(), "sub1", "FAILED_CHECK", "too short"); err == nil || !strings.Contains(err.Error(), "at least 100") {
		t.Errorf("short message: %v", err)
	}
	if err := c.Reject(context.Background(), "sub1", "BECAUSE", strings.Repeat("x", 120)); err == nil || !strings.Contains(err.Error(), "category") {
		t.Errorf("unknown category: %v", err)
	}
	if srv.Calls("POST transition") != 0 {
		t.Fatal("an invalid rejection was sent")
	}
	if err := c.Reject(context.Background(), "sub1", "FAILED_CHECK", strings.Repeat("x", 120)); err != nil || srv.Status("sub1") != "REJECTED" {
		t.Fatalf("reject: %v, status %s", err, srv.Status("sub1"))
	}
}

func TestErrorsNeverCarryTheToken(t *testing.T) {
	srv := prolifictest.NewServer(token)
	defer srv.Close()
	c := client(t, srv, token)
	err := c.Approve(context.Background(), "nosuch")
	if err == nil || strings.Contains(err.Error(), token) {
		t.Fatalf("err %v", err)
	}
	var ae *prolific.APIError
	if !errors.As(err, &ae) || ae.Status != 404 {
		t.Errorf("err %v is not a 404 APIError", err)
	}
}

// TestAnswersNeverCarryPartOfTheToken: a fragment of the token that
// Prolific echoes, in a study's name or in an error, is blanked before it
// can be shown or stored.
func TestAnswersNeverCarryPartOfTheToken(t *testing.T) {
	fragment := token[2:19] // 17 characters
	srv := prolifictest.NewServer(token)
	defer srv.Close()
	srv.AddStudy(studyID, "pilot "+fragment)
	st, err := client(t, srv, token).Study(context.Background(), studyID)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(st.Name, token[5:13]) || !strings.Contains(st.Name, "[redacted]") {
		t.Errorf("study name %q carries part of the token", st.Name)
	}

	srv.Fail("GET study", http.StatusBadRequest, "token '"+fragment+"' is not valid here")
	_, err = client(t, srv, token).Study(context.Background(), studyID)
	if err == nil || strings.Contains(err.Error(), token[5:13]) {
		t.Fatalf("error %v carries part of the token", err)
	}
}

// TestWeakTokenLeavesIDsAlone (docs/deploy.md#no-secret-in-a-log-or-page):
// a token that shares an 8-character run with a study id, a submission id
// and a participant id still blanks a name that echoes it, but the ids
// pragmalab matches on come back whole.
func TestWeakTokenLeavesIDsAlone(t *testing.T) {
	const (
		sid = "65abcdef0123456789abcd01"
		sub = "66ffff0123456789abcdffff"
		pid = "5f0123456789abcdef012345"
	)
	weak := "tok-" + sid[2:12] + "-" + pid[6:16] + "-x" // shares runs with both ids
	srv := prolifictest.NewServer(weak)
	defer srv.Close()
	srv.AddStudy(sid, "pilot "+weak[4:14])
	srv.AddSubmission(sid, sub, pid, "APPROVED")
	c := client(t, srv, weak)
	st, err := c.Study(context.Background(), sid)
	if err != nil {
		t.Fatal(err)
	}
	if st.ID != sid {
		t.Fatalf("study id %q, want %q: the redactor blanked an id", st.ID, sid)
	}
	if strings.Contains(st.Name, weak[4:12]) || !strings.Contains(st.Name, "[redacted]") {
		t.Errorf("study name %q carries part of the token", st.Name)
	}
	subs, err := c.Submissions(context.Background(), sid)
	if err != nil {
		t.Fatal(err)
	}
	if len(subs) != 1 || subs[0].ParticipantID != pid || subs[0].ID != sub {
		t.Fatalf("submissions %+v: ids blanked", subs)
	}
}

// TestListsStayOnTheAPI: a list's next page on another host is refused
// before the token is sent there (docs/prolific.md#set-up), for the
// submissions and the filters alike.
func TestListsStayOnTheAPI(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
	}))
	defer other.Close()
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"results": [], "_links": {"next": {"href": %q}}}`, other.URL+r.URL.Path)
	}))
	defer api.Close()
	env := map[string]string{prolific.TokenEnv: token, prolific.APIEnv: api.URL}
	c, err := prolific.New(func(k string) string { return env[k] }, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.Submissions(ctx, studyID); err == nil || !strings.Contains(err.Error(), "is not on "+api.URL) {
		t.Errorf("submissions with a next page elsewhere: %v", err)
	}
	if _, err := c.Filters(ctx); err == nil || !strings.Contains(err.Error(), "is not on "+api.URL) {
		t.Errorf("filters with a next page elsewhere: %v", err)
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("%d requests reached the other host", n)
	}
}
