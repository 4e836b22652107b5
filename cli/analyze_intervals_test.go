package cli

import (
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pragmalab/analysis"
)

// TestAnalyzeIntervals runs the outputs of docs/statistics.md#paper-ready-output
// and the intervals on the agreement fixture
// of the analysis tests (3 experts, 2 item types): the *_ci95 keys, the
// fixed default seed, --seed, --latex and --methods.
func TestAnalyzeIntervals(t *testing.T) {
	path := filepath.Join("..", "analysis", "agreement", "testdata", "agreement_boot.csv")
	out, errs, code := analyzeCLI(t, "", "analyze", "agreement", "--judgements", path, "--json", "--bootstrap", "300")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var res struct {
		Plausibility map[string]any            `json:"plausibility"`
		ByType       map[string]map[string]any `json:"by_type"`
		Bootstrap    struct {
			Replicates int    `json:"replicates"`
			Seed       uint64 `json:"seed"`
		} `json:"bootstrap"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	p := res.Plausibility
	// Three annotators: the pooled Cohen's κ and its interval are null;
	// Light's κ and α have intervals around them.
	if v, ok := p["kappa"]; !ok || v != nil || p["kappa_ci95"] != nil {
		t.Errorf("pooled kappa %v %v, want null null", p["kappa"], p["kappa_ci95"])
	}
	for _, k := range []string{"lights_kappa", "krippendorff_alpha", "raw", "pabak", "fleiss_kappa"} {
		v, _ := p[k].(float64)
		ci, _ := p[k+"_ci95"].([]any)
		if len(ci) != 2 || ci[0].(float64) > v || v > ci[1].(float64) {
			t.Errorf("%s = %v, interval %v", k, p[k], p[k+"_ci95"])
		}
	}
	if res.ByType["scalar"] == nil || res.ByType["all"] == nil || res.Bootstrap.Replicates != 300 {
		t.Errorf("by_type %v, bootstrap %+v", res.ByType, res.Bootstrap)
	}
	// The same input gives the same intervals; another seed other ones.
	again, _, _ := analyzeCLI(t, "", "analyze", "agreement", "--judgements", path, "--json", "--bootstrap", "300")
	other, _, _ := analyzeCLI(t, "", "analyze", "agreement", "--judgements", path, "--json", "--bootstrap", "300", "--seed", "99")
	if again != out || other == out {
		t.Error("intervals must depend on the seed and only on it")
	}

	tex, errs, code := analyzeCLI(t, "", "analyze", "agreement", "--judgements", path, "--latex", "--bootstrap", "300")
	// The value, then its interval in small print under it; math minus signs.
	texNum := func(x any) string { return strings.Replace(analysis.Fixed(x.(float64), 2), "-", "$-$", 1) }
	ciText := fmt.Sprintf(`%s\\{\scriptsize [%s, %s]}`, texNum(p["lights_kappa"]), texNum(p["lights_kappa_ci95"].([]any)[0]), texNum(p["lights_kappa_ci95"].([]any)[1]))
	if code != 0 || !strings.Contains(tex, `\toprule`) || !strings.Contains(tex, `\bottomrule`) || !strings.Contains(tex, `Light's $\kappa$`) ||
		!strings.Contains(tex, ciText) || strings.Contains(tex, "κ") {
		t.Errorf("--latex (exit %d, want %q): %s\n%s", code, ciText, errs, tex)
	}
	md, _, code := analyzeCLI(t, "", "analyze", "agreement", "--judgements", path, "--methods", "markdown", "--bootstrap", "300")
	raw := p["raw"].(float64)
	if code != 0 || !strings.HasPrefix(md, "### Methods: expert agreement") || !strings.Contains(md, "3 experts (a, b, c) gave 54 judgements") ||
		!strings.Contains(md, fmt.Sprintf("raw agreement = %s (95 %% CI [", analysis.Fixed(raw, 2))) || !strings.Contains(md, "300 bootstrap replicates") {
		t.Errorf("--methods markdown:\n%s", md)
	}
	if _, errs, code := analyzeCLI(t, "", "analyze", "agreement", "--judgements", path, "--latex", "--json"); code != 2 || !strings.Contains(errs, "choose one") {
		t.Errorf("--latex --json: exit %d %s", code, errs)
	}
}

func TestAnalyzeToplinesIntervalsAndMethods(t *testing.T) {
	path := filepath.Join("..", "analysis", "toplines", "testdata", "toplines_boot.csv")
	out, errs, code := analyzeCLI(t, "", "analyze", "toplines", "--ratings", path, "--methods", "text", "--bootstrap", "200")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// 14 participants: p14 fails every check, p13 rates one value only.
	for _, want := range []string{"Of 14 participants, 1 was excluded", "1 participant gave the same rating to every item", "12 participants were analysed",
		"Of the 16 items", "200 bootstrap replicates", "resample the analysed participants and, independently, the items"} {
		if !strings.Contains(out, want) {
			t.Errorf("methods lack %q:\n%s", want, out)
		}
	}
	dir := t.TempDir()
	text, _, code := analyzeCLI(t, "", "analyze", "toplines", "--ratings", path, "--bootstrap", "200", "--plots", dir)
	if code != 0 || !strings.Contains(text, "Human toplines with 95 % intervals") {
		t.Errorf("text output (exit %d):\n%s", code, text)
	}
	csvOut, _, code := analyzeCLI(t, "", "analyze", "toplines", "--ratings", path, "--bootstrap", "200", "--csv", "--table", "toplines_intervals")
	if lines := strings.Split(csvOut, "\n"); code != 0 || !strings.HasPrefix(lines[0], "Measure,Scalar,Scalar 95% CI low,Scalar 95% CI high,Discourse,") ||
		!strings.HasPrefix(lines[2], "Implicature recognition,1,0.4385") {
		// Scalar: 3 of 3 items, so the interval reaches down to Wilson(3, 3)'s
		// lower bound 3/(3 + 1.96²) = 0.4385, the items-only floor.
		t.Errorf("--csv --table toplines_intervals (exit %d):\n%s", code, csvOut)
	}
	if _, errs, code := analyzeCLI(t, "", "analyze", "toplines", "--ratings", path, "--table", "nope"); code != 2 || !strings.Contains(errs, "toplines_intervals") {
		t.Errorf("--table nope: exit %d %s", code, errs)
	}
	for _, f := range []string{"toplines_intervals.pdf", "toplines_intervals.svg", "toplines_intervals.png", "scatter_all.pdf"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || len(b) < 100 {
			t.Errorf("%s: %v (%d bytes)", f, err, len(b))
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "toplines_intervals.pdf")); !strings.HasPrefix(string(b), "%PDF") {
		t.Error("the PDF figure is not a PDF")
	}
	// PNG at 2×: 6 × 4 in at 192 dpi.
	f, err := os.Open(filepath.Join(dir, "toplines_intervals.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if cfg, err := png.DecodeConfig(f); err != nil || cfg.Width != 1152 || cfg.Height != 768 {
		t.Errorf("PNG %d×%d (%v), want 1152×768", cfg.Width, cfg.Height, err)
	}
}
