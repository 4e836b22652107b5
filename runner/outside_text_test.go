package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"pragmalab/scoring"
	"pragmalab/scoring/scoringtest"
)

// TestImportBatchCleansOutsideText (docs/deploy.md#no-secret-in-a-log-or-page): an offline
// runner's output is text from outside: an error that echoes an API key
// is stored with the key blanked, and a generation's control characters
// (ESC, NUL) are not stored raw (docs/deploy.md#no-secret-in-a-log-or-page).
func TestImportBatchCleansOutsideText(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	study := itemStudy(t, db, 1)
	srv := scoringtest.NewServer(0)
	defer srv.Close()
	spec := modelSpec(study, "", 1)
	spec.Config.BaseURLs, spec.Config.Engine, spec.Config.Mode = nil, scoring.EngineOffline, scoring.Sampling
	job, err := Create(ctx, db, spec, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	var file bytes.Buffer
	if _, err := ExportBatch(ctx, db, job.ID, &file); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(fakeRunner(t, srv, file.Bytes())), "\n")
	const key = "sk-proj-Q7b2Xk9LmN4pR8sT1vW3yZ6a"
	var first struct {
		CustomID string `json:"custom_id"`
	}
	json.Unmarshal([]byte(lines[0]), &first)
	lines[0] = `{"custom_id":"` + first.CustomID + `","response":null,"error":{"code":"invalid_api_key","message":"Incorrect API key: Authorization: Bearer ` + key + ` \u001b[2J\u0000 was refused"}}` + "\n"
	lines[1] = strings.Replace(lines[1], `"content":"B"`, `"content":"B\u001b]0;owned\u0007\u0000"`, 1)
	lines[1] = strings.Replace(lines[1], `"content":"A"`, `"content":"A\u001b]0;owned\u0007\u0000"`, 1)
	if _, err := ImportBatch(ctx, db, job.ID, []byte(strings.Join(lines, "")), noEnv); err != nil {
		t.Fatal(err)
	}
	rows, err := db.JobPrompts(ctx, job.ID)
	if err != nil {
		t.Fatal(err)
	}
	sawError, sawSample := false, false
	for _, r := range rows {
		if r.Key == first.CustomID {
			sawError = true
			if strings.Contains(r.Error, key[:12]) || strings.Contains(r.Error, key[12:]) || !strings.Contains(r.Error, "Bearer [redacted]") {
				t.Errorf("stored error keeps the key: %q", r.Error)
			}
			if strings.ContainsAny(r.Error, "\x1b\x00") {
				t.Errorf("stored error keeps control characters: %q", r.Error)
			}
		}
		var a scoring.Answer
		if r.Answer != nil {
			if err := json.Unmarshal(r.Answer, &a); err != nil {
				t.Fatal(err)
			}
		}
		for _, s := range a.Samples {
			if strings.Contains(s, "owned") {
				sawSample = true
			}
			if strings.ContainsAny(s, "\x1b\x00\x07") {
				t.Errorf("prompt %s: a stored sample keeps control characters: %q", r.Key, s)
			}
		}
	}
	if !sawError || !sawSample {
		t.Fatalf("the test's lines were not read: error %v, sample %v", sawError, sawSample)
	}
}

// TestImportBatchBOMAndLogprobs (docs/scoring.md#offline-runners-vllm-run-batch):
// a UTF-8 byte-order mark before the first line is read past, a UTF-16
// file is named as such, and a positive log-probability refuses the file,
// naming its line.
func TestImportBatchBOMAndLogprobs(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	study := itemStudy(t, db, 1)
	srv := scoringtest.NewServer(0)
	defer srv.Close()
	spec := modelSpec(study, "", 1)
	spec.Config.BaseURLs, spec.Config.Engine = nil, scoring.EngineOffline
	job, err := Create(ctx, db, spec, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	var file bytes.Buffer
	if _, err := ExportBatch(ctx, db, job.ID, &file); err != nil {
		t.Fatal(err)
	}
	api := string(fakeRunner(t, srv, file.Bytes()))
	lines := strings.SplitAfter(api, "\n")
	i := strings.Index(lines[1], `"logprob":`)
	if i < 0 {
		t.Fatalf("no logprob in %s", lines[1])
	}
	end := i + len(`"logprob":`) + strings.IndexAny(lines[1][i+len(`"logprob":`):], ",}")
	lines[1] = lines[1][:i] + `"logprob":5.0` + lines[1][end:]
	_, err = ImportBatch(ctx, db, job.ID, []byte(strings.Join(lines, "")), noEnv)
	if err == nil || !strings.Contains(err.Error(), "line 2") || !strings.Contains(err.Error(), "positive") {
		t.Fatalf("a positive logprob: %v", err)
	}
	var utf16 []byte
	for _, r := range "\uFEFF" + api[:200] {
		utf16 = append(utf16, byte(r), byte(r>>8))
	}
	if _, err := ImportBatch(ctx, db, job.ID, utf16, noEnv); err == nil || !strings.Contains(err.Error(), "UTF-16") {
		t.Fatalf("a UTF-16 file: %v", err)
	}
	if p, _ := db.JobProgress(ctx, job.ID); p.Answered != 0 {
		t.Fatalf("refused files stored %d answers", p.Answered)
	}
	rep, err := ImportBatch(ctx, db, job.ID, []byte("\uFEFF"+api), noEnv)
	if err != nil || rep.Answered != rep.Lines || rep.Lines == 0 {
		t.Fatalf("a file with a BOM: %+v %v", rep, err)
	}
}
