package web

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"pragmalab/domain"
	"pragmalab/runner"
	"pragmalab/scoring"
)

// offlineErrorJob is an offline job over a study of two items whose API
// key variable holds key, with an offline runner's output read in whose
// lines each fail with one of messages in turn; it returns the job's page
// path and the keys of its prompts.
func offlineErrorJob(t *testing.T, env *testEnv, getenv func(string) string, messages []string) (string, int64) {
	t.Helper()
	ctx := context.Background()
	study := itemsStudy(t, env.db, 2)
	spec := runner.Spec{StudyID: study, Task: scoring.TrueFalse, Scorer: runner.ModelScorer,
		Config: scoring.Config{Model: "llama-8b", Engine: scoring.EngineOffline, APIKeyEnv: "PRAGMALAB_KEY_LAB"}}
	j, err := runner.Create(ctx, env.db, spec, getenv)
	if err != nil {
		t.Fatal(err)
	}
	var in bytes.Buffer
	if _, err := runner.ExportBatch(ctx, env.db, j.ID, &in); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for i, ln := range bytes.Split(bytes.TrimSpace(in.Bytes()), []byte("\n")) {
		var l struct {
			CustomID string `json:"custom_id"`
		}
		if err := json.Unmarshal(ln, &l); err != nil {
			t.Fatal(err)
		}
		msg := messages[i%len(messages)]
		var line any
		if i%2 == 0 {
			line = map[string]any{"custom_id": l.CustomID, "response": nil, "error": map[string]any{"code": "invalid_api_key", "message": msg}}
		} else {
			line = map[string]any{"custom_id": l.CustomID, "response": map[string]any{"status_code": 401, "body": map[string]any{"error": map[string]any{"message": msg}}}}
		}
		b, _ := json.Marshal(line)
		out.Write(append(b, '\n'))
	}
	if _, err := runner.ImportBatch(ctx, env.db, j.ID, out.Bytes(), getenv); err != nil {
		t.Fatal(err)
	}
	return "/admin/studies/" + strconv.FormatInt(study, 10) + "/jobs/" + strconv.FormatInt(j.ID, 10), j.ID
}

// TestImportedErrorsHideDisguisedKeys (docs/deploy.md#no-secret-in-a-log-or-page):
// an offline runner's error lines that echo the job's
// own key without a provider prefix, after "Bearer" and a non-breaking
// space, percent-encoded in a query or glued to "token_" store no 8
// characters of it, and the job's page shows none to a viewer.
func TestImportedErrorsHideDisguisedKeys(t *testing.T) {
	const key = "Q7b2Xk9LmN4pR8sT1vW3yZ6aHj0c"
	getenv := func(k string) string {
		if k == "PRAGMALAB_KEY_LAB" {
			return key
		}
		return ""
	}
	env := newFastBatchEnv(t, getenv)
	jobURL, id := offlineErrorJob(t, env, getenv, []string{
		"Incorrect API key provided: " + key + ". You can find your key at the console.",
		"header was Bearer\u00a0" + key + " refused",
		"GET https://llm.lab/v1/models?key=Bearer%20" + key + " 401",
		"bad credential token_" + key,
	})
	leak := func(s string) string {
		for i := 0; i+domain.RedactRun <= len(key); i++ {
			if strings.Contains(s, key[i:i+domain.RedactRun]) {
				return key[i : i+domain.RedactRun]
			}
		}
		return ""
	}
	rows, err := env.db.JobPrompts(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	failed := 0
	for _, r := range rows {
		if r.Error != "" {
			failed++
		}
		if l := leak(r.Error); l != "" {
			t.Errorf("prompt %s: the stored error %q keeps %q of the key", r.Key, r.Error, l)
		}
	}
	if failed != len(rows) || failed < 8 {
		t.Fatalf("%d of %d prompts failed; the test wants every line to fail", failed, len(rows))
	}
	viewer := env.accountClient("reader", domain.RoleViewer)
	for _, path := range []string{jobURL, jobURL + "?prompts=failed"} {
		page := viewer.get(path).Body
		if !strings.Contains(page, "[redacted]") {
			t.Errorf("%s shows no redacted error:\n%.2000s", path, text(page))
		}
		if l := leak(page); l != "" {
			t.Errorf("%s shows %q of the key to a viewer", path, l)
		}
	}
}

// TestImportedErrorsShowInvisibleCharacters (docs/deploy.md#no-secret-in-a-log-or-page):
// bidi controls and zero-width characters in an offline
// runner's error lines are not stored; each is shown as <U+XXXX>, so a
// right-to-left override cannot make a reversed key read in the right
// order, and the job's own key reversed is blanked.
func TestImportedErrorsShowInvisibleCharacters(t *testing.T) {
	const key = "Q7b2Xk9LmN4pR8sT1vW3yZ6aHj0c"
	const other = "ZZtop42secretValue99xx" // a key pragmalab does not know
	getenv := func(k string) string {
		if k == "PRAGMALAB_KEY_LAB" {
			return key
		}
		return ""
	}
	env := newFastBatchEnv(t, getenv)
	invisible := "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200b\u200c\u200d\u200e\u200f\u061c\u2060\u2061\ufeff\u00ad\u180e\U000E0041\u3164\u115f\u1160\uffa0"
	jobURL, id := offlineErrorJob(t, env, getenv, []string{
		"refused: \u202e" + reverse(key) + "\u202c is not allowed",
		"refused: \u202e" + reverse(other) + "\u202c is not allowed",
		"every invisible: [" + invisible + "] end",
		"fi\u2067le\u2069 na\u200bme",
	})
	rows, err := env.db.JobPrompts(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	sawEvery := false
	for _, r := range rows {
		if i := strings.IndexAny(r.Error, invisible); i >= 0 {
			t.Errorf("prompt %s: the stored error %q keeps an invisible character at byte %d", r.Key, r.Error, i)
		}
		if strings.Contains(r.Error, key[:domain.RedactRun]) || strings.Contains(r.Error, reverse(key)[:domain.RedactRun]) {
			t.Errorf("prompt %s: the stored error %q keeps the job's key", r.Key, r.Error)
		}
		if strings.Contains(r.Error, "every invisible") {
			sawEvery = true
			if !strings.Contains(r.Error, "<U+202A><U+202B><U+202C><U+202D><U+202E><U+2066><U+2067><U+2068><U+2069><U+200B>") {
				t.Errorf("the stored error %q does not show the invisible characters", r.Error)
			}
		}
	}
	if !sawEvery {
		t.Fatal("no stored error holds the line of invisible characters")
	}
	viewer := env.accountClient("reader", domain.RoleViewer)
	page := viewer.get(jobURL).Body
	if i := strings.IndexAny(page, invisible); i >= 0 {
		t.Errorf("the job page holds an invisible character: %q", page[max(0, i-80):min(len(page), i+80)])
	}
	for _, want := range []string{"&lt;U+202E&gt;" + reverse(other) + "&lt;U+202C&gt;", "fi&lt;U+2067&gt;le&lt;U+2069&gt; na&lt;U+200B&gt;me"} {
		if !strings.Contains(page, want) {
			t.Errorf("the job page lacks %q:\n%.3000s", want, text(page))
		}
	}
}

func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}
