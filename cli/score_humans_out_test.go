package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"pragmalab/analysis"
	"pragmalab/analysis/modelhuman"
	"pragmalab/cli/seed"
	"pragmalab/store"
)

// crowdScoreDB is a crowd study of 30 items rated by its participants
// (the analysis benchmark's seed), in a database file.
func crowdScoreDB(t *testing.T) (string, int64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "crowd.db")
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	b, err := seed.New(db).SeedBenchCrowd(context.Background(), 30, 3)
	if err != nil {
		t.Fatal(err)
	}
	return path, b.StudyID
}

// A likert job of a crowd study with ratings: --latex prints the alt-test,
// the distributions against the ceiling, the correlation against the
// split-half ceiling and the calibration as booktabs tables that compile
// with pdfLaTeX and read back with the numbers of --json; --methods gives
// the same statistics in English and Italian, ε with its source; a
// True/False job has nothing to print and says why.
func TestScoreLikertBesideTheHumansAsLaTeXAndMethods(t *testing.T) {
	path, study := crowdScoreDB(t)
	sid := strconv.FormatInt(study, 10)
	code, out, errOut := runCLI(t, "", nil, "score", "--db", path, "--study", sid, "--task", "likert", "--scorer", "random", "--quiet", "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	var res struct {
		Job    int64 `json:"job"`
		Humans struct {
			AltTest struct {
				Epsilon float64                 `json:"epsilon"`
				Result  modelhuman.AltTestModel `json:"result"`
			} `json:"alt_test"`
			Correlation struct {
				R     *float64 `json:"r"`
				Share *float64 `json:"share_of_ceiling"`
			} `json:"correlation"`
			Calibration struct {
				ECE *float64 `json:"ece"`
			} `json:"calibration"`
		} `json:"humans"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	at := res.Humans.AltTest
	if at.Epsilon != 0.1 || at.Result.Humans == 0 || res.Humans.Correlation.R == nil || res.Humans.Calibration.ECE == nil {
		t.Fatalf("the JSON lacks the comparison with the humans:\n%s", out)
	}
	job := strconv.FormatInt(res.Job, 10)
	code, tex, errOut := runCLI(t, "", nil, "score", "--db", path, "--job", job, "--quiet", "--latex")
	if code != 0 {
		t.Fatalf("--latex: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{`\begin{tabular}`, `\toprule`, "Alternative annotator test", "split-half ceiling", "Calibration"} {
		if !strings.Contains(tex, want) {
			t.Errorf("--latex lacks %q:\n%s", want, tex)
		}
	}
	text := compileLaTeX(t, needPDFLaTeX(t), "score-likert-humans", tex, false)
	if text != "" {
		flat := strings.Join(strings.Fields(text), " ")
		omega := analysis.Fixed(at.Result.WinningRate, 2)
		rho := analysis.Fixed(at.Result.AdvantageProbability, 2)
		ece := analysis.Fixed(*res.Humans.Calibration.ECE, 2)
		for _, want := range []string{"Alternative annotator test", "= 0.10", "crowd workers", omega + " " + rho, "jsd", "wasserstein", "split-half ceiling", "Expected calibration error: " + ece} {
			if !strings.Contains(flat, want) {
				t.Errorf("the compiled PDF lacks %q:\n%s", want, flat)
			}
		}
	}
	for lang, wants := range map[string][]string{
		"en": {"alternative annotator test", "ε = 0.10 (Calderon, Reichart & Dror (2025): ε = 0.1 for crowd workers", "Jensen–Shannon divergence in bits", "split-half reliability", "expected calibration error"},
		"it": {"test dell'annotatore alternativo", "Jensen–Shannon in bit", "affidabilità split-half", "errore di calibrazione atteso"},
	} {
		code, m, errOut := runCLI(t, "", nil, "score", "--db", path, "--job", job, "--quiet", "--methods", "text", "--lang", lang)
		if code != 0 {
			t.Fatalf("--methods --lang %s: exit %d\n%s", lang, code, errOut)
		}
		for _, want := range wants {
			if !strings.Contains(m, want) {
				t.Errorf("--methods --lang %s lacks %q:\n%s", lang, want, m)
			}
		}
	}
	code, m, _ := runCLI(t, "", nil, "score", "--db", path, "--job", job, "--quiet", "--methods", "text", "--epsilon", "0.3")
	if code != 0 || !strings.Contains(m, "ε = 0.30; the task's default, 0.10, follows") {
		t.Errorf("--epsilon 0.3: exit %d\n%s", code, m)
	}
	code, _, errOut = runCLI(t, "", nil, "score", "--db", path, "--study", sid, "--scorer", "random", "--quiet", "--latex")
	if code != 2 || !strings.Contains(errOut, "none to compare with") {
		t.Errorf("--latex of a True/False job: exit %d, %s", code, errOut)
	}
	if code, _, errOut = runCLI(t, "", nil, "score", "--db", path, "--job", job, "--latex", "--json"); code != 2 || !strings.Contains(errOut, "choose one of") {
		t.Errorf("--latex --json: exit %d, %s", code, errOut)
	}
}
