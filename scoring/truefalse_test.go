package scoring

import (
	"context"
	"math"
	"strings"
	"sync"
	"testing"
)

// tfItems are four items whose follow-ups are marked so the fake model can
// tell the condition of a prompt; n1 and n2 lack some controls.
var tfItems = []TFItem{
	{Key: "s1", Type: "scalar", Context: "s1-ctx", Utterance: "s1-u", Belief: "s1-b", Cancellation: "s1-cancel", Negation: "s1-negation", Strengthening: "s1-strengthen", Neutral: "s1-neutral"},
	{Key: "s2", Type: "scalar", Utterance: "s2-u", Belief: "s2-b", Cancellation: "s2-cancel", Negation: "s2-negation", Strengthening: "s2-strengthen", Neutral: "s2-neutral"},
	{Key: "n1", Type: "natural", Context: "S1: n1-ctx", Utterance: "S2: n1-u", Belief: "n1-b", Cancellation: "S2: n1-cancel", Strengthening: "S2: n1-strengthen", Neutral: "S2: n1-neutral"},
	{Key: "n2", Type: "natural", Context: "S1: n2-ctx", Utterance: "S2: n2-u", Belief: "n2-b", Cancellation: "S2: n2-cancel"},
}

// tfTable is P(True) per item and condition in the two orders (TF, FT).
// Only s2's trigger differs between orders: 0.75 and 0.5, mean 0.625.
var tfTable = map[string][2]float64{
	"s1|trigger": {0.75, 0.75}, "s1|cancel": {0.25, 0.25}, "s1|negation": {0.2, 0.2}, "s1|strengthen": {0.9, 0.9}, "s1|neutral": {0.7, 0.7}, "s1|prior": {0.5, 0.5},
	"s2|trigger": {0.75, 0.5}, "s2|cancel": {0.8, 0.8}, "s2|negation": {0.5, 0.5}, "s2|strengthen": {0.6, 0.6}, "s2|neutral": {0.4, 0.4}, "s2|prior": {0.7, 0.7},
	"n1|trigger": {0.4, 0.4}, "n1|cancel": {0.2, 0.2}, "n1|strengthen": {0.5, 0.5}, "n1|neutral": {0.3, 0.3}, "n1|prior": {0.1, 0.1},
	"n2|trigger": {0.9, 0.9}, "n2|cancel": {0.6, 0.6}, "n2|prior": {0.95, 0.95},
}

// conditionOf recovers item and condition from a rendered prompt.
func conditionOf(prompt string) string {
	for _, it := range tfItems {
		if !strings.Contains(prompt, it.Key+"-b") {
			continue
		}
		for _, c := range []string{"cancel", "negation", "strengthen", "neutral"} {
			if strings.Contains(prompt, it.Key+"-"+c) {
				return it.Key + "|" + c
			}
		}
		if strings.Contains(prompt, it.Key+"-u") {
			return it.Key + "|trigger"
		}
		return it.Key + "|prior"
	}
	return ""
}

func tableP(table map[string][2]float64) func(string, Order) float64 {
	return func(prompt string, o Order) float64 {
		v, ok := table[conditionOf(prompt)]
		if !ok {
			panic("fake model: unknown prompt " + prompt)
		}
		if o == FalseFirst {
			return v[1]
		}
		return v[0]
	}
}

// runAll answers every prompt with s, concurrently, as a runner would.
func runAll(t *testing.T, s Scorer, prompts []Prompt) map[string]Answer {
	t.Helper()
	var mu sync.Mutex
	var wg sync.WaitGroup
	out := map[string]Answer{}
	for _, p := range prompts {
		wg.Go(func() {
			a, err := s.Score(context.Background(), p)
			if err != nil {
				t.Errorf("prompt %s: %v", p.Key, err)
				return
			}
			mu.Lock()
			out[p.Key] = a
			mu.Unlock()
		})
	}
	wg.Wait()
	return out
}

