package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"pragmalab/cli/seed"
	"pragmalab/domain"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"pragmalab/studies"
	"pragmalab/web"
)

const benchLoadUsage = `Usage: pragmalab bench load [options]

N simulated Prolific participants arrive at once at a crowd study served on
127.0.0.1 (the real server, a real SQLite file), each from a Prolific URL:
consent, the six training items, then a whole batch of 40 screens (30 items
and 10 attention checks), every answer a POST followed by the next screen.
Reports answers/s and the latency of the answer posts, then checks the
database: every acknowledged answer stored exactly once, none lost.

`

// loadFlags are the flags bench load and bench ceiling share.
type loadFlags struct {
	n          *int
	think      *time.Duration
	ramp       *time.Duration
	dbPath     *string
	cpuprofile *string
	memprofile *string
	killAfter  *int
	sync       *string
	ceiling    *bool
	ceilSync   *string
}

func addLoadFlags(fs *flag.FlagSet) loadFlags {
	return loadFlags{
		n:          fs.Int("participants", 500, "simulated participants, all concurrent"),
		think:      fs.Duration("think", 200*time.Millisecond, "a participant's pause before each answer (±50 %, random); 0: as fast as the server answers"),
		ramp:       fs.Duration("ramp", time.Second, "participants arrive at random moments within this time (0: all at the same instant)"),
		dbPath:     fs.String("db", "", "database file to create (default: a new file in a temporary directory, removed after)"),
		cpuprofile: fs.String("cpuprofile", "", "write a CPU profile of the run to this file: the server's side only, the simulated participants' samples left out"),
		memprofile: fs.String("memprofile", "", "write the allocations the server made during the run to this file (a heap profile: pprof -sample_index alloc_space or alloc_objects), and print them per answer"),
		killAfter:  fs.Int("kill-after", 0, "crash test: run the server as a child process and kill it (SIGKILL) after this many acknowledged answers, then restart it on the same database"),
		sync:       fs.String("synchronous", "FULL", "how the server makes an answer durable: FULL (SQLite synchronous=FULL, as pragmalab serve runs), PIPELINED (NORMAL, and the log synced beside the writer before the answer is acknowledged: the same guarantee) or NORMAL (no sync: to measure what durability costs); bench ceiling: FULL or NORMAL"),
		ceiling:    fs.Bool("ceiling", false, "bench load: also run bench ceiling with the same flags after the run and print the figures as a ratio of it"),
		ceilSync:   fs.String("ceiling-synchronous", "", "bench load --ceiling: the ceiling's --synchronous (default: the run's; FULL for PIPELINED)"),
	}
}

// check validates the shared flags; name is the command's.
func (f loadFlags) check(name string) error {
	if *f.n < 1 || *f.n > 100000 {
		return usagef("%s: --participants must be 1–100000", name)
	}
	*f.sync, *f.ceilSync = strings.ToUpper(*f.sync), strings.ToUpper(*f.ceilSync)
	if *f.sync != "FULL" && *f.sync != "NORMAL" && (*f.sync != "PIPELINED" || name != "bench load") {
		return usagef("%s: --synchronous must be FULL, NORMAL or (bench load) PIPELINED, got %q", name, *f.sync)
	}
	if *f.ceilSync == "" {
		*f.ceilSync = strings.Replace(*f.sync, "PIPELINED", "FULL", 1)
	}
	if *f.ceilSync != "FULL" && *f.ceilSync != "NORMAL" {
		return usagef("%s: --ceiling-synchronous must be FULL or NORMAL, got %q", name, *f.ceilSync)
	}
	if *f.killAfter > 0 && *f.sync != "FULL" {
		return usagef("%s: --kill-after runs pragmalab serve, which always uses synchronous FULL", name)
	}
	if *f.dbPath != "" {
		if _, err := os.Stat(*f.dbPath); err == nil {
			return usagef("%s: --db %s exists; give a new file", name, *f.dbPath)
		}
	}
	return nil
}

// dbFile is --db, or a new file in a temporary directory and the function
// that removes it.
func (f loadFlags) dbFile(prefix string) (string, func(), error) {
	if *f.dbPath != "" {
		return *f.dbPath, func() {}, nil
	}
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return "", nil, err
	}
	return filepath.Join(dir, "load.db"), func() { os.RemoveAll(dir) }, nil
}

