package cli

import (
	"bytes"
	"context"
	"fmt"

	"pragmalab/domain"
	"pragmalab/itemfiles"
	"pragmalab/runner"
	"pragmalab/scoring"
)

// seedExplainDemo makes an explanation-rating study from the IMPAQTS-PID
// sample: a generation job of the built-in copy-target scorer (the target
// sentence as its own "explanation", the floor any model should beat) is
// run to the end, its outputs become the rating screens, and one expert is
// invited with the default number of screens.
func seedExplainDemo(ctx context.Context, svc *app, jobs jobRunner, env *Env, base string) error {
	ps, err := itemfiles.ParsePassagesTSV(bytes.NewReader(demoPassages))
	if err != nil {
		return fmt.Errorf("demo passages: %w", err)
	}
	s := &domain.Study{Kind: domain.KindExplain, Name: "Demo: rating model explanations (IMPAQTS-PID sample)", Lang: "it", Seed: 13}
	if err := svc.seed().SeedExplainDemoPassages(ctx, s, ps); err != nil {
		return err
	}
	job, err := jobs.create(ctx, runner.Spec{StudyID: s.ID, Task: scoring.Generation, Scorer: "copy-target",
		Strategy: scoring.ZeroShot, Seed: 1})
	if err != nil {
		return fmt.Errorf("copy-target job: %w", err)
	}
	if err := jobs.run(ctx, job.ID, nil); err != nil {
		return fmt.Errorf("copy-target job: %w", err)
	}
	res, err := jobs.results(ctx, job.ID)
	if err != nil {
		return err
	}
	outs := res.Outputs()
	a, n, err := svc.seed().SeedExplainDemoOutputs(ctx, s, outs, "Valutatore A")
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "Demo explanation rating %q: %d outputs of the copy-target scorer (job #%d) to rate.\n  Valutatore A's invitation link: %s/x/%s (%d screens)\n",
		s.Name, len(outs), job.ID, base, a.Token, n)
	linksAgain(env, s.ID, base)
	return seedHumanJob(ctx, jobs, env, s.ID, scoring.ExplanationRating)
}
