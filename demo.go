package main

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"

	"pragmalab/analysis"
	"pragmalab/store"
)

// demoItems is a small implicature data set we wrote ourselves: four items
// of each type, each with its cancellation and the three control follow-ups,
// plus four attention checks.
//
//go:embed demo/items.jsonl
var demoItems []byte

// seedDemo creates the demo studies and prints where to start.
func seedDemo(ctx context.Context, db *store.DB, env *cli, base string) error {
	items, err := store.ParseItemsJSONL(bytes.NewReader(demoItems))
	if err != nil {
		return fmt.Errorf("demo items: %w", err)
	}
	if err := seedExpertDemo(ctx, db, env, base, items); err != nil {
		return fmt.Errorf("demo expert study: %w", err)
	}
	if err := seedCrowdDemo(ctx, db, env, base, items); err != nil {
		return fmt.Errorf("demo crowd study: %w", err)
	}
	if err := seedContextDemo(ctx, db, env, base); err != nil {
		return fmt.Errorf("demo context survey: %w", err)
	}
	return nil
}

// seedExpertDemo makes an expert validation study with one batch (its
// attention checks included) assigned to two experts, as round 1.
func seedExpertDemo(ctx context.Context, db *store.DB, env *cli, base string, items []store.Item) error {
	s := &store.Study{Kind: store.KindExpert, Name: "Demo: expert validation", Lang: "en", Seed: 7}
	if err := db.CreateStudy(ctx, s); err != nil {
		return err
	}
	set := store.ExpertSettings{BatchSize: 20, Checks: 4}
	if err := db.SetStudySettings(ctx, s.ID, set); err != nil {
		return err
	}
	if err := db.ImportItems(ctx, s.ID, items); err != nil {
		return err
	}
	stored, err := db.ListItems(ctx, s.ID)
	if err != nil {
		return err
	}
	var data, checks []analysis.ExpertBatchItem
	for _, it := range stored {
		bi := analysis.ExpertBatchItem{ID: it.ID, Type: it.Type}
		if it.Check != "" {
			checks = append(checks, bi)
		} else {
			data = append(data, bi)
		}
	}
	batches, err := analysis.BuildExpertBatches(data, checks, set.BatchSize, set.Checks, s.Seed)
	if err != nil {
		return err
	}
	ids := make([][]int64, len(batches))
	for i, b := range batches {
		for _, it := range b {
			ids[i] = append(ids[i], it.ID)
		}
	}
	if err := db.SaveBatches(ctx, s.ID, ids); err != nil {
		return err
	}
	bs, err := db.Batches(ctx, s.ID)
	if err != nil {
		return err
	}
	var experts []*store.Annotator
	for _, name := range []string{"Expert A", "Expert B"} {
		a, err := db.CreateAnnotator(ctx, s.ID, name)
		if err != nil {
			return err
		}
		experts = append(experts, a)
	}
	if err := db.AssignRound1(ctx, s.ID, bs[0].ID, []int64{experts[0].ID, experts[1].ID}); err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "Demo expert study %q: %d items in %d batch(es).\n  Expert A's invitation link: %s/e/%s\n  Expert B's invitation link: %s/e/%s\n",
		s.Name, len(data), len(batches), base, experts[0].Token, base, experts[1].Token)
	return nil
}
