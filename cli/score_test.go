package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"pragmalab/domain"
	"pragmalab/itemfiles"
	"strconv"
	"strings"
	"testing"

	"pragmalab/runner"
	"pragmalab/scoring/scoringtest"
	"pragmalab/store"
)

func scoreDB(t *testing.T) (string, int64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "score.db")
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := &domain.Study{Kind: domain.KindExpert, Name: "items", Lang: "en"}
	if err := db.CreateStudy(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if err := db.ImportItems(context.Background(), s.ID, runner.SyntheticItems(8)); err != nil {
		t.Fatal(err)
	}
	return path, s.ID
}

func TestScoreBuiltin(t *testing.T) {
	path, study := scoreDB(t)
	code, out, errOut := runCLI(t, "", nil, "score", "--db", path, "--study", strconv.FormatInt(study, 10), "--scorer", "always-true")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// always-true: every implicature "recognised", no cancellation.
	if !strings.Contains(out, "Implicature recognition   1.00") || !strings.Contains(out, "Cancellation recognition  0.00") {
		t.Errorf("metrics table:\n%s", out)
	}
	if !strings.Contains(errOut, "96 of 96 prompts answered") {
		t.Errorf("summary: %s", errOut)
	}
}

func TestScoreModelJSONAndResume(t *testing.T) {
	path, study := scoreDB(t)
	srv := scoringtest.NewServer(0)
	defer srv.Close()
	env := map[string]string{"PRAGMALAB_KEY_CLI": "sk-cli-secret"}
	code, out, errOut := runCLI(t, "", env, "score", "--db", path, "--study", strconv.FormatInt(study, 10),
		"--base-url", srv.URL+"/v1", "--model", "fake-1b", "--api-key-env", "PRAGMALAB_KEY_CLI", "--concurrency", "8", "--json", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res struct {
		Model   string `json:"model"`
		Prompts struct {
			Total, Answered int
		} `json:"prompts"`
		ByType map[string]struct {
			Items int `json:"items"`
		} `json:"by_type"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if res.Model != "fake-1b" || res.Prompts.Answered != 96 || res.ByType["all"].Items != 8 {
		t.Errorf("results %+v", res)
	}
	if strings.Contains(out+errOut, "sk-cli-secret") || !srv.SawAuthorization("Bearer sk-cli-secret") {
		t.Error("the key must be sent, and never printed")
	}
	before := srv.Requests()
	code, _, errOut = runCLI(t, "", env, "score", "--db", path, "--job", "1", "--quiet")
	if code != 0 || srv.Requests() != before {
		t.Errorf("resuming a finished job asked %d prompts again (exit %d: %s)", srv.Requests()-before, code, errOut)
	}
}

func TestScoreUsageErrors(t *testing.T) {
	path, study := scoreDB(t)
	for _, args := range [][]string{
		{"score", "--db", path},
		{"score", "--db", path, "--study", strconv.FormatInt(study, 10), "--base-url", "ftp://x", "--model", "m"},
		{"score", "--db", path, "--study", strconv.FormatInt(study, 10), "--base-url", "http://x/v1", "--model", "m", "--api-key-env", "PRAGMALAB_KEY_UNSET"},
		{"score", "--db", path, "--study", strconv.FormatInt(study, 10), "--scorer", "bleu4"},
	} {
		code, _, errOut := runCLI(t, "", nil, args...)
		if code != 2 || errOut == "" {
			t.Errorf("%v: exit %d, %q; want 2 with a message", args, code, errOut)
		}
	}
}

func TestScorePassages(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.db")
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("../itemfiles/testdata/impaqts-pid-sample.tsv")
	if err != nil {
		t.Fatal(err)
	}
	ps, err := itemfiles.ParsePassagesTSV(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	s := &domain.Study{Kind: domain.KindExplain, Name: "explain", Lang: "it"}
	db.CreateStudy(ctx, s)
	if err := db.ImportPassages(ctx, s.ID, ps); err != nil {
		t.Fatal(err)
	}
	db.Close()
	id := strconv.FormatInt(s.ID, 10)
	code, out, errOut := runCLI(t, "", nil, "score", "--db", path, "--study", id, "--task", "multiplechoice", "--scorer", "bleu4", "--quiet")
	if code != 0 || !strings.Contains(out, "confusion (gold × predicted)") || !strings.Contains(out, "all   130") {
		t.Fatalf("exit %d %s\n%s", code, errOut, out)
	}
	csv := filepath.Join(t.TempDir(), "gen.csv")
	code, _, errOut = runCLI(t, "", nil, "score", "--db", path, "--study", id, "--task", "generation", "--strategy", "chain-of-thought",
		"--scorer", "copy-target", "--outputs-to", id, "--csv", csv, "--quiet")
	if code != 0 || !strings.Contains(errOut, "130 outputs added to study") {
		t.Fatalf("generation: exit %d %s", code, errOut)
	}
	b, _ := os.ReadFile(csv)
	if outs, err := itemfiles.ParseOutputsCSV(bytes.NewReader(b)); err != nil || len(outs) != 130 || outs[0].Strategy != "chain-of-thought" {
		t.Errorf("the CSV should be an outputs file: %v", err)
	}
}
