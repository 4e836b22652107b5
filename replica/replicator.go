package replica

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"pragmalab/domain"
)

// Options configure a Replicator.
type Options struct {
	Target Target
	// DB is the database file.
	DB string
	// Getenv gives Litestream's environment (credentials) and finds it.
	Getenv func(string) string
	Log    *slog.Logger
	// MaxLag is the lag past which Status reports degraded (0: DefaultMaxLag).
	MaxLag time.Duration
	// Poll is how often the replica's position is asked (0: Poll).
	Poll time.Duration
	// OnPoll, if set, is told every answered poll: sent and answered at,
	// Litestream's newest local transaction and the replica's (bench
	// replication measures the lag with it).
	OnPoll func(sent, answered time.Time, local, replicated uint64)
}

// DefaultMaxLag is the documented recovery point (docs/deploy.md#recovery-point):
// with replication healthy, an answer acknowledged more than this long
// before the machine is lost is in the replica; past it /healthz reports
// degraded.
const DefaultMaxLag = 10 * time.Second

// Replicator supervises the Litestream child process that replicates
// the database: it restarts Litestream when it exits, and keeps how far the
// replica has got (Status).
type Replicator struct {
	o       Options
	bin     string
	abs     string
	dir     string
	cfg     string
	socket  string
	ctl     *http.Client
	started time.Time

	stopping chan struct{}
	done     chan struct{}

	mu    sync.Mutex
	cmd   *exec.Cmd
	state state
}

// state is what the polls and Litestream's log have told.
type state struct {
	running           bool
	restarts          int
	local, replicated uint64
	replicatedAt      time.Time
	syncedThrough     time.Time
	pending           []sample // polls whose transactions are not all replicated yet
	err               string
	errAt             time.Time
	pollErr           string
	pollErrSince      time.Time
	lastPlain         string // Litestream's latest line outside its JSON log
}

// sample is one poll: every commit before sent is in Litestream's
// transactions up to local.
type sample struct {
	sent  time.Time
	local uint64
}

// Start starts Litestream replicating o.DB to o.Target. It fails, saying
// what to do, when Litestream cannot be found or will not start.
func Start(ctx context.Context, o Options) (*Replicator, error) {
	if o.MaxLag <= 0 {
		o.MaxLag = DefaultMaxLag
	}
	if o.Poll <= 0 {
		o.Poll = Poll
	}
	bin, err := Find(o.Getenv)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(o.DB)
	if err != nil {
		return nil, err
	}
	dir, cfg, socket, err := writeConfig(o.Target, abs, true, o.Getenv)
	if err != nil {
		return nil, err
	}
	r := &Replicator{o: o, bin: bin, abs: abs, dir: dir, cfg: cfg, socket: socket, started: time.Now(),
		stopping: make(chan struct{}), done: make(chan struct{}),
		ctl: &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
			DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
				return (&net.Dialer{}).DialContext(ctx, "unix", socket)
			}}}}
	exited, err := r.spawn()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	// Litestream refuses a bad configuration at once; wait for its control
	// socket, so a replica that cannot start is an error of serve itself.
	for deadline := time.Now().Add(20 * time.Second); ; {
		select {
		case werr := <-exited:
			os.RemoveAll(dir)
			return nil, fmt.Errorf("replication: litestream exited at start (%v): %s", werr, r.lastErr())
		case <-ctx.Done():
			r.kill()
			os.RemoveAll(dir)
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if _, err := os.Stat(socket); err == nil {
			break
		}
		if time.Now().After(deadline) {
			r.kill()
			os.RemoveAll(dir)
			return nil, errors.New("replication: litestream did not start within 20 s")
		}
	}
	go r.supervise(exited)
	return r, nil
}

