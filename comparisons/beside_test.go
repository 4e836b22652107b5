package comparisons

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"pragmalab/domain"
	"pragmalab/runner"
	"pragmalab/scoring"
	"pragmalab/store/storetest"
	"pragmalab/studies"
)

// besideCounter views a study's models beside the humans through svc,
// counting the jobs whose results it reads.
type besideCounter struct {
	svc   *Service
	loads int
}

func (b *besideCounter) view(t *testing.T, studyID int64) []ModelBesideHumans {
	t.Helper()
	ms, err := b.svc.modelsBesideHumans(context.Background(), studyID, func(ctx context.Context, id int64) (*runner.Results, error) {
		b.loads++
		return b.svc.studies.JobResults(ctx, id)
	})
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// freshBeside is what a server that has just started shows: the
// comparisons computed from the rows as they are.
func freshBeside(t *testing.T, svc *Service, studyID int64) []ModelBesideHumans {
	t.Helper()
	ms, err := svc.Restarted().ModelsBesideHumans(context.Background(), studyID)
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// TestModelsBesideHumansReadNoResultsTwice: a second view of the Analysis
// page whose study and jobs did not change reads no job's results, and
// neither does a view after the job's own page computed its comparison;
// a new job has its results read alone, and new human answers have every
// job compared again — each view showing what a fresh server would.
func TestModelsBesideHumansReadNoResultsTwice(t *testing.T) {
	f := storetest.NewCrowdFixture(t)
	for _, r := range [][4]int{{6, 2, 1, 7}, {5, 3, 1, 7}, {7, 1, 2, 6}, {6, 1, 1, 7}} {
		f.Complete(t, r[0], r[1], r[2], r[3])
	}
	svc := New(f.DB, studies.New(f.DB, nil))
	likert := runner.Spec{StudyID: f.ID, Task: scoring.Likert, Scorer: "random", Seed: 1}
	runJob(t, svc, likert)
	b := &besideCounter{svc: svc}
	first := b.view(t, f.ID)
	if len(first) != 1 || b.loads != 1 {
		t.Fatalf("first view: %d models, %d results read", len(first), b.loads)
	}
	if first[0].Within == nil || first[0].Correlation == nil || first[0].ECE == nil {
		t.Fatalf("first view: %+v", first[0])
	}
	if second := b.view(t, f.ID); b.loads != 1 || !reflect.DeepEqual(second, first) {
		t.Errorf("second view read %d results in all; same models: %v", b.loads, reflect.DeepEqual(second, first))
	}
	if fresh := freshBeside(t, svc, f.ID); !reflect.DeepEqual(fresh, first) {
		t.Errorf("kept %+v, fresh %+v", first, fresh)
	}

	// The job's page keys its comparison as the Analysis page does.
	page := &besideCounter{svc: svc.Restarted()}
	res, err := page.svc.studies.JobResults(context.Background(), first[0].JobID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := page.svc.CompareJobWithHumans(context.Background(), res, nil); err != nil {
		t.Fatal(err)
	}
	if ms := page.view(t, f.ID); page.loads != 0 || !reflect.DeepEqual(ms, first) {
		t.Errorf("after the job's page the Analysis page read %d results", page.loads)
	}

	likert.Seed = 2
	runJob(t, svc, likert)
	two := b.view(t, f.ID)
	if len(two) != 2 || b.loads != 2 || !reflect.DeepEqual(two[0], first[0]) {
		t.Errorf("a new job: %d models, %d results read in all", len(two), b.loads)
	}
	if fresh := freshBeside(t, svc, f.ID); !reflect.DeepEqual(fresh, two) {
		t.Errorf("kept %+v, fresh %+v", two, fresh)
	}

	f.Complete(t, 1, 7, 1, 7)
	humans := b.view(t, f.ID)
	if b.loads != 4 {
		t.Errorf("new human answers: %d results read in all, want 4", b.loads)
	}
	if fresh := freshBeside(t, svc, f.ID); !reflect.DeepEqual(fresh, humans) || reflect.DeepEqual(humans, two) {
		t.Errorf("new human answers: kept %+v, fresh %+v, before %+v", humans, fresh, two)
	}
}

// TestModelsBesideHumansSeeAJobsNewAnswers: a partial job resumed that
// answers more of its prompts and ends partial again — same status, same
// finish time on the tests' fixed clock — is compared again on the next
// view, not served its kept comparison.
func TestModelsBesideHumansSeeAJobsNewAnswers(t *testing.T) {
	ctx := context.Background()
	f := storetest.NewCrowdFixture(t)
	for _, r := range [][4]int{{6, 2, 1, 7}, {5, 3, 1, 7}, {7, 1, 2, 6}, {6, 1, 1, 7}} {
		f.Complete(t, r[0], r[1], r[2], r[3])
	}
	svc := New(f.DB, studies.New(f.DB, nil))
	j, err := svc.studies.LaunchJob(ctx, runner.Spec{StudyID: f.ID, Task: scoring.Likert, Scorer: "random", Seed: 1}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	prompts, err := f.DB.PendingPrompts(ctx, j.ID, 0, 1000)
	if err != nil || len(prompts) < 4 {
		t.Fatalf("%d prompts, %v", len(prompts), err)
	}
	points := f.Set.ScalePoints
	// answer gives prompts[from:to] the answer choice, and the rest an
	// error; the job ends partial.
	answer := func(from, to, choice int) {
		t.Helper()
		var rs []domain.JobResult
		for i, p := range prompts {
			if i < from || i >= to {
				rs = append(rs, domain.JobResult{Seq: p.Seq, Error: "timeout"})
				continue
			}
			dist := make([]float64, points)
			dist[choice-1] = 1
			a, err := json.Marshal(scoring.Answer{Dist: dist, Choice: choice})
			if err != nil {
				t.Fatal(err)
			}
			rs = append(rs, domain.JobResult{Seq: p.Seq, Answer: a})
		}
		if err := f.DB.SaveJobResults(ctx, j.ID, rs); err != nil {
			t.Fatal(err)
		}
		if err := f.DB.SetJobStatus(ctx, j.ID, domain.JobPartial, ""); err != nil {
			t.Fatal(err)
		}
	}
	answer(0, len(prompts)/2, points)
	b := &besideCounter{svc: svc}
	before := b.view(t, f.ID)
	if len(before) != 1 || before[0].Units == 0 {
		t.Fatalf("before: %+v", before)
	}
	if err := f.DB.RequeueJob(ctx, j.ID); err != nil {
		t.Fatal(err)
	}
	answer(len(prompts)/2, len(prompts)*3/4, 1)
	after := b.view(t, f.ID)
	if b.loads != 2 {
		t.Errorf("the job's new answers were read %d times in all, want 2", b.loads)
	}
	if fresh := freshBeside(t, svc, f.ID); !reflect.DeepEqual(after, fresh) {
		t.Errorf("kept %+v, fresh %+v", after, fresh)
	}
	if len(after) != 1 || after[0].Units <= before[0].Units {
		t.Errorf("units before %d, after %+v", before[0].Units, after)
	}
}

// runJob launches spec through the studies' Service and runs it to its end
// with the runner, as the server's background runner would.
func runJob(t *testing.T, svc *Service, spec runner.Spec) *domain.Job {
	t.Helper()
	ctx := context.Background()
	noEnv := func(string) string { return "" }
	j, err := svc.studies.LaunchJob(ctx, spec, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if err := runner.New(svc.db, nil, noEnv, nil).RunJob(ctx, j.ID, nil); err != nil {
		t.Fatal(err)
	}
	if j, err = svc.studies.StudyJob(ctx, spec.StudyID, j.ID); err != nil {
		t.Fatal(err)
	}
	return j
}
