package web

import (
	"context"
	"encoding/csv"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pragmalab/cli/seed"
	"pragmalab/comparisons"
	"pragmalab/domain"
	"pragmalab/runner"
	"pragmalab/store"
)

// TestLLMEchoOnParticipants: without a likert scoring job the participants
// table says LLM-echo was not assessed; once a likert job has answered,
// the participant whose ratings copy its most likely points is flagged
// llm_echo with the evidence, on the page and in the participants export,
// and the honest simulated participants are not; nobody is excluded on it
// (#32 §4).
func TestLLMEchoOnParticipants(t *testing.T) {
	env, c, studyID, base := benchCrowdStudy(t)
	if body := c.get(base).Body; !strings.Contains(body, comparisons.NoLLMEchoJob) || strings.Contains(body, `data-testid="flag-llm_echo"`) {
		t.Fatalf("without a likert job the page should say %q and flag nobody", comparisons.NoLLMEchoJob)
	}
	id, copier := likertCopier(t, env, c, studyID)

	body := c.get(base).Body
	if !strings.Contains(body, "LLM-echo: assessed against the most likely points of ") || !strings.Contains(body, "(job "+strconv.FormatInt(id, 10)+"); 1 flagged.") {
		t.Errorf("the page does not say the check ran against job %d:\n%.2000s", id, body[strings.Index(body, `data-testid="llm-echo-status"`):])
	}
	for _, row := range strings.Split(body, `<tr data-testid="participant-`)[1:] {
		pid := row[:strings.Index(row, `"`)]
		flagged := strings.Contains(row, `data-testid="flag-llm_echo"`)
		if flagged != (pid == copier) {
			t.Errorf("%s: llm_echo shown %v (the copier is %s)", pid, flagged, copier)
		}
		if flagged && !strings.Contains(row, "agrees with ") {
			t.Errorf("the copier's llm_echo lacks its evidence:\n%s", row)
		}
	}

	export := c.get(base + "/export/participants.csv")
	recs, err := csv.NewReader(strings.NewReader(export.Body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	last := len(recs[0]) - 1
	for _, r := range recs[1:] {
		if got := strings.Contains(r[last], domain.FlagLLMEcho); got != (r[0] == copier) {
			t.Errorf("export: %s integrity_flags %q (the copier is %s)", r[0], r[last], copier)
		}
		if r[0] == copier && r[13] != "no" {
			t.Errorf("the copier is auto_excluded %q on an integrity flag", r[13])
		}
	}
}

// benchCrowdStudy is a jobs env with the bench crowd study (30 items, seed
// 3), an admin's client and the study's admin path.
func benchCrowdStudy(t *testing.T) (*testEnv, *client, int64, string) {
	t.Helper()
	env, _ := newJobsEnv(t, func(string) string { return "" })
	b, err := seed.New(env.db).SeedBenchCrowd(context.Background(), 30, 3)
	if err != nil {
		t.Fatal(err)
	}
	return env, env.adminClient(), b.StudyID, "/admin/studies/" + strconv.FormatInt(b.StudyID, 10)
}

// likertCopier runs the study's likert job and makes a participant copy
// its most likely points (copyModel); it returns the job's id and the
// copier's PROLIFIC_PID.
func likertCopier(t *testing.T, env *testEnv, c *client, studyID int64) (int64, string) {
	t.Helper()
	job := launchHumanJob(t, env, c, studyID, "likert")
	id, _ := strconv.ParseInt(job[strings.LastIndex(job, "/")+1:], 10, 64)
	res, err := runner.LoadResults(context.Background(), env.db, id)
	if err != nil {
		t.Fatal(err)
	}
	return id, copyModel(t, env, studyID, res)
}

// copyModel makes the study's first participant the rules keep (the
// simulated crowd has careless ones, excluded on their checks) answer
// every data screen with the model's most likely point and returns their
// PROLIFIC_PID.
func copyModel(t *testing.T, env *testEnv, studyID int64, res *runner.Results) string {
	t.Helper()
	ctx := context.Background()
	rows, err := env.db.RatingRows(ctx, studyID, false)
	if err != nil || len(rows) == 0 {
		t.Fatalf("ratings: %v, %d rows", err, len(rows))
	}
	_, set, err := env.db.CrowdStudy(ctx, studyID)
	if err != nil {
		t.Fatal(err)
	}
	reps, err := env.db.CrowdParticipants(ctx, studyID, set)
	if err != nil {
		t.Fatal(err)
	}
	kept := map[int64]bool{}
	for _, r := range reps {
		kept[r.ID] = !r.AutoExcluded
	}
	i := slices.IndexFunc(rows, func(r store.RatingRow) bool { return kept[r.ParticipantID] })
	if i < 0 {
		t.Fatal("every simulated participant is excluded by the rules")
	}
	pid, part := rows[i].PID, rows[i].ParticipantID
	model := map[[2]string]int{}
	for _, h := range res.Human {
		model[[2]string{h.Item, h.Condition}] = h.Number
	}
	n := 0
	for _, r := range rows {
		point, ok := model[[2]string{r.Item, r.Condition}]
		if r.ParticipantID != part || r.Check != "" || !ok {
			continue
		}
		if _, err := env.db.Writer().ExecContext(ctx, `
			UPDATE crowd_ratings SET rating = ?
			WHERE participant_id = ? AND condition = ? AND item_id = (SELECT id FROM items WHERE study_id = ? AND key = ?)`,
			point, part, r.Condition, studyID, r.Item); err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n < 10 {
		t.Fatalf("the copier has %d data ratings the model answered, want at least 10", n)
	}
	return pid
}

// TestIntegrityMethodsOnAnalysisPage: the Analysis page's methods
// paragraph of a crowd study says which integrity layers ran, LLM-echo's
// measured rates for the rule used and how many participants each flag
// marked — the model's copier among them — and its downloads carry the
// same paragraph (docs/statistics.md#integrity-methods).
func TestIntegrityMethodsOnAnalysisPage(t *testing.T) {
	env, c, studyID, base := benchCrowdStudy(t)
	likertCopier(t, env, c, studyID)
	page := c.get(base + "/analysis").Body
	i := strings.Index(page, "Participant integrity was checked with")
	if i < 0 {
		t.Fatalf("the Analysis page has no integrity paragraph:\n%.3000s", page)
	}
	para := page[i:min(len(page), i+4000)]
	for _, want := range []string{"the server&#39;s own record", "drawn per participant", "LLM-echo against the study&#39;s finished scoring jobs",
		"of copying agents", "llm_echo 1", "No participant was excluded or rejected on a flag alone"} {
		if !strings.Contains(para, want) {
			t.Errorf("the integrity paragraph lacks %q:\n%s", want, para)
		}
	}
	if txt := c.get(base + "/analysis/methods.txt").Body; !strings.Contains(txt, "Participant integrity was checked with") || !strings.Contains(txt, "llm_echo 1") {
		t.Errorf("methods.txt lacks the integrity paragraph:\n%s", txt)
	}
}