// benchLoad is `pragmalab bench load`.
func benchLoad(ctx context.Context, args []string, env *Env) error {
	fs := newFlagSet("bench load", benchLoadUsage, env)
	f := addLoadFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := f.check("bench load"); err != nil {
		return err
	}
	if *f.ceiling && (*f.killAfter > 0 || *f.dbPath != "" || *f.cpuprofile != "" || *f.memprofile != "") {
		return usagef("bench load: --ceiling goes with neither --kill-after, --db, --cpuprofile nor --memprofile")
	}
	if *f.killAfter > 0 && (*f.cpuprofile != "" || *f.memprofile != "") {
		return usagef("bench load: --kill-after runs the server in a child process, which --cpuprofile and --memprofile do not profile")
	}
	// The server runs in this process, with pragmalab serve's collector
	// settings (and so does the ceiling after it, with --ceiling).
	tuneGC()
	file, cleanup, err := f.dbFile("pragmalab-bench-load-")
	if err != nil {
		return err
	}
	defer cleanup()
	svc, newServer, err := openService(ctx, file, studies.OpenOptions{Synchronous: *f.sync})
	if err != nil {
		return err
	}
	defer svc.Close()
	study, err := setupLoadStudy(ctx, svc, *f.n)
	if err != nil {
		return err
	}
	if *f.killAfter > 0 {
		return benchLoadCrash(ctx, env, svc, file, study, *f.n, *f.think, *f.ramp, *f.killAfter)
	}
	srv, err := newServer(ctx, web.Config{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), EntryLimit: -1})
	if err != nil {
		return err
	}
	addr, shutdown, err := serveLoopback(ctx, srv)
	if err != nil {
		return err
	}
	defer shutdown()

	fmt.Fprintf(env.stdout, "bench load: %d participants, batches of 40 screens (30 items + 10 checks), %s think time before each answer, arrivals over %s, synchronous %s, server http://%s, database %s\n",
		*f.n, *f.think, *f.ramp, *f.sync, addr, file)
	run := newLoadRun("http://"+addr, study, *f.n)
	run.think, run.ramp = *f.think, *f.ramp
	prof, err := f.startProfile()
	if err != nil {
		return err
	}
	wall := run.runInProcess(ctx)
	if err := prof.stop(); err != nil {
		return err
	}
	rep, err := run.verifyStudy(ctx, svc, study.ID)
	if err != nil {
		return err
	}
	fig := run.report(env.stdout, wall, rep)
	prof.report(env.stdout, len(run.answerLat))
	verdict := "met"
	if fig.steadyRate < 2000 || fig.steadyP99 >= 100*time.Millisecond || rep.lost > 0 {
		verdict = "NOT met"
	}
	if fig.steadyRate > 0 {
		fmt.Fprintf(env.stdout, "target with all participants answering (>= 2000 answers/s, p99 < 100 ms, 0 lost): %s\n", verdict)
	}
	printWriteQueue(ctx, env.stdout, svc, wall)
	if rep.lost > 0 || rep.duplicated > 0 || run.failed.Load() > 0 {
		return fmt.Errorf("bench load: %d answers lost, %d duplicated, %d participants failed", rep.lost, rep.duplicated, run.failed.Load())
	}
	if *f.ceiling {
		shutdown()
		fmt.Fprintln(env.stdout)
		cf := f
		cf.sync = cf.ceilSync
		ceil, err := runCeiling(ctx, env, cf)
		if err != nil {
			return err
		}
		printRatio(env.stdout, fig, ceil)
	}
	return nil
}

