package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"pragmalab/analysis"
	"pragmalab/analysis/echobench"
)

const benchIntegrityUsage = `Usage: pragmalab bench integrity [options]

Measure LLM-echo's detection and false-flag rates on simulated studies
(docs/statistics.md#llm-echo-measured): in each, a pool of participants of
whom a share are agents copying a model's answers with a quarter moved one
point, the rest honest raters and one honest rater who gives every item
its typical value; two models answering with distributions, of a given
noise (0 a perfect model, 1 as noisy as one person); three trusted
reference humans. Every study is assessed with the pool's own humans and
with the trusted reference, the latter also with the models' answers
alone (a models file without p_1 … p_k). Honest ratings come from two generators, and
false-flag rates are given per generator and as their range. Every rate
has its 95 % Wilson interval. Seeded: the same options print the same
tables.

Options:
`

func benchIntegrity(ctx context.Context, args []string, env *Env) error {
	fs := newFlagSet("bench integrity", benchIntegrityUsage, env)
	c := echobench.DefaultEchoBenchConfig()
	fs.IntVar(&c.Studies, "studies", c.Studies, "simulated studies per cell (generator × model noise × agent share)")
	fs.IntVar(&c.Pool, "pool", c.Pool, "participants of a study, agents included")
	fs.IntVar(&c.Reference, "reference", c.Reference, "trusted reference humans of a study")
	fs.IntVar(&c.MinItems, "min-items", c.MinItems, "fewest items of a study (drawn uniformly up to --max-items)")
	fs.IntVar(&c.MaxItems, "max-items", c.MaxItems, "most items of a study")
	fs.Uint64Var(&c.Seed, "seed", c.Seed, "random seed")
	fs.IntVar(&c.Workers, "workers", c.Workers, "cells run in parallel (the result does not depend on it)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if c.Workers < 1 || c.Workers > 64 {
		return usagef("bench integrity: --workers must be 1–64, got %d", c.Workers)
	}
	if err := c.Validate(); err != nil {
		return usagef("bench integrity: %v", err)
	}
	start := time.Now()
	res, err := echobench.EchoBench(ctx, c)
	if err != nil {
		return err
	}
	var out strings.Builder
	writeEchoBench(&out, c, res)
	fmt.Fprintf(&out, "%d studies in %.1f s\n", len(res), time.Since(start).Seconds())
	_, err = io.WriteString(env.stdout, out.String())
	return err
}

// echoTally counts hits of n with its Wilson interval.
type echoTally struct{ hits, n int }

func (t echoTally) String() string {
	if t.n == 0 {
		return "—"
	}
	ci := analysis.Wilson(t.hits, t.n)
	return fmt.Sprintf("%.1f %% [%.1f, %.1f]", 100*float64(t.hits)/float64(t.n), 100*ci[0], 100*ci[1])
}

// echoRange is a false-flag rate per generator and their range.
func echoRange(gens []string, by map[string]echoTally) string {
	var parts []string
	lo, hi := 2.0, -1.0
	for _, g := range gens {
		t := by[g]
		parts = append(parts, g+" "+t.String())
		if t.n > 0 {
			r := float64(t.hits) / float64(t.n)
			lo, hi = min(lo, r), max(hi, r)
		}
	}
	if hi < 0 {
		return "—"
	}
	return fmt.Sprintf("%.1f–%.1f %% (%s)", 100*lo, 100*hi, strings.Join(parts, "; "))
}

// echoRows sums the studies by a key per rule: agents' detection,
// honest raters' false flags by generator, the typical raters' flags by
// generator.
type echoRows struct {
	keys    []string
	det     map[string]*echoTally
	honest  map[string]map[string]echoTally
	typical map[string]map[string]echoTally
}

func newEchoRows() *echoRows {
	return &echoRows{det: map[string]*echoTally{}, honest: map[string]map[string]echoTally{}, typical: map[string]map[string]echoTally{}}
}

