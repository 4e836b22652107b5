package scoring

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// flaky answers the first len(fails) requests with those statuses (and
// headers), then delegates to next.
type flaky struct {
	fails  []int
	header http.Header
	body   func(r *http.Request) string
	next   http.Handler
	n      atomic.Int64
}

func (f *flaky) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	i := int(f.n.Add(1) - 1)
	if i < len(f.fails) {
		for k, v := range f.header {
			w.Header()[k] = v
		}
		msg := "try later"
		if f.body != nil {
			msg = f.body(r)
		}
		http.Error(w, msg, f.fails[i])
		return
	}
	f.next.ServeHTTP(w, r)
}

// recordSleep replaces waiting by recording the wait.
type recordSleep struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *recordSleep) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	return ctx.Err()
}

var onePrompt = Prompt{Key: "k", Task: TrueFalse, Order: TrueFirst, Text: "Statement: x\nA) True\nB) False"}

func constP(p float64) *fakeModel {
	return &fakeModel{pTrue: func(string, Order) float64 { return p }}
}

func TestRetryAfterSecondsThenSuccess(t *testing.T) {
	fm := constP(0.75)
	fl := &flaky{fails: []int{429, 429}, header: http.Header{"Retry-After": {"7"}}, next: http.HandlerFunc(fm.serve)}
	srv := httptest.NewServer(fl)
	defer srv.Close()
	rs := &recordSleep{}
	c, err := NewClient(Config{BaseURLs: []string{srv.URL}, Model: "m", MaxRetries: 3}, noEnv, WithSleep(rs.sleep))
	if err != nil {
		t.Fatal(err)
	}
	a, err := c.Score(context.Background(), onePrompt)
	if err != nil {
		t.Fatalf("after two 429s the third attempt should succeed: %v", err)
	}
	if !approx(a.PTrue, 0.75) {
		t.Errorf("P(True) = %v, want 0.75", a.PTrue)
	}
	if len(rs.waits) != 2 || rs.waits[0] != 7*time.Second || rs.waits[1] != 7*time.Second {
		t.Errorf("waits %v, want [7s 7s] as Retry-After said", rs.waits)
	}
}

func TestRetryAfterHTTPDate(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	fm := constP(0.5)
	fl := &flaky{fails: []int{503}, header: http.Header{"Retry-After": {now.Add(42 * time.Second).Format(http.TimeFormat)}}, next: http.HandlerFunc(fm.serve)}
	srv := httptest.NewServer(fl)
	defer srv.Close()
	rs := &recordSleep{}
	c, _ := NewClient(Config{BaseURLs: []string{srv.URL}, Model: "m", MaxRetries: 1}, noEnv, WithSleep(rs.sleep), WithClock(func() time.Time { return now }))
	if _, err := c.Score(context.Background(), onePrompt); err != nil {
		t.Fatal(err)
	}
	if len(rs.waits) != 1 || rs.waits[0] != 42*time.Second {
		t.Errorf("waits %v, want [42s] from the HTTP-date Retry-After", rs.waits)
	}
}

func TestServerErrorBackoff(t *testing.T) {
	fm := constP(0.5)
	fl := &flaky{fails: []int{500, 502, 503, 504}, next: http.HandlerFunc(fm.serve)}
	srv := httptest.NewServer(fl)
	defer srv.Close()
	rs := &recordSleep{}
	c, _ := NewClient(Config{BaseURLs: []string{srv.URL}, Model: "m", MaxRetries: 5}, noEnv,
		WithSleep(rs.sleep), WithBackoff(100*time.Millisecond, 300*time.Millisecond))
	if _, err := c.Score(context.Background(), onePrompt); err != nil {
		t.Fatal(err)
	}
	// Equal jitter: attempt k waits in [d/2, d], d = min(100ms·2^k, 300ms).
	bounds := [][2]time.Duration{{50, 100}, {100, 200}, {150, 300}, {150, 300}}
	if len(rs.waits) != 4 {
		t.Fatalf("waits %v, want 4", rs.waits)
	}
	for i, w := range rs.waits {
		lo, hi := bounds[i][0]*time.Millisecond, bounds[i][1]*time.Millisecond
		if w < lo || w > hi {
			t.Errorf("wait %d = %v, want within [%v, %v]", i, w, lo, hi)
		}
	}
}

