package domain

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// typist simulates how one kind of writer enters a justification of a
// dozen words: the key presses' timeline and the characters typed and
// inserted otherwise.
type typist struct {
	name  string
	human bool // a person: the flag must spare them
	enter func(r *rand.Rand) ([]KeyEvent, int, int)
}

// words is a justification's shape: word lengths and whether a clause
// ends after the word.
func words(r *rand.Rand) ([]int, []bool) {
	n := 10 + r.IntN(8)
	ls, ends := make([]int, n), make([]bool, n)
	for i := range n {
		ls[i] = 2 + r.IntN(7)
		ends[i] = i > 2 && i < n-1 && r.IntN(6) == 0
	}
	return ls, ends
}

// compose types the words with within-word intervals from within,
// word-initial ones from word, clause-initial ones from clause, a planning
// pause before a word with probability plan, and a typo (1–3 letters
// typed and deleted) in a word with probability typo.
func compose(r *rand.Rand, within, word, clause func() float64, plan, typo float64) ([]KeyEvent, int, int) {
	ls, ends := words(r)
	var ev []KeyEvent
	t, typed := 0.0, 0
	press := func(d float64, k KeyKind) {
		t += d
		ev = append(ev, KeyEvent{AtMS: t, Kind: k})
		if k == KeyDelete {
			typed--
		} else {
			typed++
		}
	}
	for i, l := range ls {
		if i > 0 {
			d := word()
			if ends[i-1] {
				d = clause()
			}
			if r.Float64() < plan {
				d += 1500 + 4500*r.Float64()
			}
			press(d, KeyChar)
		} else {
			press(0, KeyChar)
		}
		for range l - 1 {
			press(within(), KeyChar)
		}
		if r.Float64() < typo {
			n := 1 + r.IntN(3)
			for range n {
				press(within(), KeyChar)
			}
			for range n {
				press(within()*1.3, KeyDelete)
			}
		}
		if ends[i] {
			press(within(), KeyPunct)
		}
		if i < len(ls)-1 {
			press(within(), KeySpace)
		}
	}
	return ev, typed, 0
}

func lognormal(r *rand.Rand, median, sigma float64) float64 {
	return median * math.Exp(sigma*r.NormFloat64())
}

var typists = []typist{
	{"person composing", true, func(r *rand.Rand) ([]KeyEvent, int, int) {
		within := func() float64 { return lognormal(r, 160, 0.45) }
		return compose(r, within, func() float64 { return within() * (1.4 + 1.1*r.Float64()) },
			func() float64 { return 600 + 1900*r.Float64() }, 0.15, 0.08)
	}},
	{"person composing fluently (few pauses, few typos)", true, func(r *rand.Rand) ([]KeyEvent, int, int) {
		within := func() float64 { return lognormal(r, 140, 0.35) }
		return compose(r, within, func() float64 { return within() * (1.3 + 0.6*r.Float64()) },
			func() float64 { return 400 + 800*r.Float64() }, 0.03, 0.02)
	}},
	{"slow typist", true, func(r *rand.Rand) ([]KeyEvent, int, int) {
		within := func() float64 { return lognormal(r, 420, 0.6) }
		return compose(r, within, func() float64 { return within() * (1.2 + 0.8*r.Float64()) },
			func() float64 { return 900 + 2500*r.Float64() }, 0.10, 0.05)
	}},
	{"dictation (text in chunks, a few keys)", true, func(r *rand.Rand) ([]KeyEvent, int, int) {
		n := 60 + r.IntN(40)
		var ev []KeyEvent
		for i := range r.IntN(6) {
			ev = append(ev, KeyEvent{AtMS: float64(i) * 300, Kind: KeyDelete})
		}
		return ev, 0, n
	}},
	{"paste where allowed", true, func(r *rand.Rand) ([]KeyEvent, int, int) {
		return nil, 0, 60 + r.IntN(40)
	}},
	{"agent, even timing", false, func(r *rand.Rand) ([]KeyEvent, int, int) {
		d := func() float64 { return 90 + 60*r.Float64() }
		return compose(r, d, d, d, 0, 0)
	}},
	{"agent, human-like jitter", false, func(r *rand.Rand) ([]KeyEvent, int, int) {
		d := func() float64 { return lognormal(r, 180, 0.5) }
		return compose(r, d, d, d, 0, 0)
	}},
	{"agent, jitter and sentence pauses", false, func(r *rand.Rand) ([]KeyEvent, int, int) {
		d := func() float64 { return lognormal(r, 180, 0.5) }
		return compose(r, d, d, func() float64 { return 500 + 1000*r.Float64() }, 0, 0)
	}},
}

