package cli

import (
	"context"
	"fmt"
	"strings"

	"pragmalab/domain"
	"pragmalab/studies"
)

// The steps of a study's page that the README's first study takes from
// the command line (docs/cli.md#study): building its batches and making
// its pilot link.

// buildBatches builds the study's batches (crowd, judgement, expert) or surveys
// (context) from its settings and seed, as the page's button does.
func buildBatches(ctx context.Context, svc *app, env *Env, id int64) error {
	st, err := svc.store.Study(ctx, id)
	if err != nil {
		return err
	}
	switch st.Kind {
	case domain.KindCrowd, domain.KindJudgement:
		set, err := studies.CrowdSettings(st)
		if err != nil {
			return err
		}
		b, err := svc.BuildCrowdBatches(ctx, id, set, st.Seed)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "Study %d: %s\n", id, b)
	case domain.KindExpert:
		set, err := studies.ExpertSettingsOf(st)
		if err != nil {
			return err
		}
		n, err := svc.BuildExpertBatches(ctx, st, set)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "Study %d: %d expert batches built.\n", id, n)
	case domain.KindContext:
		set, err := studies.ContextSettingsOf(st)
		if err != nil {
			return err
		}
		plan, err := svc.BuildContextSurveys(ctx, st, set)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "Study %d: %d surveys built.\n", id, len(plan.Surveys))
	default:
		return usagef("study batches: an explanation-rating study has no batches; its screens are given to each expert as they are invited")
	}
	return svc.store.Audit(ctx, cliActor, id, "build batches", "from the command line")
}

// pilotLink makes the study a new pilot link and prints it.
func pilotLink(ctx context.Context, svc *app, env *Env, id int64, base string) error {
	if err := svc.NewPilotLink(ctx, id); err != nil {
		return err
	}
	st, err := svc.store.Study(ctx, id)
	if err != nil {
		return err
	}
	panel, err := svc.StudyState(ctx, st)
	if err != nil {
		return err
	}
	if err := svc.store.Audit(ctx, cliActor, id, "pilot link", "a new pilot link"); err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "Pilot link of study %d (any earlier one no longer works; answers are kept apart):\n%s/p/%s\n", id, strings.TrimRight(base, "/"), panel.PilotToken)
	return nil
}
