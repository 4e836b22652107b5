package cli

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"pragmalab/domain"
	"pragmalab/itemfiles"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"pragmalab/analysis/modelhuman"
	"pragmalab/analysis/report"
	"pragmalab/analysis/toplines"
)

// needR skips the test without Rscript (and, when asked, the ordinal
// package), unless CI is set: .ci/run installs both, so there their
// absence is a failure.
func needR(t *testing.T, ordinal bool) {
	t.Helper()
	missing := ""
	if _, err := exec.LookPath("Rscript"); err != nil {
		missing = "Rscript"
	} else if ordinal && !hasOrdinal() {
		missing = "the R package ordinal"
	}
	if missing == "" {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s not found and CI is set: install it (apt-get install -y r-base-core r-cran-ordinal)", missing)
	}
	t.Skipf("%s not found; install it (apt-get install -y r-base-core r-cran-ordinal) to run the R companion tests", missing)
}

var ordinalOnce struct {
	sync.Once
	ok bool
}

func hasOrdinal() bool {
	ordinalOnce.Do(func() {
		ordinalOnce.ok = exec.Command("Rscript", "-e", "library(ordinal)").Run() == nil
	})
	return ordinalOnce.ok
}

// runR runs DIR/analysis.R from another working directory, with env
// added to the environment, and returns what it printed.
func runR(t *testing.T, dir string, env ...string) string {
	t.Helper()
	cmd := exec.Command("Rscript", filepath.Join(dir, "analysis.R"))
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("Rscript %s/analysis.R: %v\n%s", dir, err, out)
	}
	return string(out)
}

// readLong reads a long results table: every column but the last joined
// by "|" as the key, the last as the value.
func readLong(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	m := map[string]string{}
	for _, r := range recs[1:] {
		m[strings.Join(r[:len(r)-1], "|")] = r[len(r)-1]
	}
	return m
}

// checker compares R's values with pragmalab's JSON values to 1e-9.
type checker struct {
	t *testing.T
	r map[string]string
	n int
}

func (c *checker) same(key string, want any) {
	c.t.Helper()
	got, ok := c.r[key]
	if !ok {
		c.t.Errorf("R wrote no value for %s", key)
		return
	}
	c.n++
	if want == nil {
		if got != "" {
			c.t.Errorf("%s: R has %s, pragmalab null", key, got)
		}
		return
	}
	w, ok := want.(float64)
	if !ok {
		c.t.Errorf("%s: pragmalab's value %v is not a number", key, want)
		return
	}
	g, err := strconv.ParseFloat(got, 64)
	if err != nil || math.Abs(g-w) > 1e-9 {
		c.t.Errorf("%s: R has %q, pragmalab %.17g", key, got, w)
	}
}

// demoCrowdRatings simulates a crowd study on the demo items: each
// participant rates every data item of the given types (all when none) in
// one of conds (a Latin square), with a participant bias, an item effect,
// the condition's effect and noise, plus the demo's attention checks. One
// participant in twelve answers the checks at random, and one rates
// everything 4.
func demoCrowdRatings(t *testing.T, participants int, conds []string, types ...string) string {
	t.Helper()
	items, err := itemfiles.ParseItemsJSONL(bytes.NewReader(demoItems))
	if err != nil {
		t.Fatal(err)
	}
	checks, err := itemfiles.ParseItemsJSONL(bytes.NewReader(demoCrowdChecks))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(21, 1))
	shift := map[string]float64{"trigger": 0, "cancel": -2.5, "negation": -2.2, "strengthen": 0.8, "neutral": 0}
	var b strings.Builder
	b.WriteString("participant_id,batch_id,item_id,item_type,condition,rating,check\n")
	base := map[string]float64{}
	for _, it := range items {
		base[it.Key] = 4.5 + rng.NormFloat64()
	}
	for p := range participants {
		pid := fmt.Sprintf("P%03d", p+1)
		bias := rng.NormFloat64() * 0.7
		careless := p%12 == 5
		k := 0
		for _, it := range append(items, checks...) {
			switch {
			case it.Check != "":
				r := 6 + rng.IntN(2)
				if it.Check == "low" {
					r = 1 + rng.IntN(2)
				}
				if careless {
					r = 1 + rng.IntN(7)
				}
				fmt.Fprintf(&b, "%s,B1,%s,,trigger,%d,%s\n", pid, it.Key, r, it.Check)
			case it.IsData() && (len(types) == 0 || slices.Contains(types, it.Type)):
				c := conds[(p+k)%len(conds)]
				k++
				r := int(math.Round(base[it.Key] + bias + shift[c] + rng.NormFloat64()))
				if p == 7 {
					r = 4
				}
				fmt.Fprintf(&b, "%s,B1,%s,%s,%s,%d,\n", pid, it.Key, it.Type, c, max(1, min(7, r)))
			}
		}
	}
	return b.String()
}