// printRatio prints a load run's figures as a share of the ceiling
// measured in the same run.
func printRatio(w io.Writer, load, ceil loadFigures) {
	fmt.Fprintf(w, "\nbench load as a ratio of the ceiling measured in this run: whole run %.2f (%.0f / %.0f answers/s)",
		load.rate/ceil.rate, load.rate, ceil.rate)
	if load.steadyRate > 0 && ceil.steadyRate > 0 {
		fmt.Fprintf(w, ", steady state %.2f (%.0f / %.0f answers/s)", load.steadyRate/ceil.steadyRate, load.steadyRate, ceil.steadyRate)
	}
	fmt.Fprintf(w, "; answer POST p99 %s against the ceiling's %s\n", ms(load.p99), ms(ceil.p99))
	if load.cpuPerAnswer > 0 && ceil.cpuPerAnswer > 0 && load.requestsPerAnswer > 0 {
		// Both runs keep the two cores busy, so their rates stand as
		// their CPU an answer does, and an answer's CPU is its requests
		// times their cost: even requests no dearer than the ceiling's
		// leave the ratio at its requests an answer over the app's.
		fmt.Fprintf(w, "CPU an answer: %.0f µs against the ceiling's %.0f µs (%.2f); HTTP requests an answer: %.2f against %.2f, so requests as cheap as the ceiling's would give %.2f; a request costs %.0f µs against %.0f µs\n",
			us(load.cpuPerAnswer), us(ceil.cpuPerAnswer), float64(ceil.cpuPerAnswer)/float64(load.cpuPerAnswer),
			load.requestsPerAnswer, ceil.requestsPerAnswer, ceil.requestsPerAnswer/load.requestsPerAnswer,
			load.cpuPerRequest(), ceil.cpuPerRequest())
	}
}

// benchLoadCrash is bench load with the server in a child process that is
// killed mid-run and restarted.
func benchLoadCrash(ctx context.Context, env *Env, svc *app, file string, study loadStudy, n int, think, ramp time.Duration, killAfter int) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "bench load (crash test): %d participants, server %s serve --addr %s --db %s\n", n, self, addr, file)
	run := newLoadRun("http://"+addr, study, n)
	run.think, run.ramp = think, ramp
	newCmd := func() *exec.Cmd {
		// Every simulated participant comes from this machine's address:
		// the limit on arrivals per address is off, as in the in-process run.
		cmd := exec.Command(self, "serve", "--addr", addr, "--db", file, "--demo=false", "--entry-limit", "0")
		cmd.Stdout, cmd.Stderr = io.Discard, env.stderr
		return cmd
	}
	start := time.Now()
	if err := crashRun(ctx, run, newCmd, addr, killAfter, env.stdout); err != nil {
		return err
	}
	wall := time.Since(start)
	rep, err := run.verifyStudy(ctx, svc, study.ID)
	if err != nil {
		return err
	}
	run.report(env.stdout, wall, rep)
	resumed := run.checkResumed()
	fmt.Fprintf(env.stdout, "participants who met the dead server: %d; all resumed where they were: %v\n", len(run.resumed), resumed == nil)
	if rep.lost > 0 || rep.duplicated > 0 || run.failed.Load() > 0 || rep.completed != n || resumed != nil {
		return fmt.Errorf("bench load: crash test failed: %d lost, %d duplicated, %d completed of %d, %d participants failed; %v",
			rep.lost, rep.duplicated, rep.completed, n, run.failed.Load(), resumed)
	}
	return nil
}

// loadStudy is the study a load run targets.
type loadStudy struct {
	ID       int64
	Training []string // per training screen, the condition: trigger or cancel
	Screens  int
}

// setupLoadStudy makes a crowd study with enough batches of 30 items + 10
// checks for n participants at the default quota of 5.
func setupLoadStudy(ctx context.Context, svc *app, n int) (loadStudy, error) {
	s := &domain.Study{Kind: domain.KindCrowd, Name: "Load benchmark", Lang: "en", Seed: 1}
	set := domain.DefaultCrowdSettings()
	set.CompletionCode = "BENCH"
	// Every virtual participant comes from this machine's one address.
	set.PlacesPerAddress = 0
	sets := (n + 2*set.Quota - 1) / (2 * set.Quota) // two batches of 5 participants per set
	types := domain.ItemTypes
	var items []domain.Item
	for i := range sets*set.BatchSize + 6 {
		items = append(items, domain.Item{
			Key: fmt.Sprintf("load%05d", i), Type: types[i%4],
			Context:     "S1: Do you need help with anything?",
			Utterance:   fmt.Sprintf("S2: I think C was looking for someone to do task %d.", i),
			Implicature: fmt.Sprintf("You can help by doing task %d for C.", i), Cancellation: "S2: Though they must be done by now.",
		})
	}
	for i := range 10 {
		c := "high"
		if i%2 == 1 {
			c = "low"
		}
		items = append(items, domain.Item{Key: fmt.Sprintf("check%d", i), Type: "synthetic", Utterance: "u", Implicature: "b", Cancellation: "x", Check: c})
	}
	b, err := svc.seed().SeedCrowdStudy(ctx, s, items, set)
	if err != nil {
		return loadStudy{}, err
	}
	if b.Sizes[set.BatchSize] != b.Batches {
		return loadStudy{}, fmt.Errorf("bench load: batches %v, want all of %d items", b.Sizes, set.BatchSize)
	}
	training, err := svc.seed().CrowdTrainingConditions(ctx, s.ID)
	if err != nil {
		return loadStudy{}, err
	}
	return loadStudy{ID: s.ID, Screens: set.BatchSize + 10, Training: training}, nil
}

