package cli

import (
	"bytes"
	"context"
	"fmt"
	"pragmalab/domain"

	"pragmalab/runner"
	"pragmalab/scoring"
	"pragmalab/store"
	"pragmalab/studies"
)

// seedExplainDemo makes an explanation-rating study from the IMPAQTS-PID
// sample: a generation job of the built-in copy-target scorer (the target
// sentence as its own "explanation", the floor any model should beat) is
// run to the end, its outputs become the rating screens, and one expert is
// invited with the default number of screens.
func seedExplainDemo(ctx context.Context, db *store.DB, env *Env, base string) error {
	ps, err := studies.ParsePassagesTSV(bytes.NewReader(demoPassages))
	if err != nil {
		return fmt.Errorf("demo passages: %w", err)
	}
	s := &domain.Study{Kind: domain.KindExplain, Name: "Demo: rating model explanations (IMPAQTS-PID sample)", Lang: "it", Seed: 13}
	if err := db.CreateStudy(ctx, s); err != nil {
		return err
	}
	if err := db.ImportPassages(ctx, s.ID, ps); err != nil {
		return err
	}
	job, err := runner.Create(ctx, db, runner.Spec{StudyID: s.ID, Task: scoring.Generation, Scorer: "copy-target",
		Strategy: scoring.ZeroShot, Seed: 1}, env.getenv)
	if err != nil {
		return fmt.Errorf("copy-target job: %w", err)
	}
	if err := runner.New(db, nil, env.getenv, nil).RunJob(ctx, job.ID, func(store.JobProgress) {}); err != nil {
		return fmt.Errorf("copy-target job: %w", err)
	}
	res, err := runner.LoadResults(ctx, db, job.ID)
	if err != nil {
		return err
	}
	outs := res.Outputs()
	if err := db.ImportOutputs(ctx, s.ID, outs); err != nil {
		return err
	}
	set := store.DefaultExplainSettings()
	a, err := db.CreateAnnotator(ctx, s.ID, "Valutatore A")
	if err != nil {
		return err
	}
	n, err := db.AssignExplainScreens(ctx, s.ID, a.ID, set.PerExpert, set.Overlap)
	if err != nil {
		return err
	}
	// Open through the go-live checklist, so the demo proves it passes.
	if err := studies.OpenStudy(ctx, db, s.ID, ""); err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "Demo explanation rating %q: %d outputs of the copy-target scorer (job #%d) to rate.\n  Valutatore A's invitation link: %s/x/%s (%d screens)\n",
		s.Name, len(outs), job.ID, base, a.Token, n)
	linksAgain(env, s.ID)
	return nil
}