// spawn starts the Litestream process; the channel gets its exit.
func (r *Replicator) spawn() (<-chan error, error) {
	cmd := exec.Command(r.bin, "replicate", "-config", r.cfg)
	cmd.Env = childEnv(r.o.Getenv)
	cmd.Dir = r.dir
	cmd.SysProcAttr = childAttr()
	out, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = cmd.Stderr // the JSON log goes to stderr; anything else too
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("replication: start %s: %w", r.bin, err)
	}
	r.mu.Lock()
	r.cmd = cmd
	r.state.running = true
	r.mu.Unlock()
	logDone := make(chan struct{})
	go func() { r.readLog(out); close(logDone) }()
	exited := make(chan error, 1)
	go func() {
		<-logDone
		err := cmd.Wait()
		r.mu.Lock()
		r.state.running = false
		r.mu.Unlock()
		exited <- err
	}()
	return exited, nil
}

// supervise polls the replica's position and restarts Litestream when it
// exits, until Stop.
func (r *Replicator) supervise(exited <-chan error) {
	defer close(r.done)
	tick := time.NewTicker(r.o.Poll)
	defer tick.Stop()
	backoff := time.Second
	var restartAt time.Time
	var since time.Time = time.Now()
	for {
		select {
		case <-r.stopping:
			return
		case err := <-exited:
			exited = nil
			r.fail(fmt.Sprintf("litestream exited (%v); starting it again in %s", err, backoff))
			if time.Since(since) > time.Minute {
				backoff = time.Second
			}
			restartAt = time.Now().Add(backoff)
			backoff = min(2*backoff, 30*time.Second)
		case <-tick.C:
			if exited == nil && !restartAt.IsZero() && time.Now().After(restartAt) {
				ch, err := r.spawn()
				if err != nil {
					r.fail(err.Error())
					restartAt = time.Now().Add(backoff)
					continue
				}
				exited, restartAt, since = ch, time.Time{}, time.Now()
				r.mu.Lock()
				r.state.restarts++
				r.mu.Unlock()
				continue
			}
			if exited != nil {
				r.poll()
			}
		}
	}
}

// syncResponse is Litestream's answer to POST /sync on its control socket.
type syncResponse struct {
	TXID           uint64 `json:"txid"`
	ReplicatedTXID uint64 `json:"replicated_txid"`
	Error          string `json:"error"`
}

// poll asks Litestream to copy the new log frames into its transactions
// (what it does every MonitorInterval anyway) and where the replica is:
// every commit made before the request is in a transaction up to the
// answer's txid, so once the replica holds that one, it holds them.
func (r *Replicator) poll() {
	sent := time.Now()
	body, _ := json.Marshal(map[string]any{"path": r.abs})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", "http://litestream/sync", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := r.ctl.Do(req)
	var sr syncResponse
	if err == nil {
		err = json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&sr)
		resp.Body.Close()
		if err == nil && sr.Error != "" {
			err = errors.New(sr.Error)
		}
	}
	now := time.Now()
	r.mu.Lock()
	s := &r.state
	if err != nil {
		if s.pollErr == "" {
			s.pollErrSince = now
		}
		s.pollErr = "asking litestream for the replica's position: " + err.Error()
		r.mu.Unlock()
		return
	}
	s.pollErr = ""
	s.advance(sample{sent: sent, local: sr.TXID}, sr.ReplicatedTXID, now)
	r.mu.Unlock()
	if r.o.OnPoll != nil {
		r.o.OnPoll(sent, now, sr.TXID, sr.ReplicatedTXID)
	}
}

// advance records a poll: the transactions local exist, the replica holds
// up to replicated.
func (s *state) advance(p sample, replicated uint64, now time.Time) {
	s.local = p.local
	if replicated > s.replicated {
		s.replicated, s.replicatedAt = replicated, now
	}
	s.pending = append(s.pending, p)
	// The newest poll whose transactions are all in the replica: every
	// commit before it was sent is replicated.
	keep := 0
	for i, q := range s.pending {
		if q.local <= s.replicated {
			if q.sent.After(s.syncedThrough) {
				s.syncedThrough = q.sent
			}
			keep = i + 1
		}
	}
	s.pending = s.pending[keep:]
	if len(s.pending) > 4096 {
		s.pending = s.pending[len(s.pending)-4096:]
	}
	if s.err != "" && s.syncedThrough.After(s.errAt) {
		s.err, s.errAt = "", time.Time{} // the replica has caught up since
	}
}

