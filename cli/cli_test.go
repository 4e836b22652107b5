package cli

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"pragmalab/domain"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"pragmalab/store"
)

// syncBuffer is a bytes.Buffer safe to read while a server writes to it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// runCLI runs one command in-process and returns its exit status and output.
func runCLI(t *testing.T, stdin string, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	c := &Env{getenv: func(k string) string { return env[k] }, stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb}
	code := exitCode(c.stderr, Run(context.Background(), args, c))
	return code, out.String(), errb.String()
}

func TestHelpAndUsage(t *testing.T) {
	for _, cmd := range []string{"serve", "analyze", "score", "import", "export", "admin", "backup", "bench", "prolific"} {
		code, out, errOut := runCLI(t, "", nil, cmd, "--help")
		if code != 0 {
			t.Errorf("%s --help: exit %d, want 0 (stderr %q)", cmd, code, errOut)
		}
		if !strings.Contains(out+errOut, "Usage") {
			t.Errorf("%s --help prints no usage", cmd)
		}
	}
	// The top-level help lists every subcommand.
	for _, arg := range []string{"--help", "-h", "help"} {
		code, out, _ := runCLI(t, "", nil, arg)
		if code != 0 {
			t.Errorf("pragmalab %s: exit %d", arg, code)
		}
		for _, cmd := range []string{"serve", "analyze", "score", "import", "export", "admin", "backup", "bench"} {
			if !strings.Contains(out, "pragmalab "+cmd) {
				t.Errorf("pragmalab %s does not list %s:\n%s", arg, cmd, out)
			}
		}
	}
	if code, _, errOut := runCLI(t, "", nil, "frobnicate"); code != 2 || !strings.Contains(errOut, "unknown command") {
		t.Errorf("unknown command: exit %d, stderr %q", code, errOut)
	}
	if code, _, _ := runCLI(t, "", nil, "serve", "--no-such-flag"); code != 2 {
		t.Errorf("bad flag: exit %d, want 2", code)
	}
	if code, _, errOut := runCLI(t, "", nil, "import", "--study", "1"); code != 2 || !strings.Contains(errOut, "--file") {
		t.Errorf("import without --file: exit %d, stderr %q", code, errOut)
	}
}