// loadRun is one run of simulated participants against a server.
type loadRun struct {
	base   string
	study  loadStudy
	n      int
	client *http.Transport
	think  time.Duration
	ramp   time.Duration

	mu        sync.Mutex
	answerLat []time.Duration // answer posts
	answerAt  []time.Time     // when each was sent
	firstOf   []time.Time     // per participant: first answer sent
	lastOf    []time.Time     // per participant: last answer acknowledged
	screenLat []time.Duration // screen gets
	arriveLat []time.Duration // consent and training posts
	acked     []map[int]int   // per participant: position → rating acknowledged
	firstAns  time.Time
	lastAns   time.Time
	requests  atomic.Int64
	failed    atomic.Int64
	errs      []error
	// cpu is the CPU this process used during the run, when the server
	// runs in it too (bench load without --kill-after, bench ceiling): the
	// server's and the participants' together, the collector's included.
	cpu time.Duration
	// resumed records, per participant, the first screen shown after a
	// failure, and the last acknowledged position before it.
	resumed []resumeCheck
	// ackAt: per participant, position → when its answer was acknowledged
	// (the replication benchmark and test count what a loss would take).
	ackAt []map[int]time.Time
}

type resumeCheck struct{ lastAcked, shown int }

func newLoadRun(base string, study loadStudy, n int) *loadRun {
	r := &loadRun{base: base, study: study, n: n, acked: make([]map[int]int, n), ackAt: make([]map[int]time.Time, n),
		firstOf: make([]time.Time, n), lastOf: make([]time.Time, n),
		client: &http.Transport{MaxIdleConnsPerHost: n + 10, MaxIdleConns: n + 10, DisableCompression: true, IdleConnTimeout: time.Minute}}
	for i := range r.acked {
		r.acked[i], r.ackAt[i] = map[int]int{}, map[int]time.Time{}
	}
	return r
}

// loadPID is participant i's PROLIFIC_PID (24 hex digits, as Prolific's).
func loadPID(i int) string { return fmt.Sprintf("%024x", 0x5eed0000+i) }

// loadRating is the rating participant i gives screen pos: fixed, so that a
// resubmit after a lost response sends the same answer.
func loadRating(i, pos int) int { return (i*7+pos)%7 + 1 }

// runInProcess is runAll for a server in this process: it also records
// the CPU the process used (loadRun.cpu), and returns the wall time.
func (r *loadRun) runInProcess(ctx context.Context) time.Duration {
	start, cpu0 := time.Now(), cpuTime()
	r.runAll(ctx, false)
	r.cpu = cpuTime() - cpu0
	return time.Since(start)
}

// runAll runs every participant at once and waits for all. With
// tolerateDown, a participant whose request fails (the server is down)
// retries until it is back, as a real browser's user would.
func (r *loadRun) runAll(ctx context.Context, tolerateDown bool) {
	var wg sync.WaitGroup
	withParticipantsLabels(ctx, func() {
		r.startAll(ctx, &wg, tolerateDown)
	})
	wg.Wait()
}

// startAll starts every participant's goroutine.
func (r *loadRun) startAll(ctx context.Context, wg *sync.WaitGroup, tolerateDown bool) {
	for i := range r.n {
		wg.Go(func() {
			if r.ramp > 0 {
				time.Sleep(rand.N(r.ramp))
			}
			if err := r.participant(ctx, i, tolerateDown); err != nil {
				r.failed.Add(1)
				r.mu.Lock()
				r.errs = append(r.errs, fmt.Errorf("participant %d: %w", i, err))
				r.mu.Unlock()
			}
		})
	}
}

// hiddenValue finds the value of the hidden input name in a page.
func hiddenValue(body, name string) (string, bool) {
	marker := `name="` + name + `" value="`
	i := strings.Index(body, marker)
	if i < 0 {
		return "", false
	}
	rest := body[i+len(marker):]
	j := strings.IndexByte(rest, '"')
	if j < 0 {
		return "", false
	}
	return rest[:j], true
}