// fail records a replication error.
func (r *Replicator) fail(msg string) {
	r.mu.Lock()
	r.state.err, r.state.errAt = msg, time.Now()
	r.mu.Unlock()
	r.o.Log.Error("replication", "error", msg)
}

func (r *Replicator) lastErr() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.state.err == "" {
		return r.state.lastPlain
	}
	return r.state.err
}

// logLine is a line of Litestream's JSON log.
type logLine struct {
	Level string `json:"level"`
	Msg   string `json:"msg"`
	Error string `json:"error"`
	Err   string `json:"err"`
}

// readLog reads Litestream's log: errors are kept for the metrics page and
// logged, warnings logged, the rest logged at debug level (-v).
func (r *Replicator) readLog(out io.Reader) {
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var l logLine
		if json.Unmarshal(line, &l) != nil {
			// Litestream prints a bad configuration as a plain line
			// before its log starts, then exits: kept as the error.
			if text := strings.TrimSpace(string(line)); text != "" {
				r.mu.Lock()
				r.state.lastPlain = text
				r.mu.Unlock()
				r.o.Log.Debug("litestream", "line", text)
			}
			continue
		}
		msg := l.Msg
		if e := l.Error + l.Err; e != "" {
			msg += ": " + e
		}
		switch l.Level {
		case "ERROR":
			r.mu.Lock()
			r.state.err, r.state.errAt = msg, time.Now()
			r.mu.Unlock()
			r.o.Log.Error("litestream", "msg", msg)
		case "WARN":
			r.o.Log.Warn("litestream", "msg", msg)
		default:
			r.o.Log.Debug("litestream", "msg", msg)
		}
	}
}

// Status is the replication's state now.
func (r *Replicator) Status() domain.Replication {
	r.mu.Lock()
	s := r.state
	r.mu.Unlock()
	now := time.Now()
	st := domain.Replication{On: true, Replica: r.o.Target.Display, Running: s.running,
		LocalTXID: s.local, ReplicatedTXID: s.replicated, ReplicatedAt: s.replicatedAt,
		SyncedThrough: s.syncedThrough, MaxLag: r.o.MaxLag, Error: s.err, ErrorAt: s.errAt, Restarts: s.restarts}
	from := s.syncedThrough
	if from.IsZero() {
		from = r.started // nothing is known to be replicated since the start
	}
	st.Lag = now.Sub(from)
	if st.Error == "" && s.pollErr != "" && now.Sub(s.pollErrSince) > 3*r.o.Poll {
		st.Error, st.ErrorAt = s.pollErr, s.pollErrSince
	}
	return st
}

// Stop stops Litestream after the server has closed the database: on
// SIGTERM Litestream uploads what it has not yet, within timeout, then
// exits; after timeout it is killed.
func (r *Replicator) Stop(timeout time.Duration) error {
	close(r.stopping)
	<-r.done
	defer os.RemoveAll(r.dir)
	r.mu.Lock()
	cmd, running := r.cmd, r.state.running
	r.mu.Unlock()
	if cmd == nil || !running {
		return nil
	}
	cmd.Process.Signal(syscall.SIGTERM)
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		r.mu.Lock()
		running = r.state.running
		r.mu.Unlock()
		if !running {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Kill()
	return fmt.Errorf("replication: litestream did not stop within %s; killed", timeout)
}

// kill ends the Litestream process at once (a failed start).
func (r *Replicator) kill() {
	r.mu.Lock()
	cmd := r.cmd
	r.mu.Unlock()
	if cmd != nil && cmd.Process != nil {
		cmd.Process.Kill()
	}
}
