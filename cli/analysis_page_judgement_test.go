package cli

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"pragmalab/analysis"
	"pragmalab/analysis/report"
	"pragmalab/domain"
	"pragmalab/store/storetest"
	"pragmalab/web"
)

// adminSession is a logged-in researcher's browser on a test server.
type adminSession struct {
	t    *testing.T
	base string
	hc   *http.Client
}

func (a *adminSession) get(path string) (int, string) {
	a.t.Helper()
	resp, err := a.hc.Get(a.base + path)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// serveStudies starts the server (with the R companion) over the
// fixture's database and logs a researcher in.
func serveStudies(t *testing.T, f *storetest.JudgementFixture) *adminSession {
	t.Helper()
	ctx := context.Background()
	a := newApp(f.DB, nil)
	srv, err := web.New(ctx, web.Config{DB: f.DB, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Getenv: func(string) string { return "" },
		RCompanion: RCompanionZip(a.Service)})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	if _, err := f.DB.CreateAdminWithRole(ctx, "researcher", "correct horse battery", domain.RoleOwner); err != nil {
		t.Fatal(err)
	}
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar}
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/admin/login", strings.NewReader(url.Values{"username": {"researcher"}, "password": {"correct horse battery"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", ts.URL)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return &adminSession{t: t, base: ts.URL, hc: hc}
}

// judgementRatings has the fixture's participants rate: the target
// sentences lower than the controls, each participant and item a little
// apart; participant 5 fails both checks and is excluded; participant 12
// rates the first seven sentences 3 in a row.
func judgementRatings(f *storetest.JudgementFixture, t *testing.T, n int) {
	for p := range n {
		f.Complete(t, func(item, cond string) int {
			switch {
			case p == 12 && item == "s08":
				return 4
			case p == 12 && item[0] == 's':
				return 3
			case item == "chk-high" && p == 5:
				return 1
			case item == "chk-low" && p == 5:
				return 5
			case item == "chk-high":
				return 5
			case item == "chk-low":
				return 1
			}
			k := int(item[len(item)-1]-'0') + p
			if cond == "kontrolle" {
				return 3 + k%3
			}
			return 1 + (k*7)%3
		})
	}
}

// commandArgs returns the arguments of the printed command on the page in
// the element with that data-testid, the export in place of ratings.csv.
func commandArgs(t *testing.T, body, testid, cmd, export string) []string {
	t.Helper()
	re := regexp.MustCompile(`<code[^>]*>(pragmalab analyze ` + cmd + ` [^<]*)</code>`)
	if testid != "" {
		re = regexp.MustCompile(`<code data-testid="` + testid + `">([^<]*)</code>`)
	}
	m := re.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no printed %s command on the page", cmd)
	}
	args := strings.Fields(html.UnescapeString(m[1]))[1:]
	for k, a := range args {
		if a == "ratings.csv" {
			args[k] = export
		}
	}
	return args
}

