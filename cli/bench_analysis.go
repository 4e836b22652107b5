package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"pragmalab/domain"
	"pragmalab/studies"
	"pragmalab/web"
)

const benchAnalysisUsage = `Usage: pragmalab bench analysis [options]

Seed a crowd study of the paper's size (271 items in batches of 30 plus 10
attention checks, 5 participants per batch, each item rated in both
conditions: 90 participants), then time one analysis of it (toplines with
the 2,000-replicate bootstrap intervals, tables and figures, as a fresh
server computes it) and one Analysis page load with its figures (the page
and each figure's SVG, in process through the HTTP handler, on a fresh
server). The target: the page with its figures in under 2x the CPU time of
one analysis, since they share one computation (wall times are printed too;
on a machine shared with other work they mostly measure the others).

Options:
`

// benchAnalysisTarget is the page-with-figures to one-analysis ratio to stay under.
const benchAnalysisTarget = 2.0

// benchFigureSrc finds the figures' images on an Analysis page.
var benchFigureSrc = regexp.MustCompile(`<img src="(/admin/studies/\d+/analysis/plots/[^"]+\.svg)"`)

func benchAnalysis(ctx context.Context, args []string, env *Env) error {
	fs := newFlagSet("bench analysis", benchAnalysisUsage, env)
	items := fs.Int("items", 271, "data items of the crowd study (participants: 5 per batch of 30, each item in both conditions)")
	runs := fs.Int("runs", 5, "timed runs (medians are reported)")
	seed := fs.Uint64("seed", 1, "random seed of the batches and the ratings")
	dbPath := fs.String("db", "", "seed into this new database file and keep it (default: a temporary file, removed)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *runs < 1 {
		return usagef("bench analysis: --runs must be at least 1")
	}
	if *items < 30 {
		return usagef("bench analysis: --items must be at least 30 (one batch)")
	}
	file, cleanup, err := benchAnalysisFile(*dbPath)
	if err != nil {
		return err
	}
	defer cleanup()
	// Synchronous NORMAL: the seeding need not survive a power cut.
	svc, newServer, err := openService(ctx, file, studies.OpenOptions{Synchronous: "NORMAL"})
	if err != nil {
		return err
	}
	defer svc.Close()
	start := time.Now()
	crowd, err := svc.seed().SeedBenchCrowd(ctx, *items, *seed)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "analysis benchmark: crowd study of %d items, %d participants, %d ratings (seeded in %.1f s); %d CPUs\n",
		crowd.Items, crowd.Participants, crowd.Ratings, time.Since(start).Seconds(), runtime.NumCPU())
	if _, err := svc.store.CreateAdminWithRole(ctx, "bench", "bench analysis password", domain.RoleOwner); err != nil {
		return err
	}
	var t analysisTimes
	for i := range *runs {
		compute, computeCPU, err := timeAnalysis(ctx, svc, crowd.StudyID)
		if err != nil {
			return err
		}
		page, pageCPU, err := timeAnalysisPage(ctx, newServer, crowd.StudyID)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "  run %d: one analysis %.3f s wall, %.3f s CPU; page + %d figures %.3f s wall, %.3f s CPU (ratio %.2f wall, %.2f CPU)\n",
			i+1, compute.Seconds(), computeCPU.Seconds(), page.figures, page.wall.Seconds(), pageCPU.Seconds(),
			page.wall.Seconds()/compute.Seconds(), pageCPU.Seconds()/computeCPU.Seconds())
		t.figures = page.figures
		t.computes, t.pages = append(t.computes, compute), append(t.pages, page.wall)
		t.computesCPU, t.pagesCPU = append(t.computesCPU, computeCPU), append(t.pagesCPU, pageCPU)
	}
	t.report(env)
	return nil
}

// benchAnalysisFile is the database file to seed: path, which must not
// exist yet, or else a file in a temporary directory that cleanup removes.
func benchAnalysisFile(path string) (file string, cleanup func(), err error) {
	if path != "" {
		if _, err := os.Stat(path); err == nil {
			return "", nil, usagef("bench analysis: %s exists; name a new file", path)
		}
		return path, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "pragmalab-bench-analysis-")
	if err != nil {
		return "", nil, err
	}
	return filepath.Join(dir, "bench.db"), func() { os.RemoveAll(dir) }, nil
}