// TestTranscribedTextRates simulates 2,000 participants of each kind, each
// typing two justifications, and checks the transcribed_text flag's rates
// against the bounds docs/studies.md#typed-justifications states: no
// person composing, typing slowly, dictating or pasting where it is
// allowed flagged more than 1 % of the time; agents typing a given text
// with even timing flagged at least 95 %, with jittered timing at least
// 85 %.
func TestTranscribedTextRates(t *testing.T) {
	const n = 2000
	var table strings.Builder
	fmt.Fprintf(&table, "| writer | flagged | justifications judged |\n|---|---|---|\n")
	for i, ty := range typists {
		r := rand.New(rand.NewPCG(44, uint64(i)))
		flagged, judged := 0, 0
		for range n {
			assessed, transcribed := 0, 0
			for range 2 {
				ev, typed, inserted := ty.enter(r)
				switch SummariseKeys(ev, typed, inserted).Verdict() {
				case TypingTranscribed:
					assessed++
					transcribed++
				case TypingComposed:
					assessed++
				}
			}
			judged += assessed
			if TranscribedText(assessed, transcribed) {
				flagged++
			}
		}
		rate := float64(flagged) / n
		fmt.Fprintf(&table, "| %s | %.1f %% | %.0f %% |\n", ty.name, 100*rate, 100*float64(judged)/(2*n))
		switch {
		case ty.human && rate > 0.01:
			t.Errorf("%s: %.2f %% flagged, want at most 1 %%", ty.name, 100*rate)
		case !ty.human && strings.Contains(ty.name, "even") && rate < 0.95:
			t.Errorf("%s: %.2f %% flagged, want at least 95 %%", ty.name, 100*rate)
		case !ty.human && rate < 0.85:
			t.Errorf("%s: %.2f %% flagged, want at least 85 %%", ty.name, 100*rate)
		}
	}
	t.Logf("transcribed_text over %d simulated participants of each kind, two justifications each:\n%s", n, table.String())
}

// TestTypingVerdict: the rule's edges — too few keys or too little typed is
// not judged; one revision, one long pause or pauses before words mark
// composing; none marks transcribing; no summary is never evidence.
func TestTypingVerdict(t *testing.T) {
	v := func(n int) Signal { return Signal{Valid: true, N: n} }
	base := TypingSummary{Keys: v(60), Typed: v(60), Inserted: v(0), Revisions: v(0), LongPauses: v(0), WithinMS: v(150), WordPauseMS: v(160)}
	cases := []struct {
		name string
		mod  func(*TypingSummary)
		want TypingVerdict
	}{
		{"even typing", func(*TypingSummary) {}, TypingTranscribed},
		{"39 keys", func(s *TypingSummary) { s.Keys = v(39) }, TypingNotAssessed},
		{"no summary", func(s *TypingSummary) { *s = TypingSummary{} }, TypingNotAssessed},
		{"mostly dictated", func(s *TypingSummary) { s.Inserted = v(16) }, TypingNotAssessed},
		{"a fifth inserted", func(s *TypingSummary) { s.Inserted = v(15) }, TypingTranscribed},
		{"one revision", func(s *TypingSummary) { s.Revisions = v(1) }, TypingComposed},
		{"one long pause", func(s *TypingSummary) { s.LongPauses = v(1) }, TypingComposed},
		{"word pauses at the ratio", func(s *TypingSummary) { s.WordPauseMS = v(195) }, TypingComposed},
		{"word pauses under it", func(s *TypingSummary) { s.WordPauseMS = v(194) }, TypingTranscribed},
		{"no word measured", func(s *TypingSummary) { s.WordPauseMS = Signal{} }, TypingTranscribed},
	}
	for _, c := range cases {
		s := base
		c.mod(&s)
		if got := s.Verdict(); got != c.want {
			t.Errorf("%s: verdict %d, want %d", c.name, got, c.want)
		}
	}
	if TranscribedText(0, 0) || !TranscribedText(2, 2) || TranscribedText(2, 1) {
		t.Error("the participant's flag needs every judged justification transcribed, and one judged")
	}
}

// TestSummariseKeys: a small timeline's summary, by hand.
func TestSummariseKeys(t *testing.T) {
	// "ab, cd" typed with a deletion: a b , ␠ c ⌫ c d; then a 3 s pause and "e".
	ev := []KeyEvent{{0, KeyChar}, {100, KeyChar}, {250, KeyPunct}, {350, KeySpace}, {1350, KeyChar},
		{1450, KeyDelete}, {1600, KeyChar}, {1700, KeyChar}, {1800, KeySpace}, {4800, KeyChar}}
	s := SummariseKeys(ev, 8, 0)
	got := fmt.Sprint(s.Keys.N, s.Revisions.N, s.LongPauses.N, s.Bursts.N, s.WithinMS.N, s.WordPauseMS, s.ClausePauseMS.N, s.IKIMedian.N)
	// within-word: 100 (a→b), 100 (d after c); ⌫→c is not within a word's
	// letters; word-initial: 3000; clause-initial: 1000.
	if want := "10 1 1 2 100 {true 3000} 1000 100"; got != want {
		t.Errorf("summary %s, want %s", got, want)
	}
}
