package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"

	"pragmalab/domain"
	"pragmalab/prolific/prolifictest"
	"pragmalab/studies"
	"pragmalab/web"
)

// syncBuffer is a log destination the server's goroutines share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestNoSecretInTheLog runs an expert, a crowd and a Prolific flow against
// one server logging at debug level (serve -v), with the requests that used
// to log paths — a cross-origin POST to an invitation link, an unknown
// path under it, a failing request (5xx) — and fails on any secret the run
// created, or 8 characters of one, in the log.
func TestNoSecretInTheLog(t *testing.T) {
	ctx := context.Background()
	db := openStore(t)
	logs := &syncBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))

	// An expert study with one invited expert.
	ex := &domain.Study{Kind: domain.KindExpert, Name: "secrets", Lang: "en", Seed: 3}
	if err := db.CreateStudy(ctx, ex); err != nil {
		t.Fatal(err)
	}
	items := []domain.Item{
		{Key: "a1", Type: domain.TypeScalar, Utterance: "Some cats purr.", Implicature: "Not all cats purr.", Cancellation: "In fact all do."},
		{Key: "a2", Type: domain.TypeScalar, Utterance: "Some dogs bark.", Implicature: "Not all dogs bark.", Cancellation: "In fact all do."},
	}
	if err := db.ImportItems(ctx, ex.ID, items); err != nil {
		t.Fatal(err)
	}
	if _, err := studies.BuildExpertBatches(ctx, db, ex, domain.ExpertSettings{BatchSize: 2}); err != nil {
		t.Fatal(err)
	}
	bs, _ := db.Batches(ctx, ex.ID)
	ada, _ := db.CreateAnnotator(ctx, ex.ID, "Ada")
	ben, _ := db.CreateAnnotator(ctx, ex.ID, "Ben")
	if err := db.AssignRound1(ctx, ex.ID, bs[0].ID, []int64{ada.ID, ben.ID}); err != nil {
		t.Fatal(err)
	}
	as, _ := db.AnnotatorAssignments(ctx, ada.ID)
	if err := studies.OpenStudy(ctx, db, ex.ID, ""); err != nil {
		t.Fatal(err)
	}

	// A crowd study linked to a fake Prolific, and an owner.
	const psid = "64eeeeeeeeeeeeeeeeeeeeee"
	cs, fake, vars := fakeProlific(t, db, psid)
	if err := db.SetStudyState(ctx, cs.ID, domain.StateOpen, ""); err != nil {
		t.Fatal(err)
	}
	createResearcher(t, db)
	const apiKey = "sk-e2e-secret-key-ZXCVBNM987654"
	vars["OPENAI_API_KEY"] = apiKey
	ts, _ := serve(t, db, web.Config{Log: log, Getenv: func(k string) string { return vars[k] }})

	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	do := func(method, path string, form url.Values, hdr ...string) *http.Response {
		t.Helper()
		var body io.Reader
		if form != nil {
			body = strings.NewReader(form.Encode())
		}
		req, _ := http.NewRequest(method, ts.URL+path, body)
		if form != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}

	// The expert: landing, a screen, an answer, a cross-origin POST, an
	// unknown path under the link.
	inv := "/e/" + ada.Token
	screen := fmt.Sprintf("%s/b/%d/1", inv, as[0].ID)
	do("GET", inv+"/", nil)
	do("GET", screen, nil)
	if r := do("POST", screen, url.Values{"plausible": {"yes"}, "cancellation_correct": {"yes"}}); r.StatusCode >= 500 {
		t.Fatalf("expert answer: %d", r.StatusCode)
	}
	if r := do("POST", screen, url.Values{"plausible": {"yes"}}, "Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site"); r.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-origin POST to an invitation: %d, want 403", r.StatusCode)
	}
	do("GET", inv+"/no/such/page", nil)
	do("GET", "/c/"+ben.Token+"/", nil)
	do("GET", "/x/"+ben.Token+"/1", nil)

	// The crowd participant: arrival from Prolific, consent, the screen.
	crowd := "/s/" + strconv.FormatInt(cs.ID, 10)
	do("GET", crowd+"/?PROLIFIC_PID="+prolifictest.PID(9)+"&STUDY_ID="+psid+"&SESSION_ID=sess9", nil)
	do("POST", crowd+"/consent", url.Values{})
	do("GET", crowd+"/screen", nil)
	var crowdCookie string
	u, _ := url.Parse(ts.URL + crowd + "/")
	for _, ck := range jar.Cookies(u) {
		if strings.HasPrefix(ck.Name, "crowd_") {
			crowdCookie = ck.Value
		}
	}
	if crowdCookie == "" {
		t.Fatal("the crowd participant got no session cookie")
	}

	// The owner links the study to Prolific and syncs it.
	if r := do("POST", "/admin/login", url.Values{"username": {researcher}, "password": {researcherPassword}, "next": {"/admin"}}); r.StatusCode >= 400 {
		t.Fatalf("login: %d", r.StatusCode)
	}
	var adminCookie string
	au, _ := url.Parse(ts.URL + "/admin")
	for _, ck := range jar.Cookies(au) {
		if ck.Name == "pragmalab_admin" {
			adminCookie = ck.Value
		}
	}
	page := "/admin/studies/" + strconv.FormatInt(cs.ID, 10) + "/prolific"
	do("POST", page+"/link", url.Values{"prolific_study_id": {psid}})
	do("POST", page+"/sync", url.Values{})
	if fake.Calls("GET submissions") == 0 {
		t.Error("the sync never reached the fake Prolific: the flow did not run")
	}

	// A failing request on an invitation route (the database closed under
	// it) logs a 5xx.
	db.Close()
	if r := do("GET", screen, nil); r.StatusCode < 500 {
		t.Fatalf("GET with the database closed: %d, want a 5xx", r.StatusCode)
	}

	out := logs.String()
	if !strings.Contains(out, "/e/{token}") || !strings.Contains(out, "cross-origin request refused") || !strings.Contains(out, "request failed") {
		t.Fatalf("the log lacks the lines this test is about:\n%s", out)
	}
	secrets := map[string]string{
		"expert invitation token": ada.Token, "second invitation token": ben.Token,
		"crowd session cookie": crowdCookie, "admin session cookie": adminCookie,
		"Prolific token": fake.Token, "API key": apiKey,
	}
	for what, s := range secrets {
		for i := 0; i+domain.RedactRun <= len(s); i++ {
			if run := s[i : i+domain.RedactRun]; strings.Contains(out, run) {
				t.Errorf("the log holds %q, part of the %s:\n%s", run, what, out)
				break
			}
		}
	}
}