// timeAnalysis times one analysis with its figures, as a server that has
// not computed it yet does it: wall and CPU time.
func timeAnalysis(ctx context.Context, svc *app, studyID int64) (wall, cpu time.Duration, err error) {
	runtime.GC()
	c0, t0 := cpuTime(), time.Now()
	_, a, err := svc.Restarted().Analysis(ctx, studyID)
	if err != nil {
		return 0, 0, err
	}
	if a.Problem != nil || a.Empty != "" {
		return 0, 0, fmt.Errorf("bench analysis: the seeded study has no analysis: %v %s", a.Problem, a.Empty)
	}
	if _, err := a.Figures(); err != nil {
		return 0, 0, err
	}
	return time.Since(t0), cpuTime() - c0, nil
}

// pageTime is the wall time of the Analysis page with its figures, and
// how many figures it shows.
type pageTime struct {
	wall    time.Duration
	figures int
}

// timeAnalysisPage times the Analysis page and each of its figures on a
// fresh server, logged in: wall and CPU time.
func timeAnalysisPage(ctx context.Context, newServer newServerFunc, studyID int64) (pageTime, time.Duration, error) {
	srv, err := newServer(ctx, web.Config{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), EntryLimit: -1})
	if err != nil {
		return pageTime{}, 0, err
	}
	cookies, err := benchLogin(srv)
	if err != nil {
		return pageTime{}, 0, err
	}
	runtime.GC()
	c1, t1 := cpuTime(), time.Now()
	body, err := benchGet(srv, fmt.Sprintf("/admin/studies/%d/analysis", studyID), cookies, "text/html")
	if err != nil {
		return pageTime{}, 0, err
	}
	srcs := benchFigureSrc.FindAllStringSubmatch(body, -1)
	for _, m := range srcs {
		if _, err := benchGet(srv, m[1], cookies, "image/svg+xml"); err != nil {
			return pageTime{}, 0, err
		}
	}
	page, pageCPU := time.Since(t1), cpuTime()-c1
	if len(srcs) == 0 {
		return pageTime{}, 0, fmt.Errorf("bench analysis: the Analysis page shows no figure")
	}
	return pageTime{wall: page, figures: len(srcs)}, pageCPU, nil
}

// analysisTimes are the timed runs of bench analysis.
type analysisTimes struct {
	computes, pages, computesCPU, pagesCPU []time.Duration
	figures                                int
}

// report prints the medians and the verdict, which is on CPU time: on a
// machine shared with other work the wall times mostly measure the others.
func (t *analysisTimes) report(env *Env) {
	c, p, cc, pc := median(t.computes), median(t.pages), median(t.computesCPU), median(t.pagesCPU)
	ratio, ratioCPU := p.Seconds()/c.Seconds(), pc.Seconds()/cc.Seconds()
	verdict := "within"
	if ratioCPU >= benchAnalysisTarget {
		verdict = "OVER"
	}
	fmt.Fprintf(env.stdout, "median: one analysis %.3f s wall, %.3f s CPU; Analysis page + %d figures %.3f s wall, %.3f s CPU: ratio %.2f wall, %.2f CPU (target < %.0f in CPU time): %s target\n",
		c.Seconds(), cc.Seconds(), t.figures, p.Seconds(), pc.Seconds(), ratio, ratioCPU, benchAnalysisTarget, verdict)
}

// median returns the median of ds (sorting them).
func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// cpuTime is the CPU time (user and system) this process has used: on a
// machine shared with other work it varies less than the wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchLogin logs the benchmark's admin in and returns the session cookies.
func benchLogin(h http.Handler) ([]*http.Cookie, error) {
	form := url.Values{"username": {"bench"}, "password": {"bench analysis password"}}
	req := httptest.NewRequest(http.MethodPost, "/admin/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusSeeOther || len(rec.Result().Cookies()) == 0 {
		return nil, fmt.Errorf("bench analysis: login: status %d", rec.Code)
	}
	return rec.Result().Cookies(), nil
}

// benchGet requests path as the logged-in admin and checks the answer.
func benchGet(h http.Handler, path string, cookies []*http.Cookie, ctype string) (string, error) {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	for _, c := range cookies {
		req.AddCookie(c)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), ctype) {
		return "", fmt.Errorf("bench analysis: GET %s: status %d, %s: %.200s", path, rec.Code, rec.Header().Get("Content-Type"), rec.Body.String())
	}
	return rec.Body.String(), nil
}