func (r *echoRows) add(key string, s echobench.EchoBenchStudy, f echobench.EchoBenchFlags) {
	if r.det[key] == nil {
		r.keys = append(r.keys, key)
		r.det[key] = &echoTally{}
		r.honest[key] = map[string]echoTally{}
		r.typical[key] = map[string]echoTally{}
	}
	d := r.det[key]
	d.hits += f.Agents
	d.n += s.Agents
	h := r.honest[key][s.Generator]
	h.hits += f.Honest
	h.n += s.Honest
	r.honest[key][s.Generator] = h
	ty := r.typical[key][s.Generator]
	ty.hits += f.Typical
	ty.n += s.Typical
	r.typical[key][s.Generator] = ty
}

func (r *echoRows) write(w io.Writer, gens []string, keyTitle string) {
	fmt.Fprintf(w, "%-36s | %-22s | %-62s | %s\n", keyTitle, "agents flagged", "honest raters flagged (range over generators)", "typical-value rater flagged")
	for _, k := range r.keys {
		fmt.Fprintf(w, "%-36s | %-22s | %-62s | %s\n", k, r.det[k], echoRange(gens, r.honest[k]), echoRange(gens, r.typical[k]))
	}
	fmt.Fprintln(w)
}

// writeEchoBench prints the tables of docs/statistics.md#llm-echo-measured.
func writeEchoBench(w io.Writer, c echobench.EchoBenchConfig, res []echobench.EchoBenchStudy) {
	fmt.Fprintf(w, "LLM-echo on %d simulated studies: %d per cell, a pool of %d, %d trusted reference humans, %d–%d items, generators %s, seed %d\n\n",
		len(res), c.Studies, c.Pool, c.Reference, c.MinItems, c.MaxItems, strings.Join(c.Generators, ", "), c.Seed)
	rules := []struct {
		name string
		of   func(echobench.EchoBenchStudy) echobench.EchoBenchFlags
	}{
		{"trusted reference", func(s echobench.EchoBenchStudy) echobench.EchoBenchFlags { return s.Ref }},
		{"reference, answers only", func(s echobench.EchoBenchStudy) echobench.EchoBenchFlags { return s.RefAnswers }},
		{"pool's own humans", func(s echobench.EchoBenchStudy) echobench.EchoBenchFlags { return s.Pool }},
	}
	fmt.Fprintln(w, "By model noise (all agent shares and items):")
	byNoise := newEchoRows()
	for _, ru := range rules {
		for _, t := range c.ModelNoises {
			for _, s := range res {
				if s.ModelNoise == t {
					byNoise.add(fmt.Sprintf("%s, noise %.2f", ru.name, t), s, ru.of(s))
				}
			}
		}
	}
	byNoise.write(w, c.Generators, "rule, model noise")
	fmt.Fprintln(w, "By agents' share of the pool (model noise ≥ 0.5, all items):")
	byShare := newEchoRows()
	for _, ru := range rules {
		for _, sh := range c.AgentShares {
			for _, s := range res {
				if s.AgentShare == sh && s.ModelNoise >= 0.5 {
					byShare.add(fmt.Sprintf("%s, agents %.0f %%", ru.name, 100*sh), s, ru.of(s))
				}
			}
		}
	}
	byShare.write(w, c.Generators, "rule, agents")
	fmt.Fprintln(w, "By items per participant (trusted reference):")
	byItems := newEchoRows()
	for _, t := range c.ModelNoises {
		if t < 0.5 {
			continue
		}
		for _, b := range echoItemBins(c.MinItems, c.MaxItems) {
			for _, s := range res {
				if s.ModelNoise == t && s.Items >= b[0] && s.Items <= b[1] {
					byItems.add(fmt.Sprintf("noise %.2f, %d–%d items", t, b[0], b[1]), s, s.Ref)
				}
			}
		}
	}
	byItems.write(w, c.Generators, "model noise, items")
}

// echoItemBins splits min–max items into bins at 20 and 40.
func echoItemBins(lo, hi int) [][2]int {
	var out [][2]int
	for _, b := range [][2]int{{lo, 19}, {20, 39}, {40, hi}} {
		b[0], b[1] = max(b[0], lo), min(b[1], hi)
		if b[0] <= b[1] {
			out = append(out, b)
		}
	}
	return out
}