func TestGivesUpAfterMaxRetries(t *testing.T) {
	fl := &flaky{fails: []int{503, 503, 503, 503}, next: http.NotFoundHandler()}
	srv := httptest.NewServer(fl)
	defer srv.Close()
	c, _ := NewClient(Config{BaseURLs: []string{srv.URL}, Model: "m", MaxRetries: 2}, noEnv, WithSleep((&recordSleep{}).sleep))
	_, err := c.Score(context.Background(), onePrompt)
	if err == nil || !strings.Contains(err.Error(), "503") || !strings.Contains(err.Error(), "after 3 attempts") {
		t.Fatalf("error %v should name the status and the attempts", err)
	}
	if got := fl.n.Load(); got != 3 {
		t.Errorf("%d requests, want 3 (1 + 2 retries)", got)
	}
}

func TestClientErrorNotRetried(t *testing.T) {
	fl := &flaky{fails: []int{400, 400}, body: func(*http.Request) string { return `{"error":"model not found"}` }, next: http.NotFoundHandler()}
	srv := httptest.NewServer(fl)
	defer srv.Close()
	c, _ := NewClient(Config{BaseURLs: []string{srv.URL}, Model: "m", MaxRetries: 5}, noEnv, WithSleep((&recordSleep{}).sleep))
	_, err := c.Score(context.Background(), onePrompt)
	if err == nil || !strings.Contains(err.Error(), "model not found") {
		t.Fatalf("error %v should carry the server's message", err)
	}
	if got := fl.n.Load(); got != 1 {
		t.Errorf("%d requests, want 1: a 400 is not retried", got)
	}
}

func TestRequestTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // so the server notices the client leave
		select {                    // never answers in time
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}))
	defer srv.Close()
	c, _ := NewClient(Config{BaseURLs: []string{srv.URL}, Model: "m", Timeout: time.Second, MaxRetries: 0}, noEnv)
	start := time.Now()
	_, err := c.Score(context.Background(), onePrompt)
	if err == nil || !strings.Contains(err.Error(), "time-out") {
		t.Fatalf("error %v should say the request timed out", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("took %v, the 1s time-out was not applied", el)
	}
}

func TestCancelDuringBackoff(t *testing.T) {
	fl := &flaky{fails: []int{503, 503, 503}, next: http.NotFoundHandler()}
	srv := httptest.NewServer(fl)
	defer srv.Close()
	c, _ := NewClient(Config{BaseURLs: []string{srv.URL}, Model: "m", MaxRetries: 5}, noEnv, WithBackoff(time.Hour, time.Hour))
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := c.Score(ctx, onePrompt)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled while waiting to retry", err)
	}
}

func TestAPIKeyNeverInErrorsOrLogs(t *testing.T) {
	const key = "sk-very-secret-4242"
	// A server that echoes the Authorization header back, as some do in
	// their 401 messages.
	echo := func(r *http.Request) string { return "invalid key: " + r.Header.Get("Authorization") }
	fl := &flaky{fails: []int{500, 401}, body: echo, next: http.NotFoundHandler()}
	srv := httptest.NewServer(fl)
	defer srv.Close()
	var logs bytes.Buffer
	getenv := func(name string) string {
		if name == "PRAGMALAB_KEY_TEST" {
			return key
		}
		return ""
	}
	var seen atomic.Value
	inner := srv.Config.Handler
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Store(r.Header.Get("Authorization"))
		inner.ServeHTTP(w, r)
	})
	cfg := Config{BaseURLs: []string{srv.URL}, Model: "m", APIKeyEnv: "PRAGMALAB_KEY_TEST", MaxRetries: 3}
	c, err := NewClient(cfg, getenv, WithSleep((&recordSleep{}).sleep), WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Score(context.Background(), onePrompt)
	if err == nil {
		t.Fatal("a 401 should fail the prompt")
	}
	if seen.Load() != "Bearer "+key {
		t.Fatalf("server saw Authorization %q; the key was not sent", seen.Load())
	}
	if !strings.Contains(logs.String(), "retrying") {
		t.Fatalf("the 500 should have been logged as a retry; logs: %s", logs.String())
	}
	cfgJSON, _ := json.Marshal(c.Config())
	for what, s := range map[string]string{"error": err.Error(), "log": logs.String(), "config": string(cfgJSON)} {
		if strings.Contains(s, key) {
			t.Errorf("the API key appears in the %s: %s", what, s)
		}
	}
	if !strings.Contains(err.Error(), "[redacted]") {
		t.Errorf("error %q should show where the key was blanked", err)
	}

	if _, err := NewClient(Config{BaseURLs: []string{srv.URL}, Model: "m", APIKeyEnv: "PRAGMALAB_KEY_UNSET"}, getenv); err == nil || !strings.Contains(err.Error(), "PRAGMALAB_KEY_UNSET") {
		t.Errorf("an unset key variable should be named in the error, got %v", err)
	}
	if _, err := NewClient(Config{BaseURLs: []string{srv.URL}, Model: "m", APIKeyEnv: key}, getenv); err == nil || strings.Contains(err.Error(), key) {
		t.Errorf("a key pasted as the variable name must be refused without echoing it, got %v", err)
	}
}

