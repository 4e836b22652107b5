package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"pragmalab/scoring/scoringtest"
)

// TestScoreFailureIsNotSuccess: a job whose endpoint is dead exits 1 and
// says why; resumed with --base-url pointing at a live server it answers
// every prompt and exits 0.
func TestScoreFailureIsNotSuccess(t *testing.T) {
	path, study := scoreDB(t)
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	code, out, errOut := runCLI(t, "", nil, "score", "--db", path, "--study", strconv.FormatInt(study, 10),
		"--base-url", deadURL+"/v1", "--model", "m", "--json", "--quiet")
	if code != 1 {
		t.Fatalf("all prompts unanswered: exit %d, want 1\n%s", code, errOut)
	}
	if !strings.Contains(errOut, "No endpoint accepts connections") || !strings.Contains(errOut, "ended failed") {
		t.Errorf("stderr should say the job failed and why:\n%s", errOut)
	}
	var res struct {
		Status  string `json:"status"`
		Prompts struct {
			Total    *int `json:"total"`
			Answered *int `json:"answered"`
			Failed   *int `json:"failed"`
		} `json:"prompts"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Status != "failed" || res.Prompts.Total == nil || *res.Prompts.Total != 96 || res.Prompts.Answered == nil || res.Prompts.Failed == nil {
		t.Fatalf("--json %v: %s", err, out)
	}

	live := scoringtest.NewServer(0)
	defer live.Close()
	code, _, errOut = runCLI(t, "", nil, "score", "--db", path, "--job", "1", "--base-url", live.URL+"/v1", "--concurrency", "8", "--timeout", "5s", "--quiet")
	if code != 0 || !strings.Contains(errOut, "96 of 96 prompts answered") || !strings.Contains(errOut, "now asks "+live.URL) {
		t.Fatalf("re-pointed resume: exit %d\n%s", code, errOut)
	}
	if code, _, errOut := runCLI(t, "", nil, "score", "--db", path, "--job", "1", "--model", "other"); code != 2 || !strings.Contains(errOut, "--model cannot change") {
		t.Errorf("--model with --job: exit %d %s", code, errOut)
	}
}

// TestScorePartialShowsNofN: prompts of one item fail; the job ends
// partial (exit 1), the reasons are listed, and the measures computed on
// fewer items than the job has say "n of N".
func TestScorePartialShowsNofN(t *testing.T) {
	path, study := scoreDB(t)
	srv := scoringtest.NewServer(0)
	defer srv.Close()
	inner := srv.Config.Handler
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if bytes.Contains(b, []byte("task x002 for C")) {
			http.Error(w, "model overloaded for this one", http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		inner.ServeHTTP(w, r)
	})
	code, out, errOut := runCLI(t, "", nil, "score", "--db", path, "--study", strconv.FormatInt(study, 10),
		"--base-url", srv.URL, "--model", "m", "--quiet")
	if code != 1 || !strings.Contains(errOut, "ended partial") {
		t.Fatalf("exit %d, want 1 for a partial job\n%s", code, errOut)
	}
	if !strings.Contains(errOut, "12× POST") || !strings.Contains(errOut, "model overloaded for this one") {
		t.Errorf("the reasons should be grouped with their counts:\n%s", errOut)
	}
	if !strings.Contains(out, "(7 of 8)") {
		t.Errorf("the measures stand on 7 of the 8 items and should say so:\n%s", out)
	}
	if !strings.Contains(out, "option-order bias") {
		t.Errorf("the option-order bias should be printed:\n%s", out)
	}
}
