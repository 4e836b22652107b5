package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// outsidePool writes the outside check of docs/statistics.md#llm-echo-measured:
// 10 batches × 40 items, in
// each batch 5 agents copying the model's answers with 25 % moved one
// point and 3 honest raters; a trusted reference of 2 honest raters per
// batch in a file of its own; the model's likert results (its answer and
// distribution). The generator is this test's own, not the bench's: an
// item's typical value uniform on 1.5–6.5; an honest rater's leniency
// N(0, 0.5²) and noise SD uniform on 0.7–1.3; the model's belief the
// typical value plus noise of SD noise (1: as noisy as one person), its
// distribution a normal of SD 0.7 around it cut at the half points, its
// answer the most probable point.
func outsidePool(t *testing.T, seed uint64, noise float64, withDist bool) (pool, models, ref string) {
	rng := rand.New(rand.NewPCG(seed, 44))
	var p, m, r strings.Builder
	p.WriteString("participant_id,batch_id,item_id,item_type,condition,rating,check\n")
	r.WriteString("participant_id,batch_id,item_id,item_type,condition,rating,check\n")
	m.WriteString("model,item_id,item_type,condition,label,number,mean,not_asked,p_1,p_2,p_3,p_4,p_5,p_6,p_7,number_fwd,number_rev\n")
	clamp := func(v float64) int { return int(max(1, min(7, math.Round(v)))) }
	cdf := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	for b := range 10 {
		typ := make([]float64, 40)
		answer := make([]int, 40)
		for i := range typ {
			typ[i] = 1.5 + 5*rng.Float64()
			belief := typ[i] + noise*rng.NormFloat64()
			d := make([]float64, 7)
			prev, best, mean := 0.0, 0, 0.0
			for k := range 7 {
				c := 1.0
				if k < 6 {
					c = cdf((float64(k+1) + 0.5 - belief) / 0.7)
				}
				d[k], prev = c-prev, c
				mean += float64(k+1) * d[k]
				if d[k] > d[best] {
					best = k
				}
			}
			answer[i] = best + 1
			probs := make([]string, 7)
			for k := range d {
				probs[k] = ""
				if withDist {
					probs[k] = fmt.Sprintf("%.6f", d[k])
				}
			}
			fmt.Fprintf(&m, "gpt-x,b%d-i%d,scalar,trigger,%d,%d,%.4f,false,%s,%d,%d\n", b, i, answer[i], answer[i], mean, strings.Join(probs, ","), answer[i], answer[i])
		}
		honest := func(w *strings.Builder, id string) {
			lenient, sd := 0.5*rng.NormFloat64(), 0.7+0.6*rng.Float64()
			for i := range typ {
				fmt.Fprintf(w, "%s,B%d,b%d-i%d,scalar,trigger,%d,\n", id, b, b, i, clamp(typ[i]+lenient+sd*rng.NormFloat64()))
			}
		}
		for a := range 5 {
			for i := range typ {
				v := answer[i]
				if rng.Float64() < 0.25 {
					switch {
					case v == 1:
						v = 2
					case v == 7:
						v = 6
					case rng.IntN(2) == 0:
						v--
					default:
						v++
					}
				}
				fmt.Fprintf(&p, "agent-%d-%d,B%d,b%d-i%d,scalar,trigger,%d,\n", b, a, b, b, i, v)
			}
		}
		for h := range 3 {
			honest(&p, fmt.Sprintf("human-%d-%d", b, h))
		}
		for h := range 2 {
			honest(&r, fmt.Sprintf("trusted-%d-%d", b, h))
		}
	}
	return writeAnalyzeInput(t, "pool.csv", p.String()), writeAnalyzeInput(t, "models.csv", m.String()), writeAnalyzeInput(t, "reference.csv", r.String())
}

type integrityOut struct {
	Summary struct {
		Rule            string `json:"rule"`
		ReferenceHumans int    `json:"reference_humans"`
		Flagged         int    `json:"flagged"`
		Caveat          string `json:"caveat"`
	} `json:"llm_echo_summary"`
	Participants []struct {
		Participant string   `json:"participant_id"`
		Flags       []string `json:"flags"`
		Reference   *struct {
			Flagged bool `json:"flagged"`
		} `json:"llm_echo_reference"`
	} `json:"participants"`
}

// flaggedKinds counts the agents and honest raters flagged llm_echo.
func (o integrityOut) flaggedKinds() (agents, humans int) {
	for _, p := range o.Participants {
		if !strings.Contains(strings.Join(p.Flags, ","), "llm_echo") {
			continue
		}
		if strings.HasPrefix(p.Participant, "agent-") {
			agents++
		} else {
			humans++
		}
	}
	return
}

