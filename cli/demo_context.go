package cli

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"pragmalab/domain"

	"pragmalab/store"
	"pragmalab/studies"
)

// demoPassages is the IMPAQTS-PID sample by Paci, Panunzi and Pezzelle
// (CC BY-NC 4.0; demo/impaqts-pid-sample.LICENSE.txt says where it comes
// from). The participant pages show the attribution.
//
//go:embed demo/impaqts-pid-sample.tsv
var demoPassages []byte

// seedContextDemo makes an Italian context-expansion survey study from the
// sample: the paper's 3 surveys of 42, one expert invited to the first.
func seedContextDemo(ctx context.Context, db *store.DB, env *Env, base string) error {
	ps, err := studies.ParsePassagesTSV(bytes.NewReader(demoPassages))
	if err != nil {
		return fmt.Errorf("demo passages: %w", err)
	}
	s := &domain.Study{Kind: domain.KindContext, Name: "Demo: context-expansion survey (IMPAQTS-PID sample)", Lang: "it", Seed: 11}
	if err := db.CreateStudy(ctx, s); err != nil {
		return err
	}
	if err := db.ImportPassages(ctx, s.ID, ps); err != nil {
		return err
	}
	if _, err := studies.BuildContextSurveys(ctx, db, s, store.DefaultContextSettings()); err != nil {
		return err
	}
	surveys, err := db.ContextSurveys(ctx, s.ID)
	if err != nil {
		return err
	}
	a, err := db.CreateAnnotator(ctx, s.ID, "Esperta A")
	if err != nil {
		return err
	}
	if _, err := db.AssignContextSurvey(ctx, s.ID, a.ID, surveys[0].ID); err != nil {
		return err
	}
	// Open through the go-live checklist, so the demo proves it passes.
	if err := studies.OpenStudy(ctx, db, s.ID, ""); err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "Demo context survey %q: %d passages in %d surveys.\n  Esperta A's invitation link: %s/e/%s\n",
		s.Name, len(ps), len(surveys), base, a.Token)
	linksAgain(env, s.ID)
	return nil
}