// loadParticipant is one simulated participant: the session cookie (kept
// by hand: a cookie jar costs the shared CPU more than the server's work
// on some requests) and what it has seen acknowledged.
type loadParticipant struct {
	r            *loadRun
	i            int
	c            *http.Client
	cookie       *http.Cookie
	base, entry  string
	tolerateDown bool
	down         bool // a request failed since the last screen was read
	lastAcked    int
	// rating is the name of the screen's rating radios, drawn per
	// participant (docs/studies.md#integrity-signals): read from the
	// page, as a browser sends it.
	rating string
}

// participant walks one participant through the study. Its state is the
// server's: every step reads the screen and answers what it shows, so a
// lost response or a restarted server only means asking again.
func (r *loadRun) participant(ctx context.Context, i int, tolerateDown bool) error {
	base := fmt.Sprintf("%s/s/%d", r.base, r.study.ID)
	p := &loadParticipant{
		r: r, i: i, base: base, tolerateDown: tolerateDown,
		c: &http.Client{Transport: r.client, Timeout: 30 * time.Second,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		entry: fmt.Sprintf("%s?PROLIFIC_PID=%s&STUDY_ID=loadstudy&SESSION_ID=sess%d", base, loadPID(i), i),
	}
	for range 100000 {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		done, err := p.step()
		if err != nil && (!tolerateDown || ctx.Err() != nil || !isTransport(err)) {
			return err
		}
		if err != nil {
			p.down = true
			time.Sleep(20 * time.Millisecond)
			continue
		}
		if done {
			return nil
		}
	}
	return errors.New("too many steps")
}

// transportError marks a request that got no response: with a restarting
// server the participant asks again.
type transportError struct{ err error }

func (e *transportError) Error() string { return e.err.Error() }

func isTransport(err error) bool {
	var te *transportError
	return errors.As(err, &te)
}

// send is loadRun.do for this participant, timing the request into lat
// when it gets a response.
func (p *loadParticipant) send(method, u string, form url.Values, lat *[]time.Duration) (loadResp, time.Time, error) {
	t0 := time.Now()
	resp, err := p.r.do(p.c, method, u, form, p.cookie)
	if err != nil {
		return resp, t0, &transportError{err}
	}
	if lat != nil {
		p.r.mu.Lock()
		*lat = append(*lat, time.Since(t0))
		p.r.mu.Unlock()
	}
	return resp, t0, nil
}

// step takes one step: enter, or read the screen and answer what it shows.
// It reports whether the participant has reached the completion page.
func (p *loadParticipant) step() (bool, error) {
	if p.cookie == nil {
		resp, _, err := p.send("GET", p.entry, nil, nil)
		if err != nil {
			return false, err
		}
		if resp.status != http.StatusSeeOther || resp.cookie == nil {
			return false, fmt.Errorf("entry: status %d, cookie %v", resp.status, resp.cookie)
		}
		p.cookie = resp.cookie
		return false, nil
	}
	page, _, err := p.send("GET", p.base+"/screen", nil, &p.r.screenLat)
	if err != nil {
		return false, err
	}
	if page.status != http.StatusOK {
		return false, fmt.Errorf("screen: status %d", page.status)
	}
	body := page.body
	switch {
	case strings.Contains(body, `data-testid="done"`):
		if !strings.Contains(body, "BENCH") {
			return false, errors.New("completion page without the completion code")
		}
		return true, nil
	case strings.Contains(body, `data-testid="landing"`):
		_, _, err := p.send("POST", p.base+"/consent", url.Values{}, &p.r.arriveLat)
		return false, err
	case strings.Contains(body, `data-testid="practice-end"`):
		_, _, err := p.send("GET", p.base+"/screen?begin=1", nil, &p.r.screenLat)
		return false, err
	}
	posText, ok := hiddenValue(body, "position")
	if !ok {
		return false, fmt.Errorf("unexpected page: %.200s", body)
	}
	pos, _ := strconv.Atoi(posText)
	m := radioNameRE.FindStringSubmatch(body)
	if m == nil {
		return false, fmt.Errorf("a rating screen without its radios: %.200s", body)
	}
	p.rating = m[1]
	if strings.Contains(body, `data-testid="training"`) {
		return false, p.training(body, posText, pos)
	}
	return false, p.answer(posText, pos)
}

// radioNameRE reads the rating radios' name from a screen.
var radioNameRE = regexp.MustCompile(`<input type="radio" name="([^"]+)"`)

// training answers a training screen as the item expects.
func (p *loadParticipant) training(body, posText string, pos int) error {
	attempt, _ := hiddenValue(body, "attempt")
	rating := "6"
	if p.r.study.Training[pos-1] == "cancel" {
		rating = "2"
	}
	form := url.Values{"position": {posText}, "attempt": {attempt}, p.rating: {rating}}
	_, _, err := p.send("POST", p.base+"/training", form, &p.r.arriveLat)
	return err
}

// answer rates a batch screen after the think time and records what the
// server acknowledged.
func (p *loadParticipant) answer(posText string, pos int) error {
	r := p.r
	if p.down {
		r.mu.Lock()
		r.resumed = append(r.resumed, resumeCheck{lastAcked: p.lastAcked, shown: pos})
		r.mu.Unlock()
		p.down = false
	}
	if r.think > 0 {
		time.Sleep(r.think/2 + rand.N(r.think))
	}
	rating := loadRating(p.i, pos)
	form := url.Values{"position": {posText}, p.rating: {strconv.Itoa(rating)}}
	resp, t1, err := p.send("POST", p.base+"/answer", form, nil)
	if err != nil {
		return err
	}
	done := time.Now()
	if resp.status != http.StatusSeeOther {
		return fmt.Errorf("answer %d: status %d", pos, resp.status)
	}
	p.lastAcked = pos
	r.mu.Lock()
	defer r.mu.Unlock()
	r.answerLat = append(r.answerLat, done.Sub(t1))
	r.answerAt = append(r.answerAt, t1)
	if r.firstOf[p.i].IsZero() {
		r.firstOf[p.i] = t1
	}
	r.lastOf[p.i] = done
	r.acked[p.i][pos] = rating
	r.ackAt[p.i][pos] = done
	if r.firstAns.IsZero() || t1.Before(r.firstAns) {
		r.firstAns = t1
	}
	if done.After(r.lastAns) {
		r.lastAns = done
	}
	return nil
}

type loadResp struct {
	status int
	body   string
	cookie *http.Cookie // the session cookie set, if any
}

func (r *loadRun) do(c *http.Client, method, u string, form url.Values, cookie *http.Cookie) (loadResp, error) {
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		return loadResp{}, err
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if cookie != nil {
		req.AddCookie(cookie)
	}
	r.requests.Add(1)
	resp, err := c.Do(req)
	if err != nil {
		return loadResp{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return loadResp{}, err
	}
	out := loadResp{status: resp.StatusCode, body: string(b)}
	for _, ck := range resp.Cookies() {
		if strings.HasPrefix(ck.Name, "crowd_") {
			out.cookie = &http.Cookie{Name: ck.Name, Value: ck.Value}
		}
	}
	return out, nil
}

// loadReport is what the database holds after a run.
type loadReport struct {
	acked, stored, lost, duplicated, completed int
}

// verifyStudy compares the acknowledged answers with the load study's
// participants and ratings as the database holds them.
func (r *loadRun) verifyStudy(ctx context.Context, svc *app, studyID int64) (loadReport, error) {
	rows, err := svc.seed().CrowdAnswerRows(ctx, studyID)
	if err != nil {
		return loadReport{}, err
	}
	return r.verify(rows), nil
}

// verify compares the acknowledged answers with the rows read back from
// the database: each must be there once, with the rating sent.
func (r *loadRun) verify(rows []seed.CrowdAnswerRow) loadReport {
	var rep loadReport
	stored := map[string]map[int][]int{}
	completed := map[string]bool{}
	for _, row := range rows {
		pid := row.PID
		completed[pid] = row.Completed
		if stored[pid] == nil {
			stored[pid] = map[int][]int{}
		}
		if row.Position != nil {
			stored[pid][*row.Position] = append(stored[pid][*row.Position], *row.Rating)
			rep.stored++
		}
	}
	for i := range r.n {
		pid := loadPID(i)
		if completed[pid] {
			rep.completed++
		}
		for pos, rs := range stored[pid] {
			if len(rs) > 1 {
				rep.duplicated += len(rs) - 1
			}
			if want := loadRating(i, pos); rs[0] != want {
				rep.lost++ // a stored answer that is not what was sent
			}
		}
		for pos, rating := range r.acked[i] {
			rep.acked++
			if rs := stored[pid][pos]; len(rs) == 0 || rs[0] != rating {
				rep.lost++
			}
		}
	}
	return rep
}

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

// us is d in microseconds.
func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

// loadFigures are the headline figures of a run.
type loadFigures struct {
	rate, steadyRate float64 // answers/s: whole run, all answering at once
	p99, steadyP99   time.Duration
	// The cost of an answer: HTTP requests, and the process's CPU (0 when
	// the server ran elsewhere).
	requestsPerAnswer float64
	cpuPerAnswer      time.Duration
}

// cpuPerRequest is the CPU an HTTP request of the run cost, in µs.
func (f loadFigures) cpuPerRequest() float64 { return us(f.cpuPerAnswer) / f.requestsPerAnswer }

// report prints the figures of a run.
func (r *loadRun) report(w io.Writer, wall time.Duration, rep loadReport) loadFigures {
	window := r.lastAns.Sub(r.firstAns)
	fig := loadFigures{rate: float64(len(r.answerLat)) / window.Seconds()}
	p50, p99 := percentile(r.answerLat, .50), percentile(r.answerLat, .99)
	fig.p99 = p99
	fmt.Fprintf(w, "participants completed: %d of %d in %.2f s (%d HTTP requests, %.0f req/s)\n",
		rep.completed, r.n, wall.Seconds(), r.requests.Load(), float64(r.requests.Load())/wall.Seconds())
	if answers := len(r.answerLat); answers > 0 {
		fig.requestsPerAnswer = float64(r.requests.Load()) / float64(answers)
		if r.cpu > 0 {
			fig.cpuPerAnswer = r.cpu / time.Duration(answers)
			fmt.Fprintf(w, "CPU of the run, server and participants in this process: %.2f s of %.2f s on %d cores; an answer %.0f µs and %.2f HTTP requests (%.0f µs a request)\n",
				r.cpu.Seconds(), wall.Seconds(), runtime.NumCPU(), us(fig.cpuPerAnswer), fig.requestsPerAnswer, fig.cpuPerRequest())
		}
	}
	fmt.Fprintf(w, "answers: %d acknowledged, %d stored, %d lost, %d duplicated\n", rep.acked, rep.stored, rep.lost, rep.duplicated)
	fmt.Fprintf(w, "whole run: %.0f answers/s over the %.2f s from the first answer to the last (arrivals and training included)\n", fig.rate, window.Seconds())
	fmt.Fprintf(w, "answer POST latency, whole run: p50 %s, p99 %s, max %s\n", ms(p50), ms(p99), ms(percentile(r.answerLat, 1)))
	if len(r.arriveLat) > 0 {
		fmt.Fprintf(w, "consent and training POST latency: p50 %s, p99 %s, max %s\n",
			ms(percentile(r.arriveLat, .5)), ms(percentile(r.arriveLat, .99)), ms(percentile(r.arriveLat, 1)))
	}
	fmt.Fprintf(w, "screen GET latency, whole run: p50 %s, p99 %s, max %s\n",
		ms(percentile(r.screenLat, .5)), ms(percentile(r.screenLat, .99)), ms(percentile(r.screenLat, 1)))
	for _, err := range r.errs[:min(5, len(r.errs))] {
		fmt.Fprintf(w, "error: %v\n", err)
	}
	// The steady state: from the moment the last participant to arrive gave
	// a first answer to the moment the first one finished, all of them
	// were answering at once.
	var from, to time.Time
	for i := range r.n {
		if r.firstOf[i].After(from) {
			from = r.firstOf[i]
		}
		if to.IsZero() || r.lastOf[i].Before(to) {
			to = r.lastOf[i]
		}
	}
	var steady []time.Duration
	for i, at := range r.answerAt {
		if !at.Before(from) && at.Before(to) {
			steady = append(steady, r.answerLat[i])
		}
	}
	if len(steady) == 0 {
		fmt.Fprintf(w, "steady state: none (the first participant finished %.2f s before the last gave a first answer)\n", from.Sub(to).Seconds())
		return fig
	}
	fig.steadyRate = float64(len(steady)) / to.Sub(from).Seconds()
	sp50, sp99 := percentile(steady, .5), percentile(steady, .99)
	fig.steadyP99 = sp99
	fmt.Fprintf(w, "steady state, all %d answering at once (%.2f s): %.0f answers/s, answer POST p50 %s, p99 %s\n",
		r.n, to.Sub(from).Seconds(), fig.steadyRate, ms(sp50), ms(sp99))
	return fig
}

// ackedCount is how many answers have been acknowledged so far.
func (r *loadRun) ackedCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.answerLat)
}

