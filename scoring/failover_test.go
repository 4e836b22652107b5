package scoring

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// deadURL is the address of a server that has stopped: connections to it
// are refused.
func deadURL(t *testing.T) string {
	t.Helper()
	s := httptest.NewServer(http.NotFoundHandler())
	u := s.URL
	s.Close()
	return u
}

func manyPrompts(n int) []Prompt {
	ps := make([]Prompt, n)
	for i := range ps {
		ps[i] = onePrompt
		ps[i].Key = fmt.Sprint("k", i)
	}
	return ps
}

// TestDeadEndpointOfTwo: with one live and one dead base URL every prompt
// is answered, in about the time the live endpoint alone takes, with the
// real back-off (no sleep is faked).
func TestDeadEndpointOfTwo(t *testing.T) {
	live := constP(0.5)
	live.delay = 10 * time.Millisecond
	srv := live.server(t)
	prompts := manyPrompts(60)
	timeRun := func(urls ...string) time.Duration {
		c, err := NewClient(Config{BaseURLs: urls, Model: "m", Concurrency: 4, MaxRetries: 3}, noEnv)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		answers := runAll(t, c, prompts) // fails the test on any prompt error
		if len(answers) != len(prompts) {
			t.Fatalf("%d of %d prompts answered", len(answers), len(prompts))
		}
		return time.Since(start)
	}
	alone := timeRun(srv.URL)
	both := timeRun(deadURL(t), srv.URL)
	// The dead endpoint offers 4 more slots, so the pair may even be as
	// fast; it must not be much slower than the live one alone.
	if both > 2*alone+300*time.Millisecond {
		t.Errorf("live alone %v, live + dead %v: the dead endpoint slows the job down", alone, both)
	}
	t.Logf("live alone %v, live + dead %v", alone, both)
}

// TestRetryGoesToAnotherEndpoint: an endpoint answering 503 to everything
// fails no prompt when a second one works, with one retry per prompt and
// no waiting; after two failures it is benched and asked no more.
func TestRetryGoesToAnotherEndpoint(t *testing.T) {
	sick := &flaky{fails: make([]int, 1000), next: http.NotFoundHandler()}
	for i := range sick.fails {
		sick.fails[i] = 503
	}
	ss := httptest.NewServer(sick)
	defer ss.Close()
	good := constP(0.25).server(t)
	rs := &recordSleep{}
	c, err := NewClient(Config{BaseURLs: []string{ss.URL, good.URL}, Model: "m", Concurrency: 1, MaxRetries: 1}, noEnv, WithSleep(rs.sleep))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range manyPrompts(20) {
		if _, err := c.Score(context.Background(), p); err != nil {
			t.Fatalf("prompt %s failed although the second endpoint works: %v", p.Key, err)
		}
	}
	if n := sick.n.Load(); n > benchAfter {
		t.Errorf("the sick endpoint was asked %d times; it should be benched after %d failures", n, benchAfter)
	}
	if len(rs.waits) != 0 {
		t.Errorf("waited %v although another endpoint was free", rs.waits)
	}
}