// runToplinesR runs analyze toplines with --r on ratings and then the
// script, and checks R's toplines against pragmalab's JSON; it returns the
// directory and what R printed.
func runToplinesR(t *testing.T, ratings string, extra ...string) (dir, printed string, analysed, items int) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "r companion")
	args := append([]string{"analyze", "toplines", "--ratings", writeAnalyzeInput(t, "ratings.csv", ratings), "--json", "--bootstrap", "0", "--r", dir}, extra...)
	out, errs, code := analyzeCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "Rscript") {
		t.Errorf("stderr does not say how to run the script: %q", errs)
	}
	var got struct {
		Participants struct {
			Total    float64  `json:"total"`
			Analysed float64  `json:"analysed"`
			Excluded []string `json:"excluded"`
		} `json:"participants"`
		ByType     map[string]map[string]any `json:"by_type"`
		Conditions []string                  `json:"conditions"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	printed = runR(t, dir)
	c := &checker{t: t, r: readLong(t, filepath.Join(dir, "toplines_r.csv"))}
	c.same("participants|total", got.Participants.Total)
	c.same("participants|analysed", got.Participants.Analysed)
	c.same("participants|excluded", float64(len(got.Participants.Excluded)))
	// Only the measures of the conditions analysed: the R script reports
	// no others (docs/studies.md#conditions).
	measures := []string{"items", toplines.MImplicature, toplines.MCancellation, toplines.MBeliefUpdate}
	for _, m := range []struct{ cond, key string }{{domain.ConditionNegation, toplines.MNegation},
		{domain.ConditionStrengthen, toplines.MStrengthen}, {domain.ConditionNeutral, toplines.MUnchanged}} {
		if slices.Contains(got.Conditions, m.cond) {
			measures = append(measures, m.key)
		}
	}
	measures = append(measures, "pearson_r", "pearson_p", "pearson_n", "pearson_r_disattenuated", "reliability_trigger", "reliability_cancel")
	for _, typ := range append(append([]string(nil), domain.TableTypes...), domain.TypeAll) {
		for _, m := range measures {
			c.same(typ+"|"+m, got.ByType[typ][m])
		}
	}
	if want := 3 + 5*len(measures); c.n != want {
		t.Errorf("compared %d values, want %d", c.n, want)
	}
	if _, extra := c.r["all|"+toplines.MNegation]; extra != slices.Contains(got.Conditions, domain.ConditionNegation) {
		t.Errorf("R reported negation cancellation: %v, conditions analysed %v", extra, got.Conditions)
	}
	if !strings.Contains(printed, "0 differ by more than 1e-9") || strings.Contains(printed, "another status here") {
		t.Errorf("the script disagrees with pragmalab's own file:\n%s", printed)
	}
	return dir, printed, int(got.Participants.Analysed), int(got.ByType[domain.TypeAll]["items"].(float64))
}

// clmmStatus reads what the script wrote about the mixed model, and logs
// the convergence line it printed.
func clmmStatus(t *testing.T, dir, printed string) map[string]string {
	t.Helper()
	for _, l := range strings.Split(printed, "\n") {
		if strings.HasPrefix(l, "Convergence") {
			t.Log(l)
		}
	}
	return readLong(t, filepath.Join(dir, "clmm.csv"))
}

func TestRCompanionToplines(t *testing.T) {
	needR(t, true)
	// The demo crowd study's design: trigger and cancel (clmm's time grows
	// fast with the number of condition × type terms).
	ratings := demoCrowdRatings(t, 40, domain.DefaultCrowdSettings().Conditions)
	// P006 answers the checks at random but is kept; P002 is excluded
	// whatever their checks.
	dir, printed, analysed, items := runToplinesR(t, ratings, "--include", "P006", "--exclude", "P002")
	for _, name := range []string{"ratings.csv", "participants.csv", "settings.csv", "toplines_pragmalab.csv", "clmm_coefficients.csv"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
	st := clmmStatus(t, dir, printed)
	if st["converged"] != "TRUE" || st["formula"] != "ordered(rating) ~ condition * type + (1 | participant) + (1 | item)" {
		t.Errorf("clmm: %v\n%s", st, printed)
	}
	// Every analysed participant rated every item once.
	if analysed < 30 || items != 16 || st["ratings"] != strconv.Itoa(analysed*items) || st["participants"] != strconv.Itoa(analysed) || st["items"] != "16" {
		t.Errorf("clmm data: %v (pragmalab: %d analysed, %d items)", st, analysed, items)
	}
	for _, want := range []string{"Cumulative Link Mixed Model", "conditioncancel:typenatural", "Christensen", "optimiser code 0"} {
		if !strings.Contains(printed, want) {
			t.Errorf("R's output lacks %q:\n%s", want, printed)
		}
	}
	checkReliabilityR(t, dir, printed, ratings, "--include", "P006", "--exclude", "P002")
	script, _ := os.ReadFile(filepath.Join(dir, "analysis.R"))
	if !strings.Contains(string(script), "pragmalab analyze toplines --ratings ") || !strings.Contains(string(script), "--include P006 --exclude P002") {
		t.Errorf("the header does not give the command:\n%.800s", script)
	}
}

func TestRCompanionOneTypeDropsTheFactor(t *testing.T) {
	needR(t, true)
	// Every condition, so R's negation, strengthening and unchanged are
	// checked too.
	conds := []string{"trigger", "cancel", "negation", "strengthen", "neutral"}
	dir, printed, _, _ := runToplinesR(t, demoCrowdRatings(t, 24, conds, "scalar"))
	st := clmmStatus(t, dir, printed)
	if st["converged"] != "TRUE" || st["formula"] != "ordered(rating) ~ condition + (1 | participant) + (1 | item)" {
		t.Errorf("clmm: %v\n%s", st, printed)
	}
}

func TestRCompanionAgreement(t *testing.T) {
	needR(t, false)
	// Three annotators whose ids sort differently by bytes and by locale,
	// one a formula cell for a spreadsheet (the CSV quotes it, R must
	// unquote it); every fifth item judged by two only, some cancellations
	// unanswered.
	rng := rand.New(rand.NewPCG(5, 8))
	var b strings.Builder
	b.WriteString("annotator_id,item_id,item_type,plausible,cancellation_correct\n")
	types := []string{"scalar", "discourse", "natural"}
	for i := range 45 {
		for a, ann := range []string{"ann-b", "Ann-A", "@ann-c"} {
			if i%5 == 0 && a == 2 {
				continue
			}
			plaus, canc := "yes", "yes"
			if rng.IntN(5) == 0 {
				plaus = "no"
			}
			switch rng.IntN(6) {
			case 0:
				canc = ""
			case 1, 2:
				canc = "no"
			}
			fmt.Fprintf(&b, "%s,i%02d,%s,%s,%s\n", ann, i, types[i%3], plaus, canc)
		}
	}
	dir := filepath.Join(t.TempDir(), "r")
	out, errs, code := analyzeCLI(t, "", "analyze", "agreement", "--judgements", writeAnalyzeInput(t, "j.csv", b.String()), "--json", "--bootstrap", "0", "--r", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct {
		ByType     map[string]map[string]any `json:"by_type"`
		Conditions []string                  `json:"conditions"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	printed := runR(t, dir)
	c := &checker{t: t, r: readLong(t, filepath.Join(dir, "agreement_r.csv"))}
	for g, ag := range got.ByType {
		for _, q := range []string{"plausibility", "cancellation"} {
			pooled := ag[q].(map[string]any)
			if pooled["fleiss_items"] == nil { // omitted when 0
				pooled["fleiss_items"] = 0.0
			}
			for _, m := range []string{"items", "raw", "kappa", "pabak", "lights_kappa", "fleiss_kappa", "fleiss_items"} {
				c.same(g+"|||"+q+"|"+m, pooled[m])
			}
			for _, p := range ag["pairs"].([]any) {
				pair := p.(map[string]any)
				x := pair[q].(map[string]any)
				for _, m := range []string{"items", "raw", "kappa", "pabak"} {
					c.same(fmt.Sprintf("%s|%s|%s|%s|%s", g, pair["annotator_a"], pair["annotator_b"], q, m), x[m])
				}
			}
		}
	}
	if c.n != 4*2*(7+3*4) {
		t.Errorf("compared %d values over %d groups", c.n, len(got.ByType))
	}
	if !strings.Contains(printed, "0 differ by more than 1e-9") {
		t.Errorf("the script disagrees with pragmalab's own file:\n%s", printed)
	}
}

