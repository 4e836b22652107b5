package cli

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"strconv"
	"time"

	"pragmalab/cli/seed"
	"pragmalab/studies"
)

const benchCeilingUsage = `Usage: pragmalab bench ceiling [options]

The ceiling beside bench load's figures: a plain net/http server (no
router, middleware, sessions or templates) on the same SQLite settings as
pragmalab — WAL, one writer connection, a read pool, the same connection
string (pragmalab's writer alone leaves the log's checkpoints to a
goroutine beside it) — where every answer POST commits one row in its own transaction
and every screen GET is one read. The same simulated participants as
bench load drive it with the same flags, straight to their 40 answers (no
consent or training), and it reports the same figures in answers/s. A
figure of bench load divided by the ceiling of the same moment still means
something on a machine shared with other work (bench load --ceiling prints
that ratio).

With --synchronous FULL (the default, as pragmalab serve runs) each POST
waits for its own fsync; NORMAL leaves the fsync out, which makes it the
ceiling of the CPU alone.

`

// benchCeiling is `pragmalab bench ceiling`.
func benchCeiling(ctx context.Context, args []string, env *Env) error {
	fs := newFlagSet("bench ceiling", benchCeilingUsage, env)
	f := addLoadFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := f.check("bench ceiling"); err != nil {
		return err
	}
	if *f.killAfter > 0 || *f.ceiling {
		return usagef("bench ceiling: --kill-after and --ceiling are bench load's")
	}
	tuneGC() // as bench load's server, for figures to compare
	_, err := runCeiling(ctx, env, f)
	return err
}

// runCeiling runs the ceiling server and the participants against it.
func runCeiling(ctx context.Context, env *Env, f loadFlags) (loadFigures, error) {
	file, cleanup, err := f.dbFile("pragmalab-bench-ceiling-")
	if err != nil {
		return loadFigures{}, err
	}
	defer cleanup()
	cs, err := openCeiling(ctx, file, *f.sync)
	if err != nil {
		return loadFigures{}, err
	}
	defer cs.close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return loadFigures{}, err
	}
	srv := &http.Server{Handler: cs.mux(), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	defer func() { srv.Close(); <-served }()

	fmt.Fprintf(env.stdout, "bench ceiling: plain net/http, one committed row per answer POST, one read per screen GET; %d participants, 40 answers each, %s think time before each answer, arrivals over %s, synchronous %s, server http://%s, database %s\n",
		*f.n, *f.think, *f.ramp, *f.sync, ln.Addr(), file)
	study := loadStudy{ID: 1, Screens: ceilingScreens}
	run := newLoadRun("http://"+ln.Addr().String(), study, *f.n)
	run.think, run.ramp = *f.think, *f.ramp
	prof, err := f.startProfile()
	if err != nil {
		return loadFigures{}, err
	}
	wall := run.runInProcess(ctx)
	if err := prof.stop(); err != nil {
		return loadFigures{}, err
	}
	rows, err := cs.answerRows(ctx)
	if err != nil {
		return loadFigures{}, err
	}
	rep := run.verify(rows)
	fig := run.report(env.stdout, wall, rep)
	prof.report(env.stdout, len(run.answerLat))
	if rep.lost > 0 || rep.duplicated > 0 || run.failed.Load() > 0 {
		return fig, fmt.Errorf("bench ceiling: %d answers lost, %d duplicated, %d participants failed", rep.lost, rep.duplicated, run.failed.Load())
	}
	return fig, nil
}

// ceilingScreens is the answers each participant gives, as in bench load.
const ceilingScreens = 40

// ceilingServer is the plain server: its own SQLite file opened the way
// studies.Open opens pragmalab's.
type ceilingServer struct {
	write, read *sql.DB
	insert      *sql.Stmt
	answered    *sql.Stmt
}

func openCeiling(ctx context.Context, file, synchronous string) (*ceilingServer, error) {
	w, err := sql.Open("sqlite", studies.DSN(file, false, synchronous))
	if err != nil {
		return nil, err
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	if _, err := w.ExecContext(ctx, `CREATE TABLE ceiling_answers (
		pid TEXT NOT NULL, position INTEGER NOT NULL, rating INTEGER NOT NULL,
		PRIMARY KEY (pid, position)) WITHOUT ROWID`); err != nil {
		w.Close()
		return nil, fmt.Errorf("bench ceiling: %w", err)
	}
	r, err := sql.Open("sqlite", studies.DSN(file, true, synchronous))
	if err != nil {
		w.Close()
		return nil, err
	}
	r.SetMaxOpenConns(8)
	r.SetMaxIdleConns(8)
	cs := &ceilingServer{write: w, read: r}
	// Prepared, as pragmalab's hot paths are.
	if cs.insert, err = w.PrepareContext(ctx, `INSERT INTO ceiling_answers (pid, position, rating) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`); err == nil {
		cs.answered, err = r.PrepareContext(ctx, `SELECT COUNT(*) FROM ceiling_answers WHERE pid = ?`)
	}
	if err != nil {
		cs.close()
		return nil, fmt.Errorf("bench ceiling: %w", err)
	}
	return cs, nil
}

func (cs *ceilingServer) close() {
	for _, s := range []*sql.Stmt{cs.insert, cs.answered} {
		if s != nil {
			s.Close()
		}
	}
	cs.read.Close()
	cs.write.Close()
}

// mux speaks the part of the crowd pages the simulated participants use:
// the entry sets a cookie, the screen shows the next position (or the
// completion code), the answer stores one row and redirects.
func (cs *ceilingServer) mux() http.Handler {
	const cookie = "crowd_1"
	m := http.NewServeMux()
	m.HandleFunc("GET /s/1", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: cookie, Value: r.URL.Query().Get("PROLIFIC_PID"), Path: "/s/1", HttpOnly: true})
		http.Redirect(w, r, "/s/1/screen", http.StatusSeeOther)
	})
	m.HandleFunc("GET /s/1/screen", func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie(cookie)
		if err != nil {
			http.Error(w, "no session", http.StatusForbidden)
			return
		}
		var n int
		if err := cs.answered.QueryRowContext(r.Context(), c.Value).Scan(&n); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if n >= ceilingScreens {
			fmt.Fprint(w, `<!doctype html><main data-testid="done"><p>Your completion code: BENCH</p></main>`)
			return
		}
		fmt.Fprintf(w, `<!doctype html><main><form method="post" action="/s/1/answer"><p>Screen %d of %d, participant %s</p>`+
			`<input type="hidden" name="position" value="%d"><fieldset><legend>How likely?</legend>`,
			n+1, ceilingScreens, html.EscapeString(c.Value), n+1)
		for i := 1; i <= 7; i++ {
			fmt.Fprintf(w, `<label><input type="radio" name="rating" value="%d">%d</label>`, i, i)
		}
		fmt.Fprint(w, `</fieldset><button>Next</button></form></main>`)
	})
	m.HandleFunc("POST /s/1/answer", func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie(cookie)
		if err != nil {
			http.Error(w, "no session", http.StatusForbidden)
			return
		}
		pos, err1 := strconv.Atoi(r.PostFormValue("position"))
		rating, err2 := strconv.Atoi(r.PostFormValue("rating"))
		if err := errors.Join(err1, err2); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if _, err := cs.insert.ExecContext(r.Context(), c.Value, pos, rating); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		http.Redirect(w, r, "/s/1/screen", http.StatusSeeOther)
	})
	return m
}

// answerRows reads back every answer stored, as the load benchmark reads
// a crowd study's: a participant has completed when all their screens are
// there.
func (cs *ceilingServer) answerRows(ctx context.Context) ([]seed.CrowdAnswerRow, error) {
	rows, err := cs.read.QueryContext(ctx, `
		SELECT pid, COUNT(*) OVER (PARTITION BY pid) = ?, position, rating
		FROM ceiling_answers`, ceilingScreens)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []seed.CrowdAnswerRow
	for rows.Next() {
		var r seed.CrowdAnswerRow
		if err := rows.Scan(&r.PID, &r.Completed, &r.Position, &r.Rating); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