// serverProc is a pragmalab server running as a child process.
type serverProc struct {
	cmd  *exec.Cmd
	addr string
}

// startServerProc starts a child server with newCmd and waits until it
// answers on addr.
func startServerProc(ctx context.Context, newCmd func() *exec.Cmd, addr string) (*serverProc, error) {
	cmd := newCmd()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start server: %w", err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return &serverProc{cmd: cmd, addr: addr}, nil
			}
		}
		if ctx.Err() != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()
	return nil, fmt.Errorf("server on %s did not come up", addr)
}

// crashRun runs the participants against a child server process, kills it
// with SIGKILL once killAfter answers are acknowledged (mid-run, requests in
// flight), starts it again on the same database file, and lets the
// participants carry on. It returns when every participant is done.
func crashRun(ctx context.Context, r *loadRun, newCmd func() *exec.Cmd, addr string, killAfter int, out io.Writer) error {
	srv, err := startServerProc(ctx, newCmd, addr)
	if err != nil {
		return err
	}
	done := make(chan struct{})
	go func() { r.runAll(ctx, true); close(done) }()
	killed := false
	for !killed {
		select {
		case <-done:
			killed = true // finished before the kill point
			continue
		case <-time.After(2 * time.Millisecond):
		}
		if n := r.ackedCount(); n >= killAfter {
			srv.cmd.Process.Signal(syscall.SIGKILL)
			srv.cmd.Wait()
			killed = true
			fmt.Fprintf(out, "killed the server (SIGKILL) after %d acknowledged answers; restarting it on the same database\n", n)
			time.Sleep(200 * time.Millisecond) // participants find it down
			if srv, err = startServerProc(ctx, newCmd, addr); err != nil {
				return err
			}
		}
	}
	<-done
	srv.cmd.Process.Signal(syscall.SIGTERM)
	srv.cmd.Wait()
	return nil
}

