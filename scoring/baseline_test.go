package scoring

import (
	"context"
	"math"
	"strings"
	"testing"
)

func TestBLEU4(t *testing.T) {
	tok := strings.Fields
	if got := BLEU4(tok("the cat sat on the mat"), tok("the cat sat on the mat")); !approx(got, 1) {
		t.Errorf("identical = %v, want 1", got)
	}
	// p1 = 4/5; 2-grams 2 of 4 → 3/5; 3-grams 1 of 3 → 2/4; 4-grams 0 of 2 → 1/3;
	// BP = exp(1 − 6/5). BLEU = BP · (0.8·0.6·0.5·(1/3))^(1/4) = 0.435425…
	if got := BLEU4(tok("a b c d e"), tok("a b c x e f")); math.Abs(got-0.43542524) > 1e-6 {
		t.Errorf("BLEU4 = %v, want 0.435425", got)
	}
	if got := BLEU4(tok("x y"), tok("a b c")); got != 0 {
		t.Errorf("no shared word = %v, want 0", got)
	}
	if got := Tokenize("L'Italia, anzitutto!"); strings.Join(got, "|") != "l|italia|anzitutto" {
		t.Errorf("Tokenize = %v", got)
	}
}

func TestBuiltins(t *testing.T) {
	ctx := context.Background()
	prompts, _ := BuildTFPrompts(tfItems, Templates{})
	run := func(name string) map[string]TFMetrics {
		s, err := NewBuiltin(name, TrueFalse, 1)
		if err != nil {
			t.Fatal(err)
		}
		return ComputeTF(AggregateTF(tfItems, runAll(t, s, prompts)))
	}
	at := run("always-true")[AllTypes]
	// P = 1 everywhere: recognised (1 > .5), never cancelled, never above prior.
	if at.ImplicatureRecognition != (Share{4, 4}) || at.CancellationRecognition != (Share{0, 4}) || at.Unchanged != (Share{3, 3}) || at.PriorControl != (Share{0, 4}) {
		t.Errorf("always-true: %+v", at)
	}
	half := run("constant-0.5")[AllTypes]
	if half.ImplicatureRecognition.Hits != 0 || half.BeliefUpdate.Hits != 0 || half.Unchanged != (Share{3, 3}) {
		t.Errorf("constant-0.5: %+v", half)
	}
	r1, _ := NewBuiltin("random", TrueFalse, 1)
	r2, _ := NewBuiltin("random", TrueFalse, 2)
	a1, _ := r1.Score(ctx, prompts[0])
	b1, _ := r1.Score(ctx, prompts[0])
	a2, _ := r2.Score(ctx, prompts[0])
	if a1.PTrue != b1.PTrue || a1.PTrue == a2.PTrue || a1.PTrue < 0 || a1.PTrue > 1 {
		t.Errorf("random: same seed %v/%v, other seed %v", a1.PTrue, b1.PTrue, a2.PTrue)
	}

	bleu, _ := NewBuiltin("bleu4", MultipleChoice, 0)
	it := MCItem{Key: "q", Target: "noi non abbiamo svenduto i nostri ideali e i nostri valori",
		Options: [4]string{"A. Il governo ha sprecato le risorse.", "B. Gli altri svendono i propri ideali e valori.", "C. In Toscana esiste un sistema di potere.", "D. Per tre mesi il governo ha tenuto in ostaggio il Paese."}, Answer: "B"}
	mp, _, _ := BuildMCPrompts([]MCItem{it}, Templates{})
	a, err := bleu.Score(ctx, mp[0])
	if err != nil || a.Letter != "B" {
		t.Errorf("bleu4 chose %q (err %v), want B, the option sharing \"i\", \"ideali e\", \"valori\"", a.Letter, err)
	}
	if _, err := NewBuiltin("bleu4", TrueFalse, 0); err == nil {
		t.Error("bleu4 must refuse the True/False task")
	}
	if _, err := NewBuiltin("gpt-9", TrueFalse, 0); err == nil || !strings.Contains(err.Error(), "always-true") {
		t.Errorf("unknown built-in error should list the known ones: %v", err)
	}
}
