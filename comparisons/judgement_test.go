package comparisons

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"pragmalab/runner"
	"pragmalab/scoring"
	"pragmalab/scoring/scoringtest"
	"pragmalab/store/storetest"
	"pragmalab/studies"
)

// TestLikertJobOnAJudgementStudy: a model scored with the likert task on
// a judgement study is asked what its participants were asked — each
// item's sentence (with its context) in each of the study's own
// conditions, on its 5-point scale with both end labels — and its
// comparison with the humans (the alt-test, the distributions against the
// ceiling, the correlation) appears beside them on the Analysis page
// (docs/scoring.md#the-humans-own-questions).
func TestLikertJobOnAJudgementStudy(t *testing.T) {
	ctx := context.Background()
	f := storetest.NewJudgementFixture(t, 32) // the alt-test wants 30 items of each human
	for p := range 12 {
		f.CompleteAttentive(t, func(n int, cond string) int {
			k := n + p
			if cond == "kontrolle" {
				return 3 + k%3
			}
			return 1 + (k*7)%3
		})
	}
	svc := New(f.DB, studies.New(f.DB, nil))
	srv := scoringtest.NewServer(0)
	defer srv.Close()
	spec := runner.Spec{StudyID: f.ID, Task: scoring.Likert, Scorer: runner.ModelScorer,
		Config: scoring.Config{BaseURLs: []string{srv.URL}, Model: "fake-7b", Concurrency: 2, Mode: scoring.Logprobs}}
	j := runJob(t, svc, spec)
	if j.Strategy != "5-point" {
		t.Errorf("strategy %q: the job does not ask on the study's 5-point scale", j.Strategy)
	}
	prompts, err := f.DB.JobPrompts(ctx, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(prompts) != 32*2*2 {
		t.Fatalf("%d prompts, want 32 items × 2 conditions × 2 orders", len(prompts))
	}
	seen := map[string]bool{}
	for _, p := range prompts {
		item, cond, _, _ := scoring.SplitPromptKey(p.Key)
		seen[cond] = true
		n := strings.TrimLeft(item[1:], "0")
		want := fmt.Sprintf("Der Satz %s ist ganz normal.", n)
		if cond == "zielsatz" {
			want = fmt.Sprintf("Den Satz %s hat der Gärtner gesehen.", n)
			if !strings.Contains(p.Text, "Im Garten.") {
				t.Errorf("%s: the context is not shown:\n%s", p.Key, p.Text)
			}
		}
		if !strings.Contains(p.Text, want) || !strings.Contains(p.Text, storetest.JudgementQuestion) ||
			!strings.Contains(p.Text, "1 = völlig unnatürlich") && !strings.Contains(p.Text, "1 = völlig natürlich") ||
			!strings.Contains(p.Text, "from 1 to 5 only") || strings.Contains(strings.ToLower(p.Text), "implicature") {
			t.Errorf("%s does not ask %q on the study's labelled 5-point scale:\n%s", p.Key, want, p.Text)
		}
	}
	if !seen["kontrolle"] || !seen["zielsatz"] || len(seen) != 2 {
		t.Errorf("conditions asked: %v", seen)
	}
	ms, err := svc.ModelsBesideHumans(ctx, f.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 {
		t.Fatalf("%d jobs beside the humans, want the likert job", len(ms))
	}
	m := ms[0]
	if m.Alt == nil {
		t.Fatalf("no alt-test beside the humans: %s", m.Why)
	}
	if m.Within == nil || m.Units != 64 || m.Skill == nil || m.Correlation == nil {
		t.Errorf("distributions or correlation missing: within %v over %d units, skill %v, correlation %+v", m.Within, m.Units, m.Skill, m.Correlation)
	}
	// The job's page speaks of the study's own conditions: no
	// "cancellation recognition" (no item is asked with and without a
	// cancellation), and no note on the crowd likelihood study's batches
	// ("half with the cancelling utterance, about 30 items").
	res, err := runner.LoadResults(ctx, f.DB, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if res.HumanMetrics == nil || res.HumanMetrics.CancellationRecognition != nil {
		t.Errorf("the judgement job's human measures: %+v", res.HumanMetrics)
	}
	at, err := svc.JobHumanAltTest(ctx, res, nil)
	if err != nil || at == nil {
		t.Fatalf("alt-test: %v %v", at, err)
	}
	if at.LatinSquare != "" {
		t.Errorf("the crowd study's batches described on a judgement job: %q", at.LatinSquare)
	}
}

// TestIntegrityMethodsOfAJudgementStudy: a judgement study runs the crowd
// study's integrity layers, so its Analysis page's methods state them as
// a crowd study's do (docs/statistics.md#integrity-methods).
func TestIntegrityMethodsOfAJudgementStudy(t *testing.T) {
	f := storetest.NewJudgementFixture(t, 4)
	for range 3 {
		f.CompleteAttentive(t, func(int, string) int { return 5 })
	}
	svc := New(f.DB, studies.New(f.DB, nil))
	st, err := f.DB.Study(context.Background(), f.ID)
	if err != nil {
		t.Fatal(err)
	}
	p, err := svc.IntegrityMethods(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p, "Participant integrity was checked with") || !strings.Contains(p, "No participant was excluded or rejected on a flag alone") {
		t.Errorf("a judgement study's integrity paragraph:\n%q", p)
	}
}
