package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"pragmalab/domain"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"pragmalab/store"
)

// seededDB is a database holding the demo studies, as the first start
// seeds them, and what the seeding printed.
func seededDB(t *testing.T) (string, string) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "demo.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var out strings.Builder
	env := &Env{getenv: func(string) string { return "" }, stdin: strings.NewReader(""), stdout: &out, stderr: io.Discard}
	svc := newApp(db, nil)
	if err := seedDemo(ctx, svc, jobRunner{svc: svc, getenv: env.getenv}, env, "http://lab.example"); err != nil {
		t.Fatal(err)
	}
	return path, out.String()
}

func TestDemoSeedsEveryKind(t *testing.T) {
	path, printed := seededDB(t)
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	kinds := map[string]*domain.StudyOverview{}
	all, err := db.Dashboard(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range all {
		kinds[all[i].Study.Kind] = &all[i]
	}
	for _, k := range []string{domain.KindExpert, domain.KindCrowd, domain.KindContext, domain.KindExplain} {
		if kinds[k] == nil {
			t.Fatalf("no demo study of kind %s", k)
		}
	}
	// Each demo study has a finished job of the task asking its own
	// question, answered by a built-in scorer with no model server.
	for kind, task := range map[string]string{domain.KindExpert: "expert", domain.KindCrowd: "likert", domain.KindContext: "context", domain.KindExplain: "explanation-rating"} {
		js, err := db.StudyJobs(ctx, kinds[kind].Study.ID)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, j := range js {
			found = found || (j.Task == task && j.Status == domain.JobDone)
		}
		if !found {
			t.Errorf("the demo %s study has no finished %s job: %+v", kind, task, js)
		}
	}
	// The explanation-rating study rates the copy-target scorer's outputs:
	// each is the passage's target sentence.
	ex := kinds[domain.KindExplain].Study
	jobs, err := db.StudyJobs(ctx, ex.ID)
	copies := 0
	for _, j := range jobs {
		if j.Scorer == "copy-target" && j.Status == domain.JobDone {
			copies++
		}
	}
	if err != nil || len(jobs) != 2 || copies != 1 {
		t.Fatalf("explain demo jobs (the copy-target generation and the explanation-rating baseline): %+v %v", jobs, err)
	}
	_, n, _, err := db.ExplainStudyProgress(ctx, ex.ID, 1)
	if err != nil || n != 130 {
		t.Fatalf("explain demo outputs: %d %v", n, err)
	}
	if kinds[domain.KindExplain].UnderWay != 1 {
		t.Errorf("explain demo: %d raters under way, want 1 (invited with screens)", kinds[domain.KindExplain].UnderWay)
	}
	// The start-up text counts the expert study's items as the dashboard
	// and the study page do (16, the 4 attention checks apart), and the
	// crowd study's training items as drawn.
	if ov := kinds[domain.KindExpert]; !strings.Contains(printed, fmt.Sprintf(": %d items and 4 attention checks in 1 batch.", ov.Items)) || ov.Items != 16 {
		t.Errorf("the dashboard counts %d items; the start-up text says:\n%s", ov.Items, printed)
	}
	if tr, _ := db.CrowdTraining(ctx, kinds[domain.KindCrowd].Study.ID); len(tr) != 6 || !strings.Contains(printed, " and 6 training items.") {
		t.Errorf("%d training items drawn; the start-up text says:\n%s", len(tr), printed)
	}
	// The links printed can be listed again.
	for _, s := range all {
		if !strings.Contains(printed, "pragmalab links --study "+itoa64(s.Study.ID)) {
			t.Errorf("the seeding does not say how to list the links of study %d again:\n%s", s.Study.ID, printed)
		}
	}
	link := regexp.MustCompile(`Expert A's invitation link: (\S+)`).FindStringSubmatch(printed)
	code, out, errOut := runCLI(t, "", nil, "links", "--study", itoa64(kinds[domain.KindExpert].Study.ID), "--db", path, "--base", "http://lab.example")
	if code != 0 || link == nil || !regexp.MustCompile(`Expert A\s+`+regexp.QuoteMeta(link[1])).MatchString(out) {
		t.Fatalf("links: exit %d, %q %q; printed link %v", code, out, errOut, link)
	}
	code, out, _ = runCLI(t, "", nil, "links", "--study", itoa64(ex.ID), "--db", path)
	if code != 0 || !strings.Contains(out, "Valutatore A") || !strings.Contains(out, "http://localhost:8080/x/") {
		t.Fatalf("links of the explain study (default base): exit %d, %q", code, out)
	}
	code, out, _ = runCLI(t, "", nil, "links", "--study", itoa64(kinds[domain.KindCrowd].Study.ID), "--db", path, "--base", "https://lab.example/")
	if code != 0 || !strings.Contains(out, "https://lab.example/s/") || !strings.Contains(out, "PROLIFIC_PID=") {
		t.Fatalf("links of the crowd study: exit %d, %q", code, out)
	}
	if code, _, errOut := runCLI(t, "", nil, "links", "--db", path); code != 2 || !strings.Contains(errOut, "--study") {
		t.Fatalf("links without --study: exit %d, %q", code, errOut)
	}
	if code, _, errOut := runCLI(t, "", nil, "links", "--study", "999", "--db", path); code != 2 || !strings.Contains(errOut, "not found") {
		t.Fatalf("links of a missing study: exit %d, %q", code, errOut)
	}
}

func TestStudyCommands(t *testing.T) {
	path, _ := seededDB(t)
	code, out, errOut := runCLI(t, "", nil, "study", "list", "--db", path)
	if code != 0 || strings.Count(out, "\n") != 5 || !strings.Contains(out, "Demo: expert validation") || !strings.Contains(out, "DONE/UNDER WAY") {
		t.Fatalf("study list: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = runCLI(t, "", nil, "study", "clone", "--study", "1", "--name", "Re-run", "--db", path)
	id := regexp.MustCompile(`^Study (\d+) "Re-run"`).FindStringSubmatch(out)
	if code != 0 || id == nil {
		t.Fatalf("study clone: exit %d %q", code, out)
	}
	if code, _, _ := runCLI(t, "", nil, "study", "archive", "--study", id[1], "--db", path); code != 0 {
		t.Fatal("study archive failed")
	}
	_, out, _ = runCLI(t, "", nil, "study", "list", "--db", path)
	if strings.Contains(out, "Re-run") {
		t.Fatalf("an archived study is listed without --archived:\n%s", out)
	}
	_, out, _ = runCLI(t, "", nil, "study", "list", "--archived", "--db", path)
	if !regexp.MustCompile(`(?m)^` + id[1] + `\s+expert\s+draft\s+16\s+0/0\s+0\s+0\s+-\s+Re-run \(archived\)$`).MatchString(out) {
		t.Fatalf("archived clone not listed as such:\n%s", out)
	}
	if code, _, _ := runCLI(t, "", nil, "study", "archive", "--study", id[1], "--restore", "--db", path); code != 0 {
		t.Fatal("study archive --restore failed")
	}
	if _, out, _ = runCLI(t, "", nil, "study", "list", "--db", path); !strings.Contains(out, "Re-run") {
		t.Fatalf("restored study not listed:\n%s", out)
	}
	// Cloning the IMPAQTS studies copies passages, surveys and the outputs
	// to rate, never the experts.
	for _, src := range []string{"3", "4"} {
		code, out, _ := runCLI(t, "", nil, "study", "clone", "--study", src, "--db", path)
		m := regexp.MustCompile(`^Study (\d+) `).FindStringSubmatch(out)
		if code != 0 || m == nil {
			t.Fatalf("clone %s: exit %d %q", src, code, out)
		}
		db, err := store.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		var passages, surveys, outputs, people int
		r := db.Reader()
		r.QueryRow(`SELECT COUNT(*) FROM passages WHERE study_id = ?`, m[1]).Scan(&passages)
		r.QueryRow(`SELECT COUNT(*) FROM context_survey_passages sp JOIN context_surveys s ON s.id = sp.survey_id WHERE s.study_id = ?`, m[1]).Scan(&surveys)
		r.QueryRow(`SELECT COUNT(*) FROM explain_outputs WHERE study_id = ?`, m[1]).Scan(&outputs)
		r.QueryRow(`SELECT COUNT(*) FROM annotators WHERE study_id = ?`, m[1]).Scan(&people)
		db.Close()
		if passages != 130 || people != 0 || (src == "3" && surveys != 126) || (src == "4" && outputs != 130) {
			t.Errorf("clone of %s: %d passages, %d survey places, %d outputs, %d experts", src, passages, surveys, outputs, people)
		}
	}
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	log, _ := db.AuditLog(context.Background(), 1, 0)
	db.Close()
	if len(log) == 0 || log[len(log)-1].Actor != cliActor || log[len(log)-1].Action != "clone study" {
		t.Errorf("the command line's clone is not in the audit log: %+v", log)
	}
	if code, _, errOut := runCLI(t, "", nil, "study", "frobnicate", "--db", path); code != 2 || !strings.Contains(errOut, "unknown action") {
		t.Fatalf("unknown action: exit %d %q", code, errOut)
	}
	if code, _, errOut := runCLI(t, "", nil, "study", "clone", "--db", path); code != 2 || !strings.Contains(errOut, "--study is required") {
		t.Fatalf("clone without --study: exit %d %q", code, errOut)
	}
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }
