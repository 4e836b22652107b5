package runner

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"pragmalab/domain"
	"pragmalab/scoring"
	"pragmalab/scoring/scoringtest"
)

// TestLikertAsksWithTheStudysScale: a crowd study with its own 5-point
// scale, labels and question (docs/studies.md#rating-scale) is asked of a
// model on that scale: the prompts name its labelled points (bare ones
// are not listed) under its question and ask for a number from 1 to 5, the job records "5-point", and every answer's
// distribution, the results' options and the CSV are over 5 points.
func TestLikertAsksWithTheStudysScale(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	c := humanCase{task: scoring.Likert, kind: domain.KindCrowd, lang: "en"}
	study := humanStudyFixture(t, db, c)
	set := domain.DefaultCrowdSettings()
	set.ScalePoints, set.CheckHighMin, set.CheckLowMax = 5, 4, 2
	set.ScaleLabels = map[string]string{"1": "surely not", "3": "can't tell", "5": "surely so"}
	set.Question = "How sure are you that this is meant?"
	if err := db.SaveCrowdSettings(ctx, study, set); err != nil {
		t.Fatal(err)
	}
	srv := scoringtest.NewServer(0)
	defer srv.Close()
	job, err := Create(ctx, db, humanSpec(study, c, srv.URL, scoring.Logprobs), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if job.Strategy != "5-point" {
		t.Errorf("strategy %q, want 5-point", job.Strategy)
	}
	rows, err := db.JobPrompts(ctx, job.ID)
	if err != nil || len(rows) == 0 {
		t.Fatalf("%d prompts, %v", len(rows), err)
	}
	for _, r := range rows {
		want := "1 = surely not\n3 = can't tell\n5 = surely so\nAnswer with one number from 1 to 5 only."
		if r.Order == string(scoring.Reversed) {
			want = "1 = surely so\n3 = can't tell\n5 = surely not\nAnswer with one number from 1 to 5 only."
		}
		if !strings.Contains(r.Text, "How sure are you that this is meant? ") || !strings.Contains(r.Text, want) ||
			strings.Contains(r.Text, "7") || strings.Contains(r.Text, "absolutely") {
			t.Fatalf("prompt %s does not ask on the study's scale (want %q):\n%s", r.Key, want, r.Text)
		}
	}
	if err := New(db, nil, noEnv, nil).RunJob(ctx, job.ID, nil); err != nil {
		t.Fatal(err)
	}
	res, err := LoadResults(ctx, db, job.ID)
	if err != nil {
		t.Fatal(err)
	}
	if res.Job.Status != domain.JobDone || len(res.Options()) != 5 || len(res.Human) == 0 {
		t.Fatalf("status %s, options %v, %d questions", res.Job.Status, res.Options(), len(res.Human))
	}
	for _, h := range res.Human {
		sum := 0.0
		for _, p := range h.Dist {
			sum += p
		}
		if len(h.Dist) != 5 || !close6(sum, 1) || h.Number < 1 || h.Number > 5 {
			t.Fatalf("%s %s: distribution %v, number %d: want 5 points summing to 1", h.Item, h.Condition, h.Dist, h.Number)
		}
	}
	var csv bytes.Buffer
	if err := res.WriteCSV(&csv); err != nil {
		t.Fatal(err)
	}
	head := strings.SplitN(csv.String(), "\n", 2)[0]
	if !strings.Contains(head, ",p_5,") || strings.Contains(head, "p_6") {
		t.Errorf("CSV header %q: want p_1…p_5", head)
	}
}

// TestLikertElevenPointsNeedsSampling: log-probability mode reads one
// digit, so an 11-point study's likert job in that mode is refused, naming
// the mode, and made in sampling mode.
func TestLikertElevenPointsNeedsSampling(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	c := humanCase{task: scoring.Likert, kind: domain.KindCrowd, lang: "en"}
	study := humanStudyFixture(t, db, c)
	set := domain.DefaultCrowdSettings()
	set.ScalePoints = 11
	set.ScaleLabels = map[string]string{"1": "never", "11": "surely"}
	if err := db.SaveCrowdSettings(ctx, study, set); err != nil {
		t.Fatal(err)
	}
	_, err := Create(ctx, db, humanSpec(study, c, "http://127.0.0.1:1", scoring.Logprobs), noEnv)
	if err == nil || !strings.Contains(err.Error(), "mode") || !strings.Contains(err.Error(), "at most 9 points") {
		t.Fatalf("11 points in logprob mode: %v", err)
	}
	if jobs, err := db.StudyJobs(ctx, study); err != nil || len(jobs) != 0 {
		t.Fatalf("%d jobs after a refusal (%v)", len(jobs), err)
	}
	job, err := Create(ctx, db, humanSpec(study, c, "http://127.0.0.1:1", scoring.Sampling), noEnv)
	if err != nil || job.Strategy != "11-point" {
		t.Fatalf("sampling mode: %v, %+v", err, job)
	}
}