func TestRCompanionContext(t *testing.T) {
	needR(t, false)
	// Three surveys of 8 passages, three experts each but a few passages
	// with one or two answers; passages ending in 7 can show 4 sentences.
	rng := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	b.WriteString("annotator_id,survey_id,item_id,kind,period,sentences,sufficient,max_sentences\n")
	for s := range 3 {
		for i := range 8 {
			most := 5
			if i == 7 {
				most = 4
			}
			kind, period := []string{"Impl", "Ppp"}[i%2], []string{"1946–1972", "1994–2023"}[(i/2)%2]
			for e := range 3 - (i*s)%3 {
				n, suff := rng.IntN(most+1), "yes"
				if rng.IntN(4) == 0 {
					n, suff = most, "no"
				}
				fmt.Fprintf(&b, "e%d,S%d,p%d,%s,%s,%d,%s,%d\n", e+1, s+1, i, kind, period, n, suff, most)
			}
		}
	}
	dir := filepath.Join(t.TempDir(), "r")
	out, errs, code := analyzeCLI(t, "", "analyze", "context", "--answers", writeAnalyzeInput(t, "c.csv", b.String()), "--json", "--bootstrap", "0", "--r", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct {
		Surveys      map[string]map[string]any            `json:"surveys"`
		Overall      map[string]any                       `json:"overall"`
		ByKindPeriod map[string]map[string]map[string]any `json:"by_kind_period"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	// The periods' dashes are not ASCII: the script must read and write
	// them right even in the C locale.
	printed := runR(t, dir, "LC_ALL=C")
	c := &checker{t: t, r: readLong(t, filepath.Join(dir, "context_r.csv"))}
	check := func(prefix string, s map[string]any) {
		for _, m := range []string{"items", "judgements", "fleiss_kappa", "fleiss_items", "full_consensus", "majority_consensus", "consensus_items"} {
			c.same(prefix+"|"+m+"|", s[m])
		}
		for _, m := range []string{"cumulative_judgements", "cumulative_items"} {
			for k, v := range s[m].([]any) {
				c.same(fmt.Sprintf("%s|%s|%d", prefix, m, k), v)
			}
		}
	}
	check("overall|||", got.Overall)
	for id, s := range got.Surveys {
		check("survey|"+id+"||", s)
	}
	for kind, periods := range got.ByKindPeriod {
		for period, s := range periods {
			check("kind_period||"+kind+"|"+period, s)
		}
	}
	if groups := 1 + len(got.Surveys) + 2*3; c.n != groups*19 {
		t.Errorf("compared %d values, want %d", c.n, groups*19)
	}
	if !strings.Contains(printed, "0 differ by more than 1e-9") {
		t.Errorf("the script disagrees with pragmalab's own file:\n%s", printed)
	}
}

// TestRCompanionFiles checks what --r writes, without R: the rows with
// their input lines and statuses, the researcher's decisions, a header
// naming the command (an argument with a newline cannot end the comment),
// and no stale result of an earlier run.
func TestRCompanionFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, "toplines_r.csv")
	if err := os.WriteFile(stale, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	in := writeAnalyzeInput(t, "ratings.csv", cliRatings)
	_, errs, code := analyzeCLI(t, "", "analyze", "toplines", "--within-participant", "--ratings", in, "--bootstrap", "0",
		"--exclude", "p2,x\nstop()", "--r", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("a stale toplines_r.csv survived: %v", err)
	}
	read := func(name string) [][]string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return recs
	}
	rows := read("ratings.csv")
	if len(rows) != 16 || strings.Join(rows[0], ",") != strings.Join(report.AnalysedRatingsColumns, ",") {
		t.Fatalf("ratings.csv: %v", rows)
	}
	// Line 6 is p1's check; p2 excluded by the researcher, p3 by checks, p4 constant.
	want := map[int]string{1: "2,p1,s1,scalar,trigger,6,,analysed", 5: "6,p1,c1,,,6,high,analysed",
		6: "7,p2,s1,scalar,trigger,7,,excluded", 12: "13,p3,c1,,,1,high,excluded", 13: "14,p3,c2,,,7,low,excluded", 15: "16,p4,s1,scalar,trigger,4,,zero_variance"}
	for i, w := range want {
		if got := strings.Join(rows[i], ","); got != w {
			t.Errorf("ratings.csv row %d = %s, want %s", i, got, w)
		}
	}
	parts := read("participants.csv")
	if got := strings.Join(parts[2], ","); got != "p2,4,0,0,exclude,excluded,excluded by the researcher" {
		t.Errorf("participants.csv p2 = %s", got)
	}
	if got := strings.Join(parts[3], ","); got != "p3,2,3,3,,excluded,failed 3 of 3 attention checks" {
		t.Errorf("participants.csv p3 = %s", got)
	}
	script, err := os.ReadFile(filepath.Join(dir, "analysis.R"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(script), `--exclude "p2,x\nstop()" --r `) || strings.Contains(string(script), "\nstop()") {
		t.Errorf("the header does not quote the arguments:\n%.900s", script)
	}
}

// checkReliabilityR compares the R companion's crowd reliability with
// `analyze reliability --json` on the same ratings and decisions (issue
// 31): α (interval, ordinal), units and ratings per condition and pooled
// to 1e-9, and the split-half reliability over R's own random splits
// within 0.02 and within the Monte Carlo error the script reports.
func checkReliabilityR(t *testing.T, dir, printed, ratings string, decisions ...string) {
	t.Helper()
	args := append([]string{"analyze", "reliability", "--ratings", writeAnalyzeInput(t, "ratings.csv", ratings), "--json", "--bootstrap", "0"}, decisions...)
	out, errs, code := analyzeCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("analyze reliability: exit %d: %s", code, errs)
	}
	var rel modelhuman.CrowdReliability
	if err := json.Unmarshal([]byte(out), &rel); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(rel.Alpha) < 3 {
		t.Fatalf("want two conditions and the pool, got %d groups", len(rel.Alpha))
	}
	r := readLong(t, filepath.Join(dir, "reliability_r.csv"))
	c := &checker{t: t, r: r}
	for i, a := range rel.Alpha {
		g := a.Condition
		c.same(g+"|units", float64(a.Units))
		c.same(g+"|ratings", float64(a.Ratings))
		c.same(g+"|alpha_interval", *a.Interval)
		c.same(g+"|alpha_ordinal", *a.Ordinal)
		c.same(g+"|split_half_units", float64(rel.SplitHalf[i].Units))
		got, err := strconv.ParseFloat(r[g+"|split_half_reliability"], 64)
		if want := *rel.SplitHalf[i].Reliability; err != nil || math.Abs(got-want) > 0.02 {
			t.Errorf("%s: R's split-half reliability %q, pragmalab's %.4f", g, r[g+"|split_half_reliability"], want)
		}
	}
	if strings.Count(printed, "Split-half reliability, ") != len(rel.Alpha) || strings.Contains(printed, "NOT within") {
		t.Errorf("the script's split-half comparison:\n%s", printed)
	}
	if strings.Count(printed, "0 differ by more than 1e-9") < 2 {
		t.Errorf("the script's own comparison of α with pragmalab's file:\n%s", printed)
	}
}
