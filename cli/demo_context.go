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

// demoPassages is the IMPAQTS-PID sample by Paci, Panunzi and Pezzelle
// (CC BY-NC 4.0; demo/impaqts-pid-sample.LICENSE.txt says where it comes
// from). The participant pages show the attribution.
//
//go:embed demo/impaqts-pid-sample.tsv
var demoPassages []byte

// seedContextDemo makes an Italian context-expansion survey study from the
// sample: the paper's 3 surveys of 42, one expert invited to the first.
func seedContextDemo(ctx context.Context, svc *app, jobs jobRunner, env *Env, base string) error {
	ps, err := itemfiles.ParsePassagesTSV(bytes.NewReader(demoPassages))
	if err != nil {
		return fmt.Errorf("demo passages: %w", err)
	}
	s := &domain.Study{Kind: domain.KindContext, Name: "Demo: context-expansion survey (IMPAQTS-PID sample)", Lang: "it", Seed: 11}
	d, err := svc.seed().SeedContextDemo(ctx, s, ps, domain.DefaultContextSettings(), "Esperta A")
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "Demo context survey %q: %d passages in %d surveys.\n  Esperta A's invitation link: %s/e/%s\n",
		s.Name, len(ps), d.Surveys, base, d.Expert.Token)
	linksAgain(env, s.ID, base)
	return seedHumanJob(ctx, jobs, env, s.ID, scoring.ContextTask)
}