// TestAnalyzeIntegrityOutsideCheck is the check from outside of
// docs/statistics.md#llm-echo-measured:
// `analyze integrity --ratings POOL --models M --reference REF --json`
// flags ≥ 45 of the 50 copiers and ≤ 1 of the 30 honest raters; without
// the reference the JSON carries the caveat. Three seeds, the model's
// distribution given or not.
func TestAnalyzeIntegrityOutsideCheck(t *testing.T) {
	for _, c := range []struct {
		seed     uint64
		withDist bool
	}{{1, true}, {2, true}, {3, false}} {
		t.Run(fmt.Sprintf("seed %d dist %v", c.seed, c.withDist), func(t *testing.T) {
			pool, models, ref := outsidePool(t, c.seed, 1, c.withDist)
			out, errs, code := analyzeCLI(t, "", "analyze", "integrity", "--ratings", pool, "--models", models, "--reference", ref, "--json")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			var got integrityOut
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatal(err)
			}
			agents, humans := got.flaggedKinds()
			t.Logf("with the reference: %d of 50 copiers, %d of 30 honest raters flagged", agents, humans)
			if agents < 45 || humans > 1 {
				t.Errorf("with the reference: %d of 50 copiers flagged (want ≥ 45), %d of 30 honest raters (want ≤ 1)", agents, humans)
			}
			if got.Summary.Rule != "reference" || got.Summary.ReferenceHumans != 20 || got.Summary.Caveat != "" || got.Summary.Flagged != agents+humans {
				t.Errorf("summary %+v", got.Summary)
			}
			out, errs, code = analyzeCLI(t, "", "analyze", "integrity", "--ratings", pool, "--models", models, "--json")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			got = integrityOut{}
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatal(err)
			}
			pa, ph := got.flaggedKinds()
			t.Logf("against the pool: %d of 50 copiers, %d of 30 honest raters flagged", pa, ph)
			if got.Summary.Rule != "pool" || got.Summary.Caveat != PoolCaveat {
				t.Errorf("without a reference the JSON must carry the caveat: %+v", got.Summary)
			}
		})
	}
}

// TestAnalyzeIntegrityReferenceText: the text output without a reference
// prints the caveat; with it, the reference table; --methods states the
// layers, the measured rates and the number flagged.
func TestAnalyzeIntegrityReferenceText(t *testing.T) {
	pool, models, ref := outsidePool(t, 5, 1, true)
	out, errs, code := analyzeCLI(t, "", "analyze", "integrity", "--ratings", pool, "--models", models)
	if code != 0 || !strings.Contains(out, "not with humans you trust") {
		t.Errorf("exit %d, no caveat in the text:\n%s%s", code, out, errs)
	}
	out, errs, code = analyzeCLI(t, "", "analyze", "integrity", "--ratings", pool, "--models", models, "--reference", ref)
	if code != 0 || !strings.Contains(out, "reference max follow") || strings.Contains(out, "not with humans you trust") {
		t.Errorf("exit %d, reference table:\n%s%s", code, out, errs)
	}
	out, errs, code = analyzeCLI(t, "", "analyze", "integrity", "--ratings", pool, "--models", models, "--reference", ref, "--methods", "text")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	t.Logf("the methods paragraph:\n%s", out)
	for _, want := range []string{"20 trusted reference raters", "gpt-x", "with a model as noisy as one person (noise 1.0) it flagged 85.6 %", "Of 80 participants,", "no participant was excluded automatically"} {
		if !strings.Contains(out, want) {
			t.Errorf("methods paragraph lacks %q:\n%s", want, out)
		}
	}
}

// TestAnalyzeIntegrityReferenceBadInput: a reference without models, a
// reference on other items and a bad probability are refused, naming the
// file.
func TestAnalyzeIntegrityReferenceBadInput(t *testing.T) {
	pool, models, _ := outsidePool(t, 6, 1, true)
	other := writeAnalyzeInput(t, "other.csv", "participant_id,batch_id,item_id,item_type,condition,rating,check\nq,B1,zzz,scalar,trigger,3,\n")
	badProb := writeAnalyzeInput(t, "bad.csv", "model,item_id,number,p_1,p_2,p_3,p_4,p_5,p_6,p_7\ngpt-x,b0-i0,3,0.5,0.5,0.5,0,0,0,0\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--reference", other}, "--reference needs --models"},
		{[]string{"--models", models, "--reference", other}, "other.csv: the reference rates no item"},
		{[]string{"--models", badProb}, `bad.csv: line 2, column "p_1": the probabilities p_1 … p_7 sum to 1.5`},
		{[]string{"--models", models, "--methods", "text", "--json"}, "choose one of --json and --methods"},
	} {
		out, errs, code := analyzeCLI(t, "", append([]string{"analyze", "integrity", "--ratings", pool}, c.args...)...)
		if code != 2 || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 naming %q", c.args, code, out, errs, c.want)
		}
	}
}
