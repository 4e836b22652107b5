package cli

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"pragmalab/store"
)

// TestCrashChildServer is the server process of TestAnswersSurviveKill: the
// test binary run again as `pragmalab serve`.
func TestCrashChildServer(t *testing.T) {
	spec := os.Getenv("PRAGMALAB_CRASH_CHILD")
	if spec == "" {
		t.Skip("helper process of TestAnswersSurviveKill")
	}
	addr, file, _ := strings.Cut(spec, "|")
	env := &Env{getenv: func(string) string { return "" }, stdin: strings.NewReader(""), stdout: io.Discard, stderr: os.Stderr}
	if err := Run(context.Background(), []string{"serve", "--addr", addr, "--db", file, "--demo=false", "--entry-limit", "0"}, env); err != nil {
		t.Fatal(err)
	}
}

// TestAnswersSurviveKill kills the server with SIGKILL while 30 participants
// are answering, starts it again on the same database file, and checks that
// every acknowledged answer is stored exactly once and that everybody
// carries on from where they were to the end.
func TestAnswersSurviveKill(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "crash.db")
	db, err := store.Open(ctx, file)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const n = 30
	study, err := setupLoadStudy(ctx, newApp(db, nil), n)
	if err != nil {
		t.Fatal(err)
	}
	addr, err := freeAddr()
	if err != nil {
		t.Fatal(err)
	}
	r := newLoadRun("http://"+addr, study, n)
	newCmd := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChildServer$")
		cmd.Env = append(os.Environ(), "PRAGMALAB_CRASH_CHILD="+addr+"|"+file)
		return cmd
	}
	var log strings.Builder
	if err := crashRun(ctx, r, newCmd, addr, 400, &log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "killed the server") {
		t.Fatal("the run ended before the kill")
	}
	rep, err := r.verifyStudy(ctx, newApp(db, nil), study.ID)
	if err != nil {
		t.Fatal(err)
	}
	if r.failed.Load() > 0 {
		t.Fatalf("%d participants failed: %v", r.failed.Load(), r.errs[0])
	}
	if rep.lost != 0 || rep.duplicated != 0 || rep.completed != n || rep.stored != n*study.Screens {
		t.Fatalf("after the crash: %+v; want 0 lost, 0 duplicated, %d completed, %d stored", rep, n, n*study.Screens)
	}
	if rep.acked < 400 {
		t.Fatalf("only %d answers acknowledged", rep.acked)
	}
	if len(r.resumed) == 0 {
		t.Fatal("no participant met the dead server")
	}
	if err := r.checkResumed(); err != nil {
		t.Fatal(err)
	}
}

// answeredLoadStudy is a database file holding a load study of ten
// participants' places in which three participants answered every screen
// (training by condition, the batch by loadRating); the store is closed.
func answeredLoadStudy(t *testing.T) (string, loadStudy) {
	t.Helper()
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "answered.db")
	db, err := store.Open(ctx, file)
	if err != nil {
		t.Fatal(err)
	}
	study, err := setupLoadStudy(ctx, newApp(db, nil), 10)
	if err != nil {
		t.Fatal(err)
	}
	_, set, _ := db.CrowdStudy(ctx, study.ID)
	for i := range 3 {
		p, err := db.EnterCrowd(ctx, study.ID, store.CrowdArrival{PID: loadPID(i), StudyID: "st", SessionID: "se"}, set)
		if err != nil {
			t.Fatal(err)
		}
		db.ConsentCrowd(ctx, study.ID, p.Token, set)
		for pos, cond := range study.Training {
			rating := 6
			if cond == "cancel" {
				rating = 2
			}
			db.AnswerCrowdTraining(ctx, study.ID, p.Token, pos+1, 0, rating, 0, set)
		}
		for pos := 1; pos <= study.Screens; pos++ {
			if _, err := db.SaveCrowdRating(ctx, study.ID, p.Token, pos, loadRating(i, pos), 0, set); err != nil {
				t.Fatal(err)
			}
		}
	}
	db.Close()
	return file, study
}