// TestBenchedEndpointIsProbedAgain: after its cool-down a benched endpoint
// gets requests again, and a success brings it back.
func TestBenchedEndpointIsProbedAgain(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	recovering := &flaky{fails: []int{503, 503}, next: http.HandlerFunc(constP(0.5).serve)}
	rsrv := httptest.NewServer(recovering)
	defer rsrv.Close()
	good := constP(0.5).server(t)
	c, _ := NewClient(Config{BaseURLs: []string{rsrv.URL, good.URL}, Model: "m", Concurrency: 1, MaxRetries: 2}, noEnv,
		WithSleep((&recordSleep{}).sleep), WithClock(clock), WithCooldown(30*time.Second, time.Minute))
	for _, p := range manyPrompts(6) {
		if _, err := c.Score(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	if n := recovering.n.Load(); n != 2 {
		t.Fatalf("the failing endpoint was asked %d times during its cool-down, want 2", n)
	}
	now = now.Add(31 * time.Second)
	for _, p := range manyPrompts(6) {
		if _, err := c.Score(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	if n := recovering.n.Load(); n < 4 {
		t.Errorf("after its cool-down the endpoint got %d requests in all, want it back in the rotation", n)
	}
}

func TestProbeReportsRefusedEndpoint(t *testing.T) {
	good := constP(0.5).server(t)
	dead := deadURL(t)
	c, err := NewClient(Config{BaseURLs: []string{good.URL, dead}, Model: "m"}, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	st := c.Probe(context.Background(), 2*time.Second)
	if time.Since(start) > time.Second {
		t.Errorf("probing took %v", time.Since(start))
	}
	if st[0].Error != "" || !strings.Contains(st[1].Error, "refused") {
		t.Fatalf("probe %+v; want the second endpoint reported as refusing connections", st)
	}
	if !c.eps[1].benched(time.Now()) {
		t.Error("a refusing endpoint should be benched at once")
	}
}

// TestAllEndpointsDeadEndsQuickly: with every endpoint refusing, a prompt
// fails after its retries within the capped back-off, not minutes.
func TestAllEndpointsDeadEndsQuickly(t *testing.T) {
	c, _ := NewClient(Config{BaseURLs: []string{deadURL(t), deadURL(t)}, Model: "m", MaxRetries: 5}, noEnv, WithBackoff(10*time.Millisecond, 40*time.Millisecond))
	start := time.Now()
	_, err := c.Score(context.Background(), onePrompt)
	if err == nil || !strings.Contains(err.Error(), "after 6 attempts") {
		t.Fatalf("err %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestKeyRedactedEvenWhenAltered(t *testing.T) {
	key := "sk-proj-Zq81mXbT4vLw09KpRr7sYcNe2HjUa5Df"
	// The server echoes a middle slice of the key and its tail after a
	// long text, as some gateways do.
	echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := `{"error":"invalid api key ` + key[6:20] + `…` + `", "hint":"` + strings.Repeat("x", 400) + `", "tail":"` + key[len(key)-9:] + `"}`
		http.Error(w, body, http.StatusUnauthorized)
	})
	srv := httptest.NewServer(echo)
	defer srv.Close()
	getenv := func(n string) string {
		if n == "PRAGMALAB_KEY_T" {
			return key
		}
		return ""
	}
	c, err := NewClient(Config{BaseURLs: []string{srv.URL}, Model: "m", APIKeyEnv: "PRAGMALAB_KEY_T"}, getenv)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Score(context.Background(), onePrompt)
	if err == nil {
		t.Fatal("a 401 fails the prompt")
	}
	msg := err.Error()
	for i := 0; i+8 <= len(key); i++ {
		if strings.Contains(msg, key[i:i+8]) {
			t.Fatalf("the error shows %q of the key: %s", key[i:i+8], msg)
		}
	}
	if !strings.Contains(msg, "[redacted]") {
		t.Errorf("error %q should show where the key was blanked", msg)
	}
	body := msg[strings.Index(msg, "Unauthorized: ")+len("Unauthorized: "):]
	if n := len([]rune(body)); n > MaxErrorBody+1 {
		t.Errorf("the server's reply is %d characters in the error, want at most %d", n, MaxErrorBody)
	}
}

func TestWhereRequestsMayGo(t *testing.T) {
	for _, u := range []string{"http://169.254.169.254/latest/meta-data", "http://[fe80::1]:8000/v1", "http://metadata.google.internal/v1", "http://[::ffff:169.254.169.254]/v1", "http://[fd00:ec2::254]/v1"} {
		err := Config{BaseURLs: []string{u}, Model: "m"}.WithDefaults().Validate()
		if err == nil || !strings.Contains(err.Error(), "base_urls") {
			t.Errorf("%s should be refused, got %v", u, err)
		}
	}
	for _, u := range []string{"http://localhost:8000/v1", "http://127.0.0.1:11434", "http://10.0.0.5:8000/v1", "http://192.168.1.20/v1", "https://api.openai.com/v1"} {
		if err := (Config{BaseURLs: []string{u}, Model: "m"}.WithDefaults().Validate()); err != nil {
			t.Errorf("%s is where researchers run vLLM or Ollama; refused: %v", u, err)
		}
	}
	for _, u := range []string{"http://localhost:8000/v1", "http://127.0.0.1:11434", "http://10.0.0.5:8000/v1", "http://[::1]/v1"} {
		if err := CheckHost(u, true); err == nil || !strings.Contains(err.Error(), "--public-endpoints-only") {
			t.Errorf("public-only: %s should be refused, got %v", u, err)
		}
	}
	if err := CheckHost("https://api.openai.com/v1", true); err != nil {
		t.Errorf("a public name is fine: %v", err)
	}
	// A name resolving to a private address is refused when dialling.
	srv := constP(0.5).server(t)
	c, _ := NewClient(Config{BaseURLs: []string{strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)}, Model: "m", MaxRetries: 0}, noEnv, WithPublicOnly(true))
	if _, err := c.Score(context.Background(), onePrompt); err == nil || !strings.Contains(err.Error(), "--public-endpoints-only") {
		t.Errorf("public-only client reached a loopback server: %v", err)
	}
}

func TestKeyVariableNames(t *testing.T) {
	for name, ok := range map[string]bool{"PRAGMALAB_KEY_LAB": true, "OPENAI_API_KEY": true, "HOME": false, "DATABASE_PASSWORD": false, "PRAGMALAB_KEY_": false, "PRAGMALAB_DB": false} {
		err := Config{BaseURLs: []string{"http://x/v1"}, Model: "m", APIKeyEnv: name}.WithDefaults().Validate()
		if (err == nil) != ok {
			t.Errorf("%s: err %v, want allowed=%v", name, err, ok)
		}
	}
}