func approx(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// wantTF are the hand-computed measures for tfTable (see the comments in
// TestTrueFalseMetrics).
func checkTFMetrics(t *testing.T, m map[string]TFMetrics) {
	t.Helper()
	type want struct{ ir, cr, bu, prior, neg, str, unch [2]int }
	wants := map[string]want{
		// s1: .75 > .5, .75 > .25, prior .5 < .75, neg .2, str .9 > .75, neutral .7 & .75 both > .5
		// s2: .625 > .5, .625 < .8 (no), prior .7 > .625 (no), neg .5 < .625, str .6 < .625 (no), neutral .4 vs .625 (no)
		"scalar": {[2]int{2, 2}, [2]int{1, 2}, [2]int{1, 2}, [2]int{1, 2}, [2]int{2, 2}, [2]int{1, 2}, [2]int{1, 2}},
		// n1: .4 (no), .4 > .2, bu no, prior .1 < .4, str .5 > .4, neutral .3 & .4 both ≤ .5
		// n2: .9, .9 > .6, bu yes, prior .95 > .9 (no); no negation, strengthening or neutral
		"natural": {[2]int{1, 2}, [2]int{2, 2}, [2]int{1, 2}, [2]int{1, 2}, [2]int{0, 0}, [2]int{1, 1}, [2]int{1, 1}},
		"all":     {[2]int{3, 4}, [2]int{3, 4}, [2]int{2, 4}, [2]int{2, 4}, [2]int{2, 2}, [2]int{2, 3}, [2]int{2, 3}},
	}
	for typ, w := range wants {
		got := m[typ]
		check := func(name string, s Share, w [2]int) {
			if s.Hits != w[0] || s.N != w[1] {
				t.Errorf("%s %s = %d/%d, want %d/%d", typ, name, s.Hits, s.N, w[0], w[1])
			}
		}
		check("implicature recognition", got.ImplicatureRecognition, w.ir)
		check("cancellation recognition", got.CancellationRecognition, w.cr)
		check("belief update", got.BeliefUpdate, w.bu)
		check("prior control", got.PriorControl, w.prior)
		check("negation cancellation", got.NegationCancellation, w.neg)
		check("strengthening", got.Strengthening, w.str)
		check("unchanged", got.Unchanged, w.unch)
	}
	if v, ok := m["natural"].NegationCancellation.Value(); ok {
		t.Errorf("natural negation cancellation = %v, want no value (no item has u⊥)", v)
	}
	if got := m["scalar"].MeanP[Trigger]; !approx(got, (0.75+0.625)/2) {
		t.Errorf("scalar mean P(trigger) = %v, want 0.6875", got)
	}
}

func TestTrueFalseLogprobs(t *testing.T) {
	for _, api := range []API{ChatAPI, CompletionsAPI} {
		t.Run(string(api), func(t *testing.T) {
			fm := &fakeModel{pTrue: tableP(tfTable)}
			srv := fm.server(t)
			c, err := NewClient(Config{BaseURLs: []string{srv.URL}, Model: "fake", API: api, Mode: Logprobs, Concurrency: 8}, noEnv)
			if err != nil {
				t.Fatal(err)
			}
			prompts, err := BuildTFPrompts(tfItems, Templates{})
			if err != nil {
				t.Fatal(err)
			}
			// s1, s2: 6 conditions; n1: 5 (no negation); n2: 3 — two orders each.
			if len(prompts) != 2*(6+6+5+3) {
				t.Fatalf("%d prompts, want 40", len(prompts))
			}
			answers := runAll(t, c, prompts)
			if got := fm.requests.Load(); got != 40 {
				t.Errorf("%d requests, want one per prompt (40)", got)
			}
			res := AggregateTF(tfItems, answers)
			// P(b) for s2's trigger: renormalising 0.8·0.75 against 0.8·0.25
			// gives 0.75 (True first), 0.5 (False first); mean 0.625.
			if got := res[1].P[Trigger]; !approx(got, 0.625) {
				t.Errorf("P(b|c,u) of s2 = %v, want 0.625", got)
			}
			if got := res[1].ByOrder[Trigger][FalseFirst]; !approx(got, 0.5) {
				t.Errorf("P(True) of s2 in order FT = %v, want 0.5", got)
			}
			if got := res[0].P[Cancel]; !approx(got, 0.25) {
				t.Errorf("P(b|c,u,u×) of s1 = %v, want 0.25", got)
			}
			if _, ok := res[3].P[Negation]; ok {
				t.Errorf("n2 has no negation follow-up but got P(negation)")
			}
			checkTFMetrics(t, ComputeTF(res))
		})
	}
}

// sampleTable has probabilities that five samples can express exactly.
var sampleTable = map[string][2]float64{
	"s1|trigger": {0.8, 0.6}, "s1|cancel": {0.2, 0.4}, "s1|negation": {0, 0}, "s1|strengthen": {1, 1}, "s1|neutral": {0.6, 0.8}, "s1|prior": {0.4, 0.4},
}

func TestTrueFalseSampling(t *testing.T) {
	for _, ignoreN := range []bool{false, true} {
		name := "server honours n"
		if ignoreN {
			name = "server ignores n"
		}
		t.Run(name, func(t *testing.T) {
			fm := &fakeModel{pTrue: tableP(sampleTable), ignoreN: ignoreN}
			srv := fm.server(t)
			c, err := NewClient(Config{BaseURLs: []string{srv.URL}, Model: "fake", Mode: Sampling, Concurrency: 1}, noEnv)
			if err != nil {
				t.Fatal(err)
			}
			prompts, err := BuildTFPrompts(tfItems[:1], Templates{})
			if err != nil {
				t.Fatal(err)
			}
			answers := map[string]Answer{}
			for _, p := range prompts {
				a, err := c.Score(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
				if len(a.Samples) != 5 {
					t.Fatalf("%s: %d samples, want 5", p.Key, len(a.Samples))
				}
				answers[p.Key] = a
			}
			wantReq := int64(len(prompts))
			if ignoreN {
				wantReq *= 5
			}
			if got := fm.requests.Load(); got != wantReq {
				t.Errorf("%d requests, want %d", got, wantReq)
			}
			res := AggregateTF(tfItems[:1], answers)
			// Shares of True among 5 samples, averaged over the two orders.
			want := map[Condition]float64{Trigger: 0.7, Cancel: 0.3, Negation: 0, Strengthen: 1, Neutral: 0.7, Prior: 0.4}
			for cond, w := range want {
				if got := res[0].P[cond]; !approx(got, w) {
					t.Errorf("P(b) %s = %v, want %v", cond, got, w)
				}
			}
		})
	}
}

func TestBuildTFPrompts(t *testing.T) {
	prompts, err := BuildTFPrompts(tfItems[:1], Templates{})
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]Prompt{}
	for _, p := range prompts {
		byKey[p.Key] = p
	}
	cancel := byKey["s1|cancel|FT"].Text
	for _, want := range []string{"s1-ctx", "s1-u\ns1-cancel", "Statement: s1-b", "A) False\nB) True"} {
		if !strings.Contains(cancel, want) {
			t.Errorf("cancel prompt lacks %q:\n%s", want, cancel)
		}
	}
	trigger := byKey["s1|trigger|TF"].Text
	if strings.Contains(trigger, "s1-cancel") || !strings.Contains(trigger, "A) True\nB) False") {
		t.Errorf("trigger prompt wrong:\n%s", trigger)
	}
	prior := byKey["s1|prior|TF"].Text
	if strings.Contains(prior, "s1-ctx") || strings.Contains(prior, "s1-u") || !strings.Contains(prior, "general knowledge") {
		t.Errorf("prior prompt must hold the belief only and ask for prior knowledge:\n%s", prior)
	}
	custom := Templates{TrueFalse: "{{.Belief}} {{.OptionA}}/{{.OptionB}}", Prior: "prior {{.Belief}}"}
	prompts, err = BuildTFPrompts(tfItems[:1], custom)
	if err != nil {
		t.Fatal(err)
	}
	if prompts[1].Text != "s1-b False/True" {
		t.Errorf("custom template rendered %q", prompts[1].Text)
	}
}

func TestTemplatesValidate(t *testing.T) {
	if err := DefaultTemplates().Validate(); err != nil {
		t.Fatalf("default templates: %v", err)
	}
	bad := DefaultTemplates()
	bad.Prior = "{{.Belif}}"
	bad.FewShot = "{{range .Examples}"
	err := bad.Validate()
	if err == nil || !strings.Contains(err.Error(), "template prior") || !strings.Contains(err.Error(), "template few_shot") {
		t.Fatalf("error %v should name the prior and few_shot templates", err)
	}
}

func noEnv(string) string { return "" }
