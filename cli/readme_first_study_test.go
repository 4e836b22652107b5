package cli

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"pragmalab/domain"
	"pragmalab/store"
)

// TestReadmeFirstStudy follows README.md's "Your first study in ten
// minutes" command by command, on a database as the first `go run .`
// leaves it (the four demo studies): each `cat > FILE <<'EOF'` writes its
// file, each `go run . …` runs in-process and must succeed. It follows
// both paths of the section: the crowd likelihood study (study 5), then
// the judgement study of the researcher's own design (study 6,
// docs/studies.md#judgement-study). Where the README waits for
// participants ("once participants have answered"), the test has four of
// them complete their batches of the study the commands were on through
// the store's participant writes, as the load benchmark's seeding does.
func TestReadmeFirstStudy(t *testing.T) {
	src, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(src)
	start := strings.Index(readme, "\n## Your first study in ten minutes\n")
	if start < 0 {
		t.Fatal(`README.md has no section "Your first study in ten minutes"`)
	}
	if strings.Count(readme[:start], "\n") > 60 {
		t.Errorf("the first-study section starts on line %d: not on the README's first screen", strings.Count(readme[:start], "\n")+2)
	}
	section := readme[start+1:]
	section = section[:strings.Index(section, "\n## ")]

	path, _ := seededDB(t)
	t.Chdir(t.TempDir())
	env := map[string]string{"PRAGMALAB_DB": path}
	var ran []string
	study := int64(0) // the study of the last --study
	creates := []string{`Study 5 "My first study" created`, `Study 6 "Meine Urteilsstudie" created`}
	sc := bufio.NewScanner(strings.NewReader(section))
	inSh := false
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "```sh":
			inSh = true
			continue
		case line == "```":
			inSh = false
			continue
		case !inSh || strings.TrimSpace(line) == "":
			continue
		}
		if file, ok := strings.CutPrefix(line, "cat > "); ok {
			file, delim, _ := strings.Cut(file, " <<")
			delim = strings.Trim(delim, `'"`)
			var body strings.Builder
			for sc.Scan() && sc.Text() != delim {
				body.WriteString(sc.Text() + "\n")
			}
			if err := os.WriteFile(filepath.Join(".", file), []byte(body.String()), 0o600); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if strings.HasPrefix(line, "#") {
			if strings.Contains(line, "once participants have answered") {
				participantsAnswer(t, path, study)
			}
			continue
		}
		args, ok := strings.CutPrefix(line, "go run . ")
		if !ok {
			t.Fatalf("README first study: a line that is neither a file nor `go run .`: %q", line)
		}
		if m := regexp.MustCompile(`--study (\d+)`).FindStringSubmatch(args); m != nil {
			study, _ = strconv.ParseInt(m[1], 10, 64)
		}
		code, out, errOut := runCLI(t, "", env, strings.Fields(args)...)
		if code != 0 {
			t.Fatalf("README first study: `go run . %s` exited %d:\n%s%s", args, code, out, errOut)
		}
		ran = append(ran, args)
		switch {
		case strings.HasPrefix(args, "study create"):
			if len(creates) == 0 || !strings.HasPrefix(out, creates[0]) {
				t.Fatalf("the README says the new study is %q; the command says:\n%s", creates, out)
			}
			creates = creates[1:]
		case strings.HasPrefix(args, "study pilot"):
			if !strings.Contains(out, "http://localhost:8080/p/") {
				t.Errorf("no pilot link:\n%s", out)
			}
		case strings.HasPrefix(args, "links"):
			if !strings.Contains(out, fmt.Sprintf("/s/%d?PROLIFIC_PID=", study)) {
				t.Errorf("no Prolific URL:\n%s", out)
			}
		case strings.HasPrefix(args, "analyze conditions"):
			// Each condition's mean rating, kontrolle rated high (4 or 5,
			// by the screen's place in the shuffled batch: its mean is
			// 4–5) and zielsatz low by the participants below.
			if !regexp.MustCompile(`kontrolle +\d+ +\d+ +\d+ +(4\.\d\d|5\.00)`).MatchString(out) || !regexp.MustCompile(`zielsatz +\d+ +\d+ +\d+ +[12]\.\d\d`).MatchString(out) {
				t.Errorf("no means by condition:\n%s", out)
			}
		case strings.Contains(args, "--what package"):
			cb, err := os.ReadFile(filepath.Join("paket", "codebook.md"))
			if err != nil || !strings.Contains(string(cb), "Conditions: kontrolle, zielsatz") || !strings.Contains(string(cb), "| 5 | völlig natürlich |") {
				t.Errorf("the package's codebook: %v\n%s", err, cb)
			}
		case strings.HasPrefix(args, "analyze toplines"):
			if !regexp.MustCompile(`Implicature recognition +1\.00`).MatchString(out) {
				t.Errorf("no toplines:\n%s", out)
			}
		}
	}
	want := []string{"study create", "import", "study batches", "study pilot", "study open", "links", "export", "analyze toplines",
		"study create", "import", "study batches", "study pilot", "study open", "links", "export", "analyze conditions", "export --study 6 --what package"}
	for i, w := range want {
		if i >= len(ran) || !strings.HasPrefix(ran[i], w) {
			t.Fatalf("the section ran %q; want the steps %q in order", ran, want)
		}
	}
}

// participantsAnswer has four Prolific participants complete a batch of
// the study each: the practice on its expected side, the checks passed,
// the items without cancellation rated high and with it low — in a
// judgement study, kontrolle rated 4–5 and zielsatz 1–3.
func participantsAnswer(t *testing.T, path string, studyID int64) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, err := db.Study(ctx, studyID)
	if err != nil {
		t.Fatal(err)
	}
	set := domain.SettingsFor(st.Kind)
	if err := st.DecodeSettings(&set); err != nil {
		t.Fatal(err)
	}
	training, err := db.CrowdTraining(ctx, studyID)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		a := store.CrowdArrival{PID: fmt.Sprintf("%024x", 0xf1a5700+i), StudyID: "readme", SessionID: fmt.Sprintf("readme%d", i)}
		p, err := db.EnterCrowd(ctx, studyID, a, set)
		if err != nil {
			t.Fatal(err)
		}
		if p, err = db.ConsentCrowd(ctx, studyID, p.Token, set); err != nil {
			t.Fatal(err)
		}
		for pos, tr := range training {
			rating := 6
			if tr.Condition == domain.ConditionCancel {
				rating = 2
			}
			if set.Judgement() {
				r, err := set.PracticeRangeOf(tr.Item.Training)
				if err != nil {
					t.Fatal(err)
				}
				rating = max(r.To, 1)
			}
			if _, err := db.AnswerCrowdTraining(ctx, studyID, p.Token, pos+1, 0, rating, 4000, set); err != nil {
				t.Fatal(err)
			}
		}
		screens, err := db.CrowdBatchScreens(ctx, p.BatchID)
		if err != nil {
			t.Fatal(err)
		}
		for _, sc := range screens {
			rating := 6 + i%2
			if sc.Item.Check == "low" || sc.Item.Check == "" && sc.Condition == domain.ConditionCancel {
				rating = 1 + i%3
			}
			if set.Judgement() {
				switch {
				case sc.Item.Check == "high":
					rating = 5
				case sc.Item.Check == "low":
					rating = 1
				case sc.Condition == "kontrolle":
					rating = 4 + (i+sc.Position)%2
				default:
					rating = 1 + (i+sc.Position)%3
				}
			}
			if _, err := db.SaveCrowdRating(ctx, studyID, p.Token, sc.Position, rating, 3000, set); err != nil {
				t.Fatal(err)
			}
		}
	}
}