func TestServeFirstStartAndRestart(t *testing.T) {
	dbPath := filepath.Join(t.TempDir(), "p.db")
	start := func() (string, *syncBuffer, func()) {
		ctx, cancel := context.WithCancel(context.Background())
		out := &syncBuffer{}
		c := &Env{getenv: func(string) string { return "" }, stdin: strings.NewReader(""), stdout: out, stderr: io.Discard}
		done := make(chan error, 1)
		go func() { done <- Run(ctx, []string{"--addr", "127.0.0.1:0", "--db", dbPath}, c) }()
		re := regexp.MustCompile(`running at (http://\S+)/admin`)
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			if m := re.FindStringSubmatch(out.String()); m != nil {
				return m[1], out, func() {
					cancel()
					if err := <-done; err != nil {
						t.Errorf("serve returned %v after shutdown", err)
					}
				}
			}
			select {
			case err := <-done:
				t.Fatalf("serve ended early: %v\n%s", err, out.String())
			case <-time.After(20 * time.Millisecond):
			}
		}
		cancel()
		t.Fatalf("serve did not say where it runs:\n%s", out.String())
		return "", nil, nil
	}

	base, out, stop := start()
	m := regexp.MustCompile(`password: (\S+)`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("first start printed no admin password:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "pragmalab links --study") {
		t.Fatalf("first start does not say how to list the links again:\n%s", out.String())
	}
	// Every address it prints is the one it listens on (#45 §5).
	if strings.Contains(out.String(), "localhost:8080") || !strings.Contains(out.String(), "go run . links --study 1 --base "+base+"`") ||
		!strings.Contains(out.String(), "List them again: pragmalab links --study 2 --base "+base+"\n") {
		t.Fatalf("first start on %s prints another address:\n%s", base, out.String())
	}
	for _, who := range []string{"Expert A", "Esperta A", "Valutatore A"} {
		inv := regexp.MustCompile(who + `'s invitation link: (http://\S+)`).FindStringSubmatch(out.String())
		if inv == nil {
			t.Fatalf("first start printed no invitation link for %s:\n%s", who, out.String())
		}
		resp, err := http.Get(inv[1])
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s's invitation link: %v %v", who, err, resp)
		}
		resp.Body.Close()
	}
	// The printed password logs in.
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequest("POST", base+"/admin/login", strings.NewReader(url.Values{"username": {"admin"}, "password": {m[1]}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := noRedirect.Do(req)
	if err != nil || resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("login with the printed password: %v %v", err, resp)
	}
	resp.Body.Close()
	stop()

	// A second start keeps the data and prints no new password.
	_, out2, stop2 := start()
	stop2()
	if strings.Contains(out2.String(), "password:") {
		t.Fatalf("second start printed a password again:\n%s", out2.String())
	}
	db, err := store.Open(context.Background(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	studies, _ := db.Studies(context.Background())
	if len(studies) == 0 {
		t.Fatal("the demo studies are gone after a restart")
	}
	for _, s := range studies {
		if s.Kind == domain.KindExpert && strings.HasPrefix(s.Name, "Demo") {
			return
		}
	}
	t.Fatal("no demo expert study was seeded")
}

func TestAdminAndBackupCLI(t *testing.T) {
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "a.db")
	if code, out, errOut := runCLI(t, "a long enough password\n", nil, "admin", "create", "--username", "lea", "--db", dbPath); code != 0 || !strings.Contains(out, "lea") {
		t.Fatalf("admin create: exit %d, %q %q", code, out, errOut)
	}
	if code, _, errOut := runCLI(t, "short\n", nil, "admin", "reset-password", "--username", "lea", "--db", dbPath); code != 2 || !strings.Contains(errOut, "10–72") {
		t.Fatalf("short password: exit %d, stderr %q", code, errOut)
	}
	if code, _, errOut := runCLI(t, "", map[string]string{"PRAGMALAB_DB": dbPath}, "admin", "reset-password", "--username", "nobody", "--generate"); code != 2 || !strings.Contains(errOut, "nobody") {
		t.Fatalf("unknown admin: exit %d, stderr %q", code, errOut)
	}
	code, out, _ := runCLI(t, "", nil, "admin", "reset-password", "--username", "lea", "--generate", "--db", dbPath)
	pw := regexp.MustCompile(`password: (\S+)`).FindStringSubmatch(out)
	if code != 0 || pw == nil {
		t.Fatalf("reset with --generate: exit %d, %q", code, out)
	}
	backup := filepath.Join(dir, "b.db")
	if code, _, errOut := runCLI(t, "", nil, "backup", "--db", dbPath, "--out", backup); code != 0 {
		t.Fatalf("backup: exit %d, %q", code, errOut)
	}
	db, err := store.Open(context.Background(), backup)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Authenticate(context.Background(), "lea", pw[1]); err != nil {
		t.Fatalf("the backup lacks the admin: %v", err)
	}
	if code, _, _ := runCLI(t, "", nil, "backup", "--db", dbPath, "--out", backup); code != 2 {
		t.Fatal("backup over an existing file was not refused")
	}
}

// TestActorNamesTheUser: the audit log names a command's caller as
// cli:$USER, or cli when $USER is unset (docs/prolific.md#command-line).
func TestActorNamesTheUser(t *testing.T) {
	for user, want := range map[string]string{"alice": "cli:alice", "": "cli"} {
		env := &Env{getenv: func(k string) string {
			if k == "USER" {
				return user
			}
			return ""
		}}
		if got := env.actor(); got != want {
			t.Errorf("USER=%q: actor %q, want %q", user, got, want)
		}
	}
}
