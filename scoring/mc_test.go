package scoring

import (
	"context"
	"strings"
	"testing"
)

// mcItems: gold letters, topics (−1 = easy negatives) and what the fake
// model answers ("X" = refuses), keyed by the passage text.
var mcItems = []MCItem{
	{Key: "p1", Kind: "Impl", Text: "ctx one. target one", Target: "target one", Explanation: "e1", Options: [4]string{"A. alpha", "B. beta", "C. gamma", "D. delta"}, Answer: "A", Topic: -1},
	{Key: "p2", Kind: "Impl", Text: "ctx two. target two", Target: "target two", Explanation: "e2", Options: [4]string{"a2", "b2", "c2", "d2"}, Answer: "B", Topic: 12},
	{Key: "p3", Kind: "Ppp", Text: "ctx three. target three", Target: "target three", Explanation: "e3", Options: [4]string{"a3", "b3", "c3", "d3"}, Answer: "C", Topic: 12},
	{Key: "p4", Kind: "Ppp", Text: "ctx four. target four", Target: "target four", Explanation: "e4", Options: [4]string{"a4", "b4", "c4", "d4"}, Answer: "D", Topic: -1},
	{Key: "p5", Kind: "Ppp", Text: "ctx five. target five", Target: "target five", Explanation: "e5", Options: [4]string{"a5", "b5", "c5", "d5"}, Answer: "A", Topic: 7},
}

var mcAnswers = map[string]string{"p1": "A", "p2": "C", "p3": "C", "p4": "X", "p5": "A"}

func mcLetter(prompt string) string {
	for _, it := range mcItems {
		if strings.Contains(prompt, it.Text) {
			return mcAnswers[it.Key]
		}
	}
	panic("unknown passage")
}

func TestMultipleChoice(t *testing.T) {
	for _, mode := range []Mode{Logprobs, Sampling} {
		t.Run(string(mode), func(t *testing.T) {
			fm := &fakeModel{letter: mcLetter}
			srv := fm.server(t)
			c, err := NewClient(Config{BaseURLs: []string{srv.URL}, Model: "m", Mode: mode}, noEnv)
			if err != nil {
				t.Fatal(err)
			}
			items := append([]MCItem{{Key: "no-options", Text: "t"}}, mcItems...)
			prompts, skipped, err := BuildMCPrompts(items, Templates{})
			if err != nil || skipped != 1 || len(prompts) != 5 {
				t.Fatalf("prompts %d skipped %d err %v; want 5, 1, nil", len(prompts), skipped, err)
			}
			if !strings.Contains(prompts[0].Text, "A. alpha\nB. beta") || strings.Contains(prompts[0].Text, "A. A. alpha") {
				t.Errorf("options should be lettered once:\n%s", prompts[0].Text)
			}
			answers := runAll(t, c, prompts)
			m := ComputeMC(AggregateMC(mcItems, answers))
			all := m[AllTypes]
			// Correct: p1, p3, p5 of 5. Hard (topic ≠ −1): p2 wrong, p3, p5 right.
			// Easy: p1 right, p4 refused.
			if all.Items != 5 || all.Accuracy != (Share{3, 5}) || all.HardNegatives != (Share{2, 3}) || all.EasyNegatives != (Share{1, 2}) || all.Refusals != 1 {
				t.Errorf("all: %+v", all)
			}
			want := [4][5]int{{2, 0, 0, 0, 0}, {0, 0, 1, 0, 0}, {0, 0, 1, 0, 0}, {0, 0, 0, 0, 1}}
			if all.Confusion != want {
				t.Errorf("confusion %v, want %v", all.Confusion, want)
			}
			if ppp := m["Ppp"]; ppp.Accuracy != (Share{2, 3}) || ppp.Confusion[3][4] != 1 {
				t.Errorf("Ppp: %+v", ppp)
			}
		})
	}
}

func TestGenerationPrompts(t *testing.T) {
	prompts, err := BuildGenPrompts(mcItems, FewShot, Templates{})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range prompts {
		n := strings.Count(p.Text, "Explanation: e")
		if n != FewShotExamples {
			t.Errorf("prompt %d shows %d examples, want %d", i, n, FewShotExamples)
		}
		if strings.Contains(p.Text, "Explanation: "+mcItems[i].Explanation+"\n") {
			t.Errorf("prompt %d shows its own explanation as an example", i)
		}
	}
	if _, err := BuildGenPrompts(mcItems[:3], FewShot, Templates{}); err == nil {
		t.Error("few-shot needs 4 examples besides the item")
	}
	cot, _ := BuildGenPrompts(mcItems[:1], ChainOfThought, Templates{})
	if !strings.Contains(cot[0].Text, "step by step") {
		t.Errorf("chain-of-thought prompt: %s", cot[0].Text)
	}
	if got := ExtractExplanation("The speaker implies...\nExplanation: Gli altri svendono i valori."); got != "Gli altri svendono i valori." {
		t.Errorf("ExtractExplanation = %q", got)
	}
}

func TestGenerationClient(t *testing.T) {
	fm := &fakeModel{pTrue: func(string, Order) float64 { return 0 }}
	srv := fm.server(t)
	c, _ := NewClient(Config{BaseURLs: []string{srv.URL}, Model: "m"}, noEnv)
	prompts, _ := BuildGenPrompts(mcItems[:1], ZeroShot, Templates{})
	a, err := c.Score(context.Background(), prompts[0])
	if err != nil || a.Reply == "" {
		t.Fatalf("generation reply %q, err %v", a.Reply, err)
	}
}