// TestJudgementAnalysisPageIsAnalyzeConditions: the Analysis page of a
// judgement study shows what `analyze conditions` prints for the study's
// own export with the command the page prints — the same conditions and
// means — and speaks of no implicature, belief, cancellation or item type
// (docs/studies.md#judgement-analysis). Its German methods, its plan
// command and its R companion are those of the same command.
func TestJudgementAnalysisPageIsAnalyzeConditions(t *testing.T) {
	f := storetest.NewJudgementFixture(t, 8)
	// The study's data-quality rule: 6 equal ratings in a row exclude.
	f.Set.ExcludeRun = 6
	if err := f.DB.SaveCrowdSettings(context.Background(), f.ID, f.Set); err != nil {
		t.Fatal(err)
	}
	admin := serveStudies(t, f)
	base := "/admin/studies/" + strconv.FormatInt(f.ID, 10)
	if _, page := admin.get(base + "/analysis"); !strings.Contains(page, `data-testid="analysis-empty"`) || !strings.Contains(page, "No participant has completed a batch yet.") {
		t.Errorf("before any participant the page does not say there is nothing yet:\n%s", page)
	}
	judgementRatings(f, t, 13)

	code, page := admin.get(base + "/analysis")
	if code != 200 {
		t.Fatalf("analysis page: %d\n%s", code, page)
	}
	for _, banned := range []string{"implicature", "belief", "cancellation", "item type", "item_type", ">Type<"} {
		if strings.Contains(strings.ToLower(page), strings.ToLower(banned)) {
			t.Errorf("the judgement study's analysis page says %q", banned)
		}
	}
	code, export := admin.get(base + "/export/ratings.csv")
	if code != 200 {
		t.Fatalf("export: %d", code)
	}
	path := filepath.Join(t.TempDir(), "ratings.csv")
	if err := os.WriteFile(path, []byte(export), 0o644); err != nil {
		t.Fatal(err)
	}
	args := commandArgs(t, page, "", "conditions", path)
	for _, want := range []string{"--max-failed", "--high-pass", "--low-pass", "--scale-points", "--conditions"} {
		if !strings.Contains(strings.Join(args, " "), want) {
			t.Errorf("printed command %v lacks %s", args, want)
		}
	}
	out, errOut, ec := analyzeCLI(t, "", append(args, "--json")...)
	if ec != 0 {
		t.Fatalf("printed command: exit %d: %s", ec, errOut)
	}
	var res struct {
		Participants struct {
			Excluded []string `json:"excluded"`
		} `json:"participants"`
		Conditions []struct {
			Name         string       `json:"condition"`
			MeanRating   *float64     `json:"mean_rating"`
			MeanRatingCI *analysis.CI `json:"mean_rating_ci95"`
			MeanZ        *float64     `json:"mean_z"`
			MeanZCI      *analysis.CI `json:"mean_z_ci95"`
		} `json:"conditions"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Conditions) != 2 || res.Conditions[0].Name != "kontrolle" || res.Conditions[1].Name != "zielsatz" {
		t.Fatalf("conditions of the command: %+v", res.Conditions)
	}
	// The one failing both checks, and the one the study's rule excludes:
	// the printed command names them, as the export cannot tell.
	if len(res.Participants.Excluded) != 2 || !strings.Contains(page, "the study&#39;s data-quality rules: 7 identical ratings in a row (rule: 6)") {
		t.Errorf("the command excludes %v; the page says it excludes the participant failing both checks and the one rating 7 alike in a row", res.Participants.Excluded)
	}
	if *res.Conditions[0].MeanRating <= *res.Conditions[1].MeanRating {
		t.Errorf("the controls were rated higher: %v vs %v", *res.Conditions[0].MeanRating, *res.Conditions[1].MeanRating)
	}
	rowRE := regexp.MustCompile(`(?s)<tr data-testid="condition_means-row-(\d)">(.*?)</tr>`)
	rows := rowRE.FindAllStringSubmatch(page, -1)
	if len(rows) != 2 {
		t.Fatalf("the page shows %d condition rows", len(rows))
	}
	for k, c := range res.Conditions {
		cells := html.UnescapeString(rows[k][2])
		for _, want := range []string{">" + c.Name + "<", report.Text(analysis.Est{V: c.MeanRating, CI: c.MeanRatingCI}), report.Text(analysis.Est{V: c.MeanZ, CI: c.MeanZCI})} {
			if !strings.Contains(cells, want) {
				t.Errorf("page row %d lacks %q of the command's output:\n%s", k, want, cells)
			}
		}
	}
	for _, want := range []string{`data-testid="table-condition_distribution"`, `data-testid="table-condition_differences"`,
		`data-testid="table-crowd_alpha"`, `data-testid="table-split_half"`, `data-testid="table-condition_plan"`,
		`data-testid="figure-`, `data-testid="r-companion"`, `data-testid="methods-de-txt"`, "zielsatz − kontrolle"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}

	// The printed reliability command gives the page's α.
	m := regexp.MustCompile(`Reliability as (pragmalab analyze reliability [^<]*) computes it\.`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no printed reliability command on the page")
	}
	rargs := strings.Fields(html.UnescapeString(m[1]))[1:]
	for k, a := range rargs {
		if a == "ratings.csv" {
			rargs[k] = path
		}
	}
	out, errOut, ec = analyzeCLI(t, "", append(rargs, "--json")...)
	if ec != 0 {
		t.Fatalf("printed reliability command: exit %d: %s", ec, errOut)
	}
	var rel struct {
		Alpha []struct {
			Condition  string       `json:"condition"`
			Interval   *float64     `json:"alpha_interval"`
			IntervalCI *analysis.CI `json:"alpha_interval_ci95"`
		} `json:"alpha"`
	}
	if err := json.Unmarshal([]byte(out), &rel); err != nil {
		t.Fatal(err)
	}
	alphaRows := regexp.MustCompile(`(?s)<tr data-testid="crowd_alpha-row-(\d)">(.*?)</tr>`).FindAllStringSubmatch(page, -1)
	if len(rel.Alpha) != 3 || len(alphaRows) != 3 {
		t.Fatalf("α rows: command %d, page %d", len(rel.Alpha), len(alphaRows))
	}
	for k, a := range rel.Alpha {
		if want := report.Text(analysis.Est{V: a.Interval, CI: a.IntervalCI}); !strings.Contains(html.UnescapeString(alphaRows[k][2]), want) || !strings.Contains(alphaRows[k][2], ">"+a.Condition+"<") {
			t.Errorf("α of %s: the command gives %s, the page shows %s", a.Condition, want, alphaRows[k][2])
		}
	}

	// The German methods download is the command's --methods text --lang de.
	_, de := admin.get(base + "/analysis/methods-de.txt")
	cliDE, errOut, ec := analyzeCLI(t, "", append(args, "--methods", "text", "--lang", "de")...)
	if ec != 0 {
		t.Fatalf("methods de: exit %d: %s", ec, errOut)
	}
	if de != cliDE {
		t.Errorf("German methods differ:\n--- page\n%s\n--- command\n%s", de, cliDE)
	}

	// The printed plan command plans from the export with the same rules.
	pargs := commandArgs(t, page, "plan-command", "plan", path)
	for k, a := range pargs {
		if a == "N" {
			pargs[k] = "24,48"
		}
	}
	out, errOut, ec = analyzeCLI(t, "", append(pargs, "--json", "--draws", "2")...)
	if ec != 0 {
		t.Fatalf("printed plan command %v: exit %d: %s", pargs, ec, errOut)
	}
	var pl struct {
		Pilot struct {
			Analysed int `json:"analysed"`
		} `json:"pilot"`
		Plans []struct {
			Participants int `json:"participants"`
			Differences  []struct {
				Condition string   `json:"condition"`
				Versus    string   `json:"versus"`
				Width     *float64 `json:"mean_rating_difference_width"`
			} `json:"differences"`
		} `json:"plans"`
	}
	if err := json.Unmarshal([]byte(out), &pl); err != nil {
		t.Fatal(err)
	}
	if pl.Pilot.Analysed != 11 || len(pl.Plans) != 2 || len(pl.Plans[0].Differences) != 1 || pl.Plans[0].Differences[0].Condition != "zielsatz" {
		t.Fatalf("plan: %s", out)
	}
	if w0, w1 := pl.Plans[0].Differences[0].Width, pl.Plans[1].Differences[0].Width; w0 == nil || w1 == nil || *w1 >= *w0 {
		t.Errorf("twice the participants do not narrow the difference's interval: %v, %v", w0, w1)
	}

	// The R companion is the command's, on the same rows.
	code, z := admin.get(base + "/analysis/r-companion.zip")
	if code != 200 {
		t.Fatalf("R companion: %d", code)
	}
	zr, err := zip.NewReader(bytes.NewReader([]byte(z)), int64(len(z)))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, zf := range zr.File {
		names[filepath.Base(zf.Name)] = true
	}
	for _, want := range []string{"analysis.R", "ratings.csv", "conditions_pragmalab.csv", "conditions_order.csv"} {
		if !names[want] {
			t.Errorf("R companion lacks %s: %v", want, names)
		}
	}
	t.Run("R reproduces the page", func(t *testing.T) {
		needR(t, true)
		dir := t.TempDir()
		for _, zf := range zr.File {
			rc, err := zf.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, filepath.Base(zf.Name)), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if out := runR(t, dir); !strings.Contains(out, " 0 differ by more than 1e-9 or in being undefined") {
			t.Errorf("R does not reproduce the page's numbers:\n%s", out)
		}
	})
}