func TestRoundRobinAndConcurrency(t *testing.T) {
	a, b := constP(0.5), constP(0.5)
	a.delay, b.delay = 20*time.Millisecond, 20*time.Millisecond
	sa, sb := a.server(t), b.server(t)
	c, err := NewClient(Config{BaseURLs: []string{sa.URL + "/v1", sb.URL + "/"}, Model: "m", Concurrency: 3}, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	var prompts []Prompt
	for range 24 {
		prompts = append(prompts, onePrompt)
	}
	var wg sync.WaitGroup
	for _, p := range prompts {
		wg.Go(func() {
			if _, err := c.Score(context.Background(), p); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if a.requests.Load() != 12 || b.requests.Load() != 12 {
		t.Errorf("requests %d and %d, want 12 each (round-robin)", a.requests.Load(), b.requests.Load())
	}
	if a.maxIn.Load() != 3 || b.maxIn.Load() != 3 {
		t.Errorf("max in flight %d and %d, want 3 per endpoint", a.maxIn.Load(), b.maxIn.Load())
	}
}

func TestConfigValidate(t *testing.T) {
	cfg := Config{BaseURLs: []string{"ftp://x", "http://user:pw@host/v1"}, Model: "", APIKeyEnv: "sk-abc def", Concurrency: 1000, Timeout: time.Millisecond}.WithDefaults()
	err := cfg.Validate()
	if err == nil {
		t.Fatal("want errors")
	}
	for _, field := range []string{"base_urls: URL 1", "base_urls: URL 2", "model", "api_key_env", "concurrency", "timeout"} {
		if !strings.Contains(err.Error(), field) {
			t.Errorf("error should name %s: %v", field, err)
		}
	}
}

// TestAdaptsToReasoningModels checks the client follows OpenAI's refusals
// of max_tokens and of a temperature other than 1, as its reasoning models
// answer, and keeps the adapted parameters for later prompts.
func TestAdaptsToReasoningModels(t *testing.T) {
	fm := constP(0.8)
	var rejected atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req map[string]any
		json.Unmarshal(body, &req)
		if _, ok := req["max_tokens"]; ok {
			rejected.Add(1)
			http.Error(w, `{"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.","type":"invalid_request_error"}}`, 400)
			return
		}
		if t, ok := req["temperature"]; ok && t != 1.0 {
			rejected.Add(1)
			http.Error(w, `{"error":{"message":"Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported."}}`, 400)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		fm.serve(w, r)
	}))
	defer srv.Close()
	c, _ := NewClient(Config{BaseURLs: []string{srv.URL}, Model: "o-model", Mode: Sampling, MaxRetries: 0}, noEnv)
	a, err := c.Score(context.Background(), onePrompt)
	if err != nil || !approx(a.PTrue, 0.8) {
		t.Fatalf("sampling after adapting: P = %v, err %v", a.PTrue, err)
	}
	prompts, _ := BuildGenPrompts(mcItems[:1], ZeroShot, Templates{})
	if _, err := c.Score(context.Background(), prompts[0]); err != nil {
		t.Fatalf("generation (temperature 0 refused): %v", err)
	}
	if got := rejected.Load(); got != 2 {
		t.Errorf("%d refusals, want 2: each refusal is learnt once", got)
	}
}
