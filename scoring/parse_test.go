package scoring

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestParseLetterTable fixes how sampled multiple-choice replies are read
// (the precedence documented on ParseLetter and in docs/scoring.md). The
// first two rows are replies the first-character reading took for A and D
// (docs/scoring.md#reading-replies).
func TestParseLetterTable(t *testing.T) {
	cases := []struct{ reply, want string }{
		// Rule 3 must not take an article or an elision for an answer.
		{"A good explanation is C", "C"},
		{"D'altronde, la risposta è B", "B"},
		// Rule 1: explicit answer markers, English.
		{"Answer: C", "C"},
		{"answer: d", "D"},
		{"The answer is B.", "B"},
		{"The correct answer is (A).", "A"},
		{"Final answer: **C**", "C"},
		{"**Answer:** D", "D"},
		{"I think option B fits best.", "B"},
		{"Let me think. A is tempting, but the answer is D", "D"},
		{"A is tempting; the answer is D. So the answer is D.", "D"},
		{"The answer is a bit unclear, but C", "C"},
		{"(B)", "B"},
		{"**C**", "C"},
		{"My choice: A", "A"},
		{"La risposta corretta è l'opzione C.", "C"},
		// Rule 1: explicit answer markers, Italian.
		{"Risposta: B", "B"},
		{"risposta: b", "B"},
		{"La risposta è C", "C"},
		{"La risposta corretta è la D.", "D"},
		{"Secondo me la risposta giusta è (A)", "A"},
		{"L'opzione B descrive meglio il contenuto implicito.", "B"},
		{"Opzione C", "C"},
		{"C'è un'implicatura: la risposta è A", "A"},
		{"Dunque, la risposta è **D**.", "D"},
		// Rule 2: only a letter, with optional punctuation.
		{"B", "B"},
		{" c)", "C"},
		{"[D]", "D"},
		{"a.", "A"},
		{"\"C\"", "C"},
		{"B\n", "B"},
		// Rule 3: an option letter standing alone as a word.
		{"C. Gli altri svendono i valori.", "C"},
		{"B) L'oratore presuppone che il governo abbia fallito.", "B"},
		{"I would pick C because it names the presupposition.", "C"},
		{"A is correct.", "A"},
		{"A è corretta, perché parla di presupposizione.", "A"},
		{"Probabilmente D, visto il contesto.", "D"},
		{"D’altronde il testo suggerisce C", "C"},
		// Ambiguous or no answer: X.
		{"Either A or C could be right.", "X"},
		{"Tra B e D, non saprei.", "X"},
		{"The answer is A. No wait, the answer is B.", "X"},
		{"A good question; I cannot tell.", "X"},
		{"Assuming the speaker means well, none fits.", "X"},
		{"D'altronde, nessuna opzione è adatta.", "X"},
		{"C'è troppa ambiguità per scegliere.", "X"},
		{"Options A-D all seem wrong.", "X"},
		{"Option A is wrong, so B.", "X"},
		{"E", "X"},
		{"", "X"},
		{"I cannot choose.", "X"},
		{"Non posso rispondere.", "X"},
	}
	if len(cases) < 40 {
		t.Fatalf("the table has %d rows; the precedence is fixed on at least 40", len(cases))
	}
	for _, c := range cases {
		if got := ParseLetter(c.reply, letters[:]); got != c.want {
			t.Errorf("ParseLetter(%q) = %s, want %s", c.reply, got, c.want)
		}
	}
}

// TestParseTrueFalseTable covers the two-option task, where only A and B
// are letters and the words True/False (Vero/Falso) are read too.
func TestParseTrueFalseTable(t *testing.T) {
	cases := []struct {
		reply      string
		o          Order
		isTrue, ok bool
	}{
		{"A", TrueFirst, true, true},
		{"A", FalseFirst, false, true},
		{"Answer: B", TrueFirst, false, true},
		{"La risposta è B", FalseFirst, true, true},
		{"A good reading says the statement is false", TrueFirst, false, true},
		{"Vero", TrueFirst, true, true},
		{"falso.", FalseFirst, false, true},
		{"B) True", FalseFirst, true, true},
		{"It could be true or false", TrueFirst, false, false},
		{"Non saprei", TrueFirst, false, false},
		{"Either A or B", TrueFirst, false, false},
		{"C", TrueFirst, false, false},
	}
	for _, c := range cases {
		isTrue, ok := ParseTrueFalse(c.reply, c.o)
		if isTrue != c.isTrue || ok != c.ok {
			t.Errorf("ParseTrueFalse(%q, %s) = %v, %v; want %v, %v", c.reply, c.o, isTrue, ok, c.isTrue, c.ok)
		}
	}
}

// TestUnparseableSamplesAreNotFalse: P(True) is the share of True among
// the samples that answer; the others are counted, and a prompt none of
// whose samples answers fails with the reason.
func TestUnparseableSamplesAreNotFalse(t *testing.T) {
	replies := []string{"A", "I'd rather not say", "B", "A"}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var choices []map[string]any
		for _, s := range replies {
			choices = append(choices, map[string]any{"message": map[string]string{"content": s}})
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": choices})
	}))
	defer srv.Close()
	c, err := NewClient(Config{BaseURLs: []string{srv.URL}, Model: "m", Mode: Sampling, Samples: 4}, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	a, err := c.Score(context.Background(), onePrompt)
	if err != nil {
		t.Fatal(err)
	}
	if a.Unparsed != 1 || math.Abs(a.PTrue-2.0/3) > 1e-12 {
		t.Errorf("P(True) %v with %d unparsed; want 2/3 with 1", a.PTrue, a.Unparsed)
	}
	replies = []string{"hmm", "no idea", "?", "pass"}
	if _, err := c.Score(context.Background(), onePrompt); err == nil || !strings.Contains(err.Error(), "none of the 4 samples") {
		t.Errorf("all samples unparseable: %v", err)
	}
}
