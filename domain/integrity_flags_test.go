package domain

import (
	"slices"
	"testing"
)

func sig(n int) Signal { return Signal{Valid: true, N: n} }

// TestIntegrityFlags: each flag from its own evidence, none from missing
// signals, the speed and straight-line flags only by the study's rules.
func TestIntegrityFlags(t *testing.T) {
	human := AnswerSignals{UntrustedEvents: sig(0), Pastes: sig(0), Webdriver: sig(0), PointerOrKey: sig(1)}
	agent := AnswerSignals{UntrustedEvents: sig(3), Pastes: sig(2), Webdriver: sig(1), PointerOrKey: sig(0)}
	names := func(add func(*IntegrityEvidence), q CrowdQuality, s CrowdSettings) []string {
		var e IntegrityEvidence
		add(&e)
		return FlagNames(IntegrityFlags(e, q, s))
	}
	for _, c := range []struct {
		name string
		add  func(*IntegrityEvidence)
		q    CrowdQuality
		s    CrowdSettings
		want []string
	}{
		{"no JavaScript", func(e *IntegrityEvidence) { e.Add(AnswerSignals{}, "", false); e.Add(AnswerSignals{}, "", true) }, CrowdQuality{}, CrowdSettings{}, []string{}},
		{"a person", func(e *IntegrityEvidence) { e.Add(human, "", false); e.Add(human, "", true) }, CrowdQuality{}, CrowdSettings{}, []string{}},
		{"honeypot alone", func(e *IntegrityEvidence) { e.Add(AnswerSignals{}, "x", false) }, CrowdQuality{}, CrowdSettings{}, []string{FlagHoneypot}},
		{"agent", func(e *IntegrityEvidence) { e.Add(agent, "x", false); e.Add(agent, "", true) }, CrowdQuality{}, CrowdSettings{},
			[]string{FlagHoneypot, FlagSyntheticInput, FlagWebdriver, FlagPasteInText, FlagNoPointerOrKey}},
		{"pastes on a rating screen are not in text", func(e *IntegrityEvidence) { e.Add(AnswerSignals{Pastes: sig(4)}, "", false) }, CrowdQuality{}, CrowdSettings{}, []string{}},
		{"one real event is enough", func(e *IntegrityEvidence) {
			e.Add(AnswerSignals{PointerOrKey: sig(0)}, "", false)
			e.Add(human, "", false)
		}, CrowdQuality{}, CrowdSettings{}, []string{}},
		{"llm echo hook", func(e *IntegrityEvidence) { e.LLMEcho, e.LLMEchoEvidence = true, "agrees with model m" }, CrowdQuality{}, CrowdSettings{}, []string{FlagLLMEcho}},
		{"speed and run without rules", func(e *IntegrityEvidence) {}, CrowdQuality{Timed: 10, FastShare: 1, MedianRT: 100, LongestRun: 30}, CrowdSettings{FastMS: 2000}, []string{}},
		{"exceptionally fast without rules", func(e *IntegrityEvidence) {}, CrowdQuality{ExceptionallyFast: true, TotalSeconds: 30, Finished: true}, CrowdSettings{}, []string{FlagSpeed}},
		{"speed and run by the rules", func(e *IntegrityEvidence) {}, CrowdQuality{Timed: 10, FastShare: 1, MedianRT: 100, LongestRun: 30, ExceptionallyFast: true, Traces: TraceSummary{HiddenMS: 1e6}, Finished: true},
			CrowdSettings{FastMS: 2000, ExcludeFastPercent: 50, ExcludeRun: 10, ExcludeHiddenSeconds: 1}, []string{FlagSpeed, FlagStraightLine}},
		// A session in progress: its speed is not judged, its run is.
		{"speed of a session in progress", func(e *IntegrityEvidence) {}, CrowdQuality{Timed: 2, FastShare: 1, MedianRT: 100, LongestRun: 30, TotalSeconds: 3},
			CrowdSettings{FastMS: 2000, ExcludeFastPercent: 50, ExcludeMedianRT: 1000, ExcludeTotalSeconds: 60, ExcludeRun: 10}, []string{FlagStraightLine}},
	} {
		got := names(c.add, c.q, c.s)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: flags %v, want %v", c.name, got, c.want)
		}
	}
	var e IntegrityEvidence
	e.Add(agent, "", false)
	e.Add(agent, "", false)
	fs := IntegrityFlags(e, CrowdQuality{}, CrowdSettings{})
	if fs[0].Name != FlagSyntheticInput || fs[0].Evidence != "6 synthetic events on 2 answers" {
		t.Errorf("evidence %+v", fs[0])
	}
}

// TestParseKeySummary: each field leniently, clamped to its bound.
func TestParseKeySummary(t *testing.T) {
	k := ParseKeySummary("12", "abc", "-4", "99999999999")
	if k.Typed != sig(12) || k.Inserted.Valid || k.IKIMedian.Valid || k.IKIIQR != sig(MaxInterKeyMS) {
		t.Errorf("key summary %+v", k)
	}
}

// TestQualityRulesWording pins the reasons of every quality rule, in
// QualityReasons' order, and the evidence the speed and straight-line flags
// take from the same rules: the speed flag adds exceptionally fast and
// leaves out the hidden-time rule, the straight-line flag is the run rule
// alone (docs/studies.md#integrity-flags).
func TestQualityRulesWording(t *testing.T) {
	q := CrowdQuality{Timed: 10, FastShare: 0.6, MedianRT: 900, LongestRun: 7, TotalSeconds: 40,
		ExceptionallyFast: true, Traces: TraceSummary{HiddenMS: 12500}, Finished: true}
	s := CrowdSettings{FastMS: 2000, ExcludeFastPercent: 50, ExcludeMedianRT: 1000, ExcludeRun: 5,
		ExcludeTotalSeconds: 60, ExcludeHiddenSeconds: 10}
	reasons := []string{
		"60% of answers faster than 2000 ms (rule: 50%)",
		"median response time 900 ms (rule: under 1000 ms)",
		"7 identical ratings in a row (rule: 5)",
		"total time 40 s (rule: under 60 s)",
		"page hidden 12 s (rule: 10 s or more)",
	}
	if got := s.QualityReasons(q); !slices.Equal(got, reasons) {
		t.Errorf("reasons %q, want %q", got, reasons)
	}
	want := []IntegrityFlag{
		{FlagSpeed, "total time 40 s, over 3 SD below the mean (exceptionally fast); " + reasons[0] + "; " + reasons[1] + "; " + reasons[3]},
		{FlagStraightLine, reasons[2]},
	}
	if got := IntegrityFlags(IntegrityEvidence{}, q, s); !slices.Equal(got, want) {
		t.Errorf("flags %q, want %q", got, want)
	}
	// No rule set, or no timed answer: no reason.
	if got := (CrowdSettings{FastMS: 2000}).QualityReasons(q); got != nil {
		t.Errorf("reasons without rules %q", got)
	}
	if got := (CrowdSettings{ExcludeMedianRT: 1000, ExcludeFastPercent: 50}).QualityReasons(CrowdQuality{MedianRT: 10, FastShare: 1}); got != nil {
		t.Errorf("reasons without timed answers %q", got)
	}
}
