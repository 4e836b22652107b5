package runner

import (
	"context"
	"math"
	"strings"
	"testing"

	"pragmalab/scoring"
)

func TestParsePrices(t *testing.T) {
	p, err := ParsePrices("gpt-4o-mini=0.15/0.60; big=2/8/1.5/6")
	if err != nil {
		t.Fatal(err)
	}
	if got := p["gpt-4o-mini"]; got != (Price{0.15, 0.60, 0.075, 0.30}) {
		t.Errorf("live-only price: %+v (batch should default to half)", got)
	}
	if got := p["big"]; got != (Price{2, 8, 1.5, 6}) {
		t.Errorf("four prices: %+v", got)
	}
	for _, bad := range []string{"gpt", "m=1", "m=1/x", "m=-1/2", "=1/2", "m=1/2/3"} {
		if _, err := ParsePrices(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// The estimate counts the prompts a job would ask, their tokens by the
// stated rule, the output limits of the mode, and prices them.
func TestEstimateSpecs(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	study := itemStudy(t, db, 2) // 24 prompts
	prompts, err := BuildPrompts(ctx, db, modelSpec(study, "http://x", 1))
	if err != nil {
		t.Fatal(err)
	}
	in := 0
	for _, p := range prompts {
		in += (len(p.Text)+3)/4 + 7
	}
	lp := modelSpec(study, "http://x", 1)
	sm := modelSpec(study, "http://x", 1)
	sm.Config.Model, sm.Config.Mode = "other", scoring.Sampling
	prices, _ := ParsePrices("fake-7b=1/2")
	es, err := EstimateSpecs(ctx, db, []Spec{lp, sm}, prices)
	if err != nil {
		t.Fatal(err)
	}
	if e := es[0]; e.Prompts != 24 || e.Requests != 24 || e.InputTokens != in || e.OutputTokensMax != 24 || !strings.Contains(e.TokenRule, "estimated") {
		t.Errorf("log-probability estimate %+v, want %d input tokens", e, in)
	}
	if e := es[0]; e.Live == nil || math.Abs(e.Live.Input-float64(in)/1e6) > 1e-12 || math.Abs(e.Batch.Max()-e.Live.Max()/2) > 1e-12 {
		t.Errorf("costs %+v %+v", e.Live, e.Batch)
	}
	if e := es[1]; e.OutputTokensMax != 24*5*16 || e.Live != nil {
		t.Errorf("sampling estimate %+v: 5 samples of 16 tokens per prompt, no price given", e)
	}
}
