package scoring

import (
	"testing"
)

func TestParsePoint(t *testing.T) {
	for _, c := range []struct {
		reply string
		want  int
	}{
		{"5", 5}, {" 3.", 3}, {"(7)", 7}, {"Answer: 2", 2}, {"Risposta: 6", 6}, {"I would say 4, fairly likely.", 4},
		{"La mia valutazione è 3 su 7", 3}, {"8", 0}, {"0", 0}, {"3 or 4", 0}, {"3.5", 0}, {"no idea", 0},
		{"1 = absolutely impossible, so 2", 0},
	} {
		if got := ParsePoint(c.reply, 7); got != c.want {
			t.Errorf("ParsePoint(%q) = %d, want %d", c.reply, got, c.want)
		}
	}
}

// A reversed prompt's numbers stand for the opposite ends: the reply "2"
// to a reversed 7-point scale is point 6.
func TestReversedScaleIsReadBack(t *testing.T) {
	p := Prompt{Key: "x|trigger|rev", Task: Likert, Order: Reversed, Points: 7}
	a, err := humanFromSamples(p, []string{"2", "2", "1", "nonsense"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Unparsed != 1 || a.Dist[5] != 2.0/3 || a.Dist[6] != 1.0/3 || a.Choice != 6 {
		t.Errorf("%+v", a)
	}
	lp := map[string]float64{"1": -0.1, "3": -2.3}
	b, err := humanFromLogprobs(p, lp, 20, "1")
	if err != nil {
		t.Fatal(err)
	}
	if b.Choice != 7 || b.Dist[4] <= 0 || b.Dist[0] != 0 {
		t.Errorf("%+v", b)
	}
	if _, err := humanFromLogprobs(p, map[string]float64{"A": -1}, 20, "A"); err == nil {
		t.Error("no point among the candidates must fail the prompt")
	}
}

// The expert form asks the cancellation only of a plausible implicature:
// a model that judges the implicature implausible has its cancellation
// answer marked not asked, and no measure counts it.
func TestExpertConditionalLogic(t *testing.T) {
	ans := map[string]Answer{}
	put := func(item, q string, yes float64) {
		ans[HumanPromptKey(item, q, Forward)] = Answer{Dist: []float64{yes, 1 - yes}}
		ans[HumanPromptKey(item, q, Reversed)] = Answer{Dist: []float64{yes, 1 - yes}}
	}
	put("a", QPlausible, 0.9)
	put("a", QCancellation, 0.8)
	put("b", QPlausible, 0.2)
	put("b", QCancellation, 0.9)
	rs := AggregateHuman(Expert, 2, ans, []string{"a", "b"}, nil)
	if len(rs) != 4 || rs[0].Condition != QPlausible || rs[1].Condition != QCancellation || rs[1].NotAsked || !rs[3].NotAsked {
		t.Fatalf("%+v", rs)
	}
	m := ComputeHuman(Expert, 2, rs, nil)
	if m.Plausible.Hits != 1 || m.Plausible.N != 2 || m.CancellationCorrect.N != 1 || m.CancellationCorrect.Hits != 1 {
		t.Errorf("plausible %+v, cancellation %+v", m.Plausible, m.CancellationCorrect)
	}
}

// The context survey's rule: the first step judged sufficient ends the
// question; "more" at every step up to the last asked is "not sufficient".
func TestContextNeeded(t *testing.T) {
	ans := map[string]Answer{}
	put := func(item string, step int, suff float64) {
		for _, o := range HumanOrders {
			ans[HumanPromptKey(item, ContextStep(step), o)] = Answer{Dist: []float64{suff, 1 - suff}}
		}
	}
	put("p", 0, 0.2)
	put("p", 1, 0.7)
	put("p", 2, 0.1)
	put("q", 0, 0.3)
	put("q", 1, 0.1)
	put("r", 1, 0.9) // step 0 failed: no answer
	rs := AggregateHuman(ContextTask, 2, ans, []string{"p", "q", "r"}, nil)
	got := ContextNeeded(rs, map[string]int{"p": 2, "q": 1, "r": 1})
	if got["p"] != 1 || got["q"] != -1 || len(got) != 2 {
		t.Errorf("%v", got)
	}
}

// A sampled reply to a lettered question counts by its letter, or by the
// words of exactly one option ("Sì", "no."), never by both.
func TestParseBinaryByLetterOrOptionText(t *testing.T) {
	prompt := "L'implicatura è plausibile?\nA) No\nB) Sì\nRispondi solo con la lettera A o B.\nRisposta:"
	for reply, want := range map[string]int{"B": 2, "Risposta: A": 1, "Sì.": 2, "no": 1, "sì, direi di sì": 2, "Sì o no?": 0, "Non saprei": 0, "Nope": 0} {
		if got := parseBinary(reply, prompt, letters[:2]); got != want {
			t.Errorf("parseBinary(%q) = %d, want %d", reply, got, want)
		}
	}
}
