package scoring

import (
	"math"
	"testing"
)

func TestTokenLetter(t *testing.T) {
	ab := letters[:2]
	for tok, want := range map[string]string{
		"A": "A", " A": "A", "a": "A", " b": "B", "▁B": "B", "ĠA": "A", "(A": "A", "A.": "A", "\nB": "B", "**B": "B",
		"C": "", "Answer": "", "AB": "", "": "", " ": "",
	} {
		got, ok := tokenLetter(tok, ab)
		if got != want || ok != (want != "") {
			t.Errorf("tokenLetter(%q) = %q, %v; want %q", tok, got, ok, want)
		}
	}
}

func TestLetterLogprobsSumsSpellings(t *testing.T) {
	lp := letterLogprobs([]topLogprob{{" A", math.Log(0.3)}, {"A", math.Log(0.1)}, {"a", math.Log(0.1)}, {" B", math.Log(0.25)}, {"The", math.Log(0.2)}}, letters[:2])
	if !approx(math.Exp(lp["A"]), 0.5) || !approx(math.Exp(lp["B"]), 0.25) {
		t.Fatalf("P(A)=%v P(B)=%v, want 0.5 and 0.25", math.Exp(lp["A"]), math.Exp(lp["B"]))
	}
	p, ok := pTrueFromLogprobs(lp, TrueFirst)
	if !ok || !approx(p, 2.0/3) {
		t.Errorf("P(True), True first = %v, want 2/3", p)
	}
	p, _ = pTrueFromLogprobs(lp, FalseFirst)
	if !approx(p, 1.0/3) {
		t.Errorf("P(True), False first = %v, want 1/3", p)
	}
	p, ok = pTrueFromLogprobs(map[string]float64{"B": -3}, FalseFirst)
	if !ok || p != 1 {
		t.Errorf("only the True letter listed: P = %v, want 1", p)
	}
	if _, ok := pTrueFromLogprobs(map[string]float64{}, TrueFirst); ok {
		t.Error("neither letter listed must not give a probability")
	}
}

func TestParseLetter(t *testing.T) {
	for reply, want := range map[string]string{
		"B":                      "B",
		" c)":                    "C",
		"**D**":                  "D",
		"(A) Gli altri svendono": "A",
		"Answer: C":              "C",
		"The answer is B.":       "B",
		"Let me think. A is tempting, but the answer is D": "D",
		"risposta: b":                "B",
		"La risposta è C":            "C",
		"a good question":            "X",
		"I cannot choose.":           "X",
		"":                           "X",
		"E":                          "X",
		"Assuming the speaker means": "X",
	} {
		if got := ParseLetter(reply, letters[:]); got != want {
			t.Errorf("ParseLetter(%q) = %q, want %q", reply, got, want)
		}
	}
}

func TestParseTrueFalse(t *testing.T) {
	cases := []struct {
		reply  string
		o      Order
		isTrue bool
		ok     bool
	}{
		{"A", TrueFirst, true, true},
		{"A", FalseFirst, false, true},
		{"b)", FalseFirst, true, true},
		{"True", FalseFirst, true, true},
		{"false.", TrueFirst, false, true},
		{"It could be true or false", TrueFirst, false, false},
		{"maybe", TrueFirst, false, false},
	}
	for _, c := range cases {
		isTrue, ok := ParseTrueFalse(c.reply, c.o)
		if isTrue != c.isTrue || ok != c.ok {
			t.Errorf("ParseTrueFalse(%q, %s) = %v, %v; want %v, %v", c.reply, c.o, isTrue, ok, c.isTrue, c.ok)
		}
	}
}
