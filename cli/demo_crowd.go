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

// demoCrowdChecks are two attention checks expected to be rated high; the
// shared demo items bring the low ones.
//
//go:embed demo/crowd_checks.jsonl
var demoCrowdChecks []byte

// seedCrowdDemo makes a crowd likelihood study from the demo items: six
// training items, two batches of ten items (half with the cancellation) plus
// the six checks, a preview allowed, and prints a Prolific-style link.
func seedCrowdDemo(ctx context.Context, svc *app, jobs jobRunner, env *Env, base string, items []domain.Item) error {
	checks, err := itemfiles.ParseItemsJSONL(bytes.NewReader(demoCrowdChecks))
	if err != nil {
		return err
	}
	s := &domain.Study{Kind: domain.KindCrowd, Name: "Demo: crowd likelihood study (Prolific)", Lang: "en", Seed: 11}
	set := domain.DefaultCrowdSettings()
	set.BatchSize, set.CompletionCode, set.AllowPreview = 10, "DEMO1234", true
	b, err := svc.seed().SeedCrowdStudy(ctx, s, append(append([]domain.Item(nil), items...), checks...), set)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "Demo crowd study %q: %s\n  A participant arriving from Prolific: %s/s/%d?PROLIFIC_PID=%s&STUDY_ID=demostudy&SESSION_ID=demosession1\n  Preview (stores nothing): %s/s/%d/preview\n",
		s.Name, b, base, s.ID, "5f0c1a2b3c4d5e6f7a8b9c0d", base, s.ID)
	linksAgain(env, s.ID, base)
	return seedHumanJob(ctx, jobs, env, s.ID, scoring.Likert)
}