// serveLoopback serves srv on a free port of the loopback interface and
// returns its address and the function that stops it and waits for it to
// end (once: later calls return at once).
func serveLoopback(ctx context.Context, srv *web.Server) (addr string, shutdown func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	sctx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(sctx, ln) }()
	var once sync.Once
	return ln.Addr().String(), func() { once.Do(func() { stop(); <-served }) }, nil
}

// freeAddr finds a free port on the loopback interface.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// checkResumed tells whether, after the crash, every participant was shown
// the screen after their last acknowledged answer (or the one after that,
// when the answer in flight was committed but its response lost).
func (r *loadRun) checkResumed() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.resumed {
		if c.shown != c.lastAcked+1 && c.shown != c.lastAcked+2 {
			return fmt.Errorf("a participant whose last acknowledged answer was screen %d was shown screen %d after the restart", c.lastAcked, c.shown)
		}
	}
	return nil
}

// printWriteQueue prints what the write queue did during the run.
func printWriteQueue(ctx context.Context, w io.Writer, svc *app, wall time.Duration) {
	m, err := svc.Metrics(ctx)
	if err != nil || m.Groups == 0 {
		return
	}
	if m.LogSyncs > 0 {
		fmt.Fprintf(w, "log synced beside the writer (PIPELINED): %.1f s in all\n", m.LogSyncs.Seconds())
	}
	fmt.Fprintf(w, "write queue: %d writes in %d group commits (%.1f a group), writer busy %.1f s of %.1f s (%.1f s of it committing, %.1f ms a commit); latest %d writes: queued → group start p50 %s, p99 %s; queued → durable p50 %s, p99 %s\n",
		m.GroupedWrites, m.Groups, float64(m.GroupedWrites)/float64(m.Groups), m.WriterBusy.Seconds(), wall.Seconds(), m.WriterCommit.Seconds(), float64(m.WriterCommit)/float64(m.Groups)/1e6,
		m.Writes, ms(m.QueueP50), ms(m.QueueP99), ms(m.AckP50), ms(m.AckP99))
}
