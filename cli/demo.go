package cli

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"

	"pragmalab/domain"
	"pragmalab/itemfiles"
	"pragmalab/scoring"
)

// demoItems is a small implicature data set we wrote ourselves: four items
// of each type, each with its cancellation and the three control follow-ups,
// plus four attention checks.
//
//go:embed demo/items.jsonl
var demoItems []byte

// seedDemo creates the demo studies and prints where to start; jobs runs
// the explanation demo's generation job and, on each study, a baseline of
// the task asking its own question.
func seedDemo(ctx context.Context, svc *app, jobs jobRunner, env *Env, base string) error {
	items, err := itemfiles.ParseItemsJSONL(bytes.NewReader(demoItems))
	if err != nil {
		return fmt.Errorf("demo items: %w", err)
	}
	if err := seedExpertDemo(ctx, svc, jobs, env, base, items); err != nil {
		return fmt.Errorf("demo expert study: %w", err)
	}
	if err := seedCrowdDemo(ctx, svc, jobs, env, base, items); err != nil {
		return fmt.Errorf("demo crowd study: %w", err)
	}
	if err := seedContextDemo(ctx, svc, jobs, env, base); err != nil {
		return fmt.Errorf("demo context survey: %w", err)
	}
	if err := seedExplainDemo(ctx, svc, jobs, env, base); err != nil {
		return fmt.Errorf("demo explanation rating: %w", err)
	}
	fmt.Fprintf(env.stdout, "These links are listed again on each study's page, or with `pragmalab links --study ID --base %s` (every study with `pragmalab study list`).\n", base)
	fmt.Fprintf(env.stdout, "No binary built? Every command runs as `go run .` from the checkout, e.g. `go run . links --study 1 --base %s` (your first study: README.md, \"Your first study in ten minutes\").\n", base)
	return nil
}

// linksAgain tells how to list a demo study's links again, at the
// address the server listens on.
func linksAgain(env *Env, studyID int64, base string) {
	fmt.Fprintf(env.stdout, "  List them again: pragmalab links --study %d --base %s\n", studyID, base)
}

// seedExpertDemo makes an expert validation study with one batch (its
// attention checks included) assigned to two experts, as round 1.
func seedExpertDemo(ctx context.Context, svc *app, jobs jobRunner, env *Env, base string, items []domain.Item) error {
	s := &domain.Study{Kind: domain.KindExpert, Name: "Demo: expert validation", Lang: "en", Seed: 7}
	d, err := svc.seed().SeedExpertDemo(ctx, s, items, domain.ExpertSettings{BatchSize: 20, Checks: 4}, []string{"Expert A", "Expert B"})
	if err != nil {
		return err
	}
	c := domain.CountItems(items)
	fmt.Fprintf(env.stdout, "Demo expert study %q: %d items and %d attention checks in %s.\n  Expert A's invitation link: %s/e/%s\n  Expert B's invitation link: %s/e/%s\n",
		s.Name, c.Data, c.Checks(), batchesLabel(d.Batches), base, d.Experts[0].Token, base, d.Experts[1].Token)
	linksAgain(env, s.ID, base)
	return seedHumanJob(ctx, jobs, env, s.ID, scoring.Expert)
}

// batchesLabel is "1 batch" or "N batches".
func batchesLabel(n int) string {
	if n == 1 {
		return "1 batch"
	}
	return fmt.Sprintf("%d batches", n)
}
