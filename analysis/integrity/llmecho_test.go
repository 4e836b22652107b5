package integrity

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestPermutationTail checks the exact recursion against hand-computed
// cases and against enumerating every subset.
func TestPermutationTail(t *testing.T) {
	for _, c := range []struct {
		w          []int
		k, obs     int
		mean, tail float64
	}{
		{[]int{1, -1, 2}, 1, 1, 2.0 / 3, 2.0 / 3}, // {1}, {−1}, {2}
		{[]int{1, -1, 2}, 2, 3, 4.0 / 3, 1.0 / 3}, // sums 0, 3, 1
		{[]int{1, 1, 1, 1, 1, -1, -1, -1, -1, -1}, 5, 5, 0, 1.0 / 252},
		{[]int{0, 0}, 1, 0, 0, 1},
		{[]int{3}, 0, 0, 0, 1},
	} {
		mean, tail := permutationTail(c.w, c.k, c.obs)
		if math.Abs(mean-c.mean) > 1e-12 || math.Abs(tail-c.tail) > 1e-12 {
			t.Errorf("permutationTail(%v, %d, %d) = %v, %v; want %v, %v", c.w, c.k, c.obs, mean, tail, c.mean, c.tail)
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 50 {
		n := 1 + rng.IntN(10)
		w := make([]int, n)
		for i := range w {
			w[i] = rng.IntN(9) - 4
		}
		k, obs := rng.IntN(n+1), rng.IntN(9)-4
		var count, hits, sum float64
		for mask := range 1 << n {
			if popcount(mask) != k {
				continue
			}
			s := 0
			for i := range n {
				if mask&(1<<i) != 0 {
					s += w[i]
				}
			}
			count++
			sum += float64(s)
			if s >= obs {
				hits++
			}
		}
		mean, tail := permutationTail(w, k, obs)
		if math.Abs(mean-sum/count) > 1e-9 || math.Abs(tail-hits/count) > 1e-9 {
			t.Errorf("permutationTail(%v, %d, %d) = %v, %v; enumeration gives %v, %v", w, k, obs, mean, tail, sum/count, hits/count)
		}
	}
}

func popcount(x int) int {
	n := 0
	for ; x > 0; x &= x - 1 {
		n++
	}
	return n
}

// echoCase builds the ratings of participants over items i0…, all in
// condition trigger, and a model answering 4 everywhere.
func echoCase(byParticipant map[string][]int, items int) ([]EchoRating, []ModelAnswer) {
	var rs []EchoRating
	for _, p := range []string{"X", "A", "B"} {
		for i, v := range byParticipant[p] {
			rs = append(rs, EchoRating{Participant: p, Item: "i" + strconv.Itoa(i), Condition: "trigger", Rating: v})
		}
	}
	var ms []ModelAnswer
	for i := range items {
		ms = append(ms, ModelAnswer{Model: "m", Item: "i" + strconv.Itoa(i), Rating: 4}) // every condition
	}
	return rs, ms
}

func repeat(v, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func cat(parts ...[]int) []int {
	var out []int
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// The other humans A and B of the hand-computed cases: on 20 items, never
// the model's 4; on items 10–19 both on one side of it, the same side.
var (
	handA = cat(repeat(2, 5), repeat(6, 5), repeat(6, 5), repeat(2, 5))
	handB = cat(repeat(6, 5), repeat(2, 5), repeat(6, 5), repeat(2, 5))
)

// handCase assesses X's ratings against A, B and the model.
func handCase(x []int) EchoResult {
	n := len(x)
	rs, ms := echoCase(map[string][]int{"X": x, "A": handA[:n], "B": handB[:n]}, n)
	return LLMEcho(rs, ms, DefaultEchoOptions())[0]
}

func close12(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// TestLLMEchoSignal: X agrees with the model on 10 of 20 items and with
// neither other human anywhere; X's differences go the humans' way every
// time: 20 agreeing pairs of 20, chance 10/20, p = 1/C(10,5) — independent
// signal, no flag.
func TestLLMEchoSignal(t *testing.T) {
	got := handCase(cat(repeat(4, 10), repeat(5, 5), repeat(3, 5)))
	m := got.Models[0]
	want := EchoModel{Model: "m", Items: 20, AgreeModel: 0.5, Gap: 0.5, Excess: 0.5, Divergent: 10, Pairs: 20}
	plain := m
	plain.AgreeDivergent, plain.ChanceDivergent, plain.PValue = nil, nil, nil
	if plain != want {
		t.Fatalf("X with signal: %+v, want %+v", m, want)
	}
	if *m.AgreeDivergent != 1 || !close12(*m.ChanceDivergent, 0.5) || !close12(*m.PValue, 1.0/252) {
		t.Errorf("divergent agreement %v, chance %v, p %v; want 1, 0.5, 1/252", *m.AgreeDivergent, *m.ChanceDivergent, *m.PValue)
	}
	if got.Flagged || m.Flagged || got.Echoes != "" {
		t.Errorf("X with signal flagged: %+v", got)
	}
}

// TestLLMEchoAtChance: the same agreement with the model, but X's
// differences go the humans' way in 12 pairs of 20, as chance would:
// P(S ≥ 2) = 126/252. Flagged; A, who never agrees with the model, not.
func TestLLMEchoAtChance(t *testing.T) {
	x := cat(repeat(4, 10), repeat(5, 3), repeat(3, 2), repeat(5, 2), repeat(3, 3))
	got := handCase(x)
	m := got.Models[0]
	if *m.AgreeDivergent != 0.6 || !close12(*m.ChanceDivergent, 0.5) || !close12(*m.PValue, 0.5) {
		t.Errorf("divergent agreement %v, chance %v, p %v; want 0.6, 0.5, 0.5", *m.AgreeDivergent, *m.ChanceDivergent, *m.PValue)
	}
	if !got.Flagged || got.Echoes != "m" || !strings.Contains(got.Reason, "agrees with m on 50% of 20 items against 0% with the other humans") {
		t.Errorf("X not flagged as echo of m: %+v", got)
	}
	rs, ms := echoCase(map[string][]int{"X": x, "A": handA, "B": handB}, 20)
	if a := LLMEcho(rs, ms, DefaultEchoOptions())[1]; a.Participant != "A" || a.Flagged || a.Models[0].AgreeModel != 0 {
		t.Errorf("A: %+v", a)
	}
}

// TestLLMEchoPerfectCopy: no difference to test, flagged on the agreement;
// nine items are too few to assess whatever the agreement.
func TestLLMEchoPerfectCopy(t *testing.T) {
	got := handCase(repeat(4, 20))
	if !got.Flagged || got.Models[0].PValue != nil || got.Models[0].Pairs != 0 || !strings.Contains(got.Reason, "never differs") {
		t.Errorf("perfect copy: %+v", got)
	}
	got = handCase(repeat(4, 9))
	if got.Flagged || !strings.HasPrefix(got.Reason, "not assessed") {
		t.Errorf("nine items: %+v", got)
	}
}

// TestLLMEchoEnds: a model answer at an end of the scale leaves one way to
// differ, so such items are left out of the direction test.
func TestLLMEchoEnds(t *testing.T) {
	rs := []EchoRating{{"X", "a", "cancel", 2}, {"A", "a", "cancel", 3}, {"X", "b", "cancel", 5}, {"A", "b", "cancel", 6}}
	ms := []ModelAnswer{{"m", "a", "cancel", 1, 0, nil}, {"m", "b", "cancel", 4, 0, nil}, {"m", "b", "trigger", 7, 0, nil}}
	m := LLMEcho(rs, ms, EchoOptions{Points: 7, MinItems: 1, MinGap: 0.1, MinExcess: 0.1, Alpha: 0.01})[0].Models[0]
	if m.Items != 2 || m.Divergent != 1 || m.Pairs != 1 || *m.AgreeDivergent != 1 || *m.PValue != 1 {
		t.Errorf("ends: %+v", m)
	}
}

func TestModelsMatchingNothing(t *testing.T) {
	rs := []EchoRating{{"X", "a", "cancel", 2}}
	ms := []ModelAnswer{{"m1", "a", "", 1, 0, nil}, {"m2", "a", "trigger", 1, 0, nil}, {"m3", "a", "cancel", 1, 0, nil}, {"m4", "z", "", 1, 0, nil}}
	got := ModelsMatchingNothing(rs, ms)
	if strings.Join(got, ",") != "m2,m4" {
		t.Errorf("ModelsMatchingNothing = %v, want m2, m4", got)
	}
}

func TestEchoOptionsValidate(t *testing.T) {
	if err := DefaultEchoOptions().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, o := range []EchoOptions{{Points: 1, MinItems: 1, MinGap: .1, MinExcess: .1, Alpha: .1}, {Points: 7, MinItems: 0, MinGap: .1, MinExcess: .1, Alpha: .1},
		{Points: 7, MinItems: 1, MinGap: 1, MinExcess: .1, Alpha: .1}, {Points: 7, MinItems: 1, MinGap: .1, MinExcess: 0, Alpha: .1}, {Points: 7, MinItems: 1, MinGap: .1, MinExcess: .1, Alpha: math.NaN()}} {
		if o.Validate() == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

// TestNormalTail: the approximation used past exactCells stays near the
// exact tail on a case both can compute, and a crowd of hundreds per item
// takes it without building the exact table.
func TestNormalTail(t *testing.T) {
	w := make([]int, 40)
	for i := range w {
		w[i] = (i*7)%9 - 4
	}
	for _, obs := range []int{-10, 0, 5, 12} {
		em, et := permutationTail(w, 15, obs)
		nm, nt := normalTail(w, 15, obs)
		if math.Abs(em-nm) > 1e-9 || math.Abs(et-nt) > 0.02 {
			t.Errorf("obs %d: exact %v, %v; normal %v, %v", obs, em, et, nm, nt)
		}
	}
	big := make([]int, 600)
	for i := range big {
		big[i] = 500 - (i*37)%1001
	}
	if m, p := permutationTail(big, 300, 1<<30); math.IsNaN(m) || p != 0 {
		t.Errorf("large: mean %v, tail %v", m, p)
	}
	if _, p := normalTail([]int{2, 2}, 1, 2); p != 1 {
		t.Errorf("constant w: tail %v, want 1", p)
	}
}
