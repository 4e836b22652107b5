package cli

import (
	"context"
	"fmt"

	"pragmalab/runner"
	"pragmalab/scoring"
)

// seedHumanJob runs, on a demo study, the built-in random scorer on the
// task that asks the study's own question (docs/scoring.md#the-humans-own-questions),
// so the demo's job page shows those results with no model server.
func seedHumanJob(ctx context.Context, jobs jobRunner, env *Env, studyID int64, task scoring.Task) error {
	job, err := jobs.create(ctx, runner.Spec{StudyID: studyID, Task: task, Scorer: "random", Seed: 1})
	if err != nil {
		return fmt.Errorf("%s job: %w", task, err)
	}
	if err := jobs.run(ctx, job.ID, nil); err != nil {
		return fmt.Errorf("%s job: %w", task, err)
	}
	fmt.Fprintf(env.stdout, "  Model scoring: job #%d asks the built-in random scorer the study's own question (task %s).\n", job.ID, task)
	return nil
}