// TestExportRatingsCLI exports a crowd study's ratings and participants with
// the CLI and reads the ratings back with analyze toplines.
func TestExportRatingsCLI(t *testing.T) {
	file, study := answeredLoadStudy(t)
	id := strconv.FormatInt(study.ID, 10)
	ratings := filepath.Join(t.TempDir(), "ratings.csv")
	if code, _, errOut := runCLI(t, "", nil, "export", "--db", file, "--study", id, "--what", "ratings", "--out", ratings); code != 0 {
		t.Fatalf("export ratings: exit %d: %s", code, errOut)
	}
	// The file holds participants' answers: readable by its owner only, and
	// never replaced without --force.
	if fi, err := os.Stat(ratings); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("export --out: mode %v, %v; want 0600", fi.Mode().Perm(), err)
	}
	os.WriteFile(ratings, []byte("kept\n"), 0o644)
	if code, _, errOut := runCLI(t, "", nil, "export", "--db", file, "--study", id, "--what", "ratings", "--out", ratings); code == 0 || !strings.Contains(errOut, "already exists; give --force") {
		t.Fatalf("export over an existing file: exit %d: %s", code, errOut)
	}
	if data, _ := os.ReadFile(ratings); string(data) != "kept\n" {
		t.Fatalf("export without --force changed the existing file: %q", data)
	}
	if code, _, errOut := runCLI(t, "", nil, "export", "--db", file, "--study", id, "--what", "ratings", "--out", ratings, "--force"); code != 0 {
		t.Fatalf("export --force: exit %d: %s", code, errOut)
	}
	if fi, _ := os.Stat(ratings); fi.Mode().Perm() != 0o600 {
		t.Fatalf("export --force left mode %v; want 0600", fi.Mode().Perm())
	}
	data, _ := os.ReadFile(ratings)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if lines[0] != "participant_id,batch_id,item_id,item_type,condition,rating,check,item_version,shown_at,answered_at,rt_ms,answer_changes,hidden_ms,first_input_ms,untrusted_events,pastes,webdriver,pointer_or_key,honeypot,machine_instruction,scale_points" || len(lines) != 1+3*study.Screens {
		t.Fatalf("ratings file: %d lines, header %q", len(lines), lines[0])
	}
	// --with-texts: the same rows, the item texts after them
	// (docs/formats.md#ratings-export); refused with another --what.
	code, out, errOut := runCLI(t, "", nil, "export", "--db", file, "--study", id, "--what", "ratings", "--with-texts")
	withTexts := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(withTexts) != len(lines) || withTexts[0] != lines[0]+",context,utterance,follow_up,implicature" ||
		!strings.HasPrefix(withTexts[1], lines[1]+",") || !strings.Contains(withTexts[1], "S2: I think C was looking for someone to do task") {
		t.Fatalf("export ratings --with-texts: exit %d: %s\n%.400s", code, errOut, out)
	}
	if code, _, errOut := runCLI(t, "", nil, "export", "--db", file, "--study", id, "--what", "participants", "--with-texts"); code != 2 || !strings.Contains(errOut, "--with-texts goes with --what ratings only") {
		t.Fatalf("--with-texts with participants: exit %d: %s", code, errOut)
	}
	code, out, errOut = runCLI(t, "", nil, "export", "--db", file, "--study", id, "--what", "participants")
	if code != 0 || strings.Count(out, ",completed,") != 3 {
		t.Fatalf("export participants: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "", nil, "analyze", "toplines", "--ratings", ratings, "--json")
	if code != 0 || !strings.Contains(out, `"total": 3`) && !strings.Contains(out, `"total":3`) {
		t.Fatalf("analyze toplines on the export: exit %d\n%s%s", code, out, errOut)
	}
}

// The ratio line names the CPU and the requests an answer of both runs,
// and the ratio requests as cheap as the ceiling's would give.
func TestPrintRatioNamesTheBound(t *testing.T) {
	var b strings.Builder
	load := loadFigures{rate: 3748, p99: 78 * time.Millisecond, requestsPerAnswer: 2.45, cpuPerAnswer: 486 * time.Microsecond}
	ceil := loadFigures{rate: 8841, p99: 25 * time.Millisecond, requestsPerAnswer: 2.05, cpuPerAnswer: 211 * time.Microsecond}
	printRatio(&b, load, ceil)
	for _, want := range []string{"whole run 0.42 (3748 / 8841 answers/s)", "486 µs against the ceiling's 211 µs (0.43)",
		"2.45 against 2.05, so requests as cheap as the ceiling's would give 0.84", "a request costs 198 µs against 103 µs"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("ratio line lacks %q:\n%s", want, b.String())
		}
	}
	// Without the CPU of a run (the server in another process) there is no bound to print.
	b.Reset()
	load.cpuPerAnswer = 0
	printRatio(&b, load, ceil)
	if strings.Contains(b.String(), "CPU an answer") {
		t.Errorf("bound printed without the app's CPU:\n%s", b.String())
	}
}
