package domain

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestScriptToken: the token static/app.js computes for a nonce (this
// vector was checked against the script under Node), and the verdict:
// only the token of this screen's nonce, of this session, passes.
func TestScriptToken(t *testing.T) {
	if got := ScriptToken("abcDEF_-123"); got != "8d20a047" {
		t.Errorf("ScriptToken = %s, want app.js's 8d20a047", got)
	}
	key := []byte("0123456789abcdef0123456789abcdef")
	n := ScreenNonce(key, 7, "tok", 3)
	if n == ScreenNonce(key, 7, "tok", 4) || n == ScreenNonce(key, 7, "tok2", 3) || n == ScreenNonce([]byte("other key"), 7, "tok", 3) {
		t.Error("two screens, sessions or keys share a nonce")
	}
	for _, c := range []struct {
		sent string
		ran  bool
	}{{ScriptToken(n), true}, {"", false}, {n, false}, {ScriptToken(ScreenNonce(key, 7, "tok", 4)), false}} {
		if v := ScriptVerdict(key, 7, "tok", 3, c.sent); !v.Valid || (v.N == 1) != c.ran {
			t.Errorf("token %q: verdict %+v, want ran %v", c.sent, v, c.ran)
		}
	}
}

// TestScreenEvidence: what omitting, writing and running the script each
// give (docs/studies.md#server-evidence).
func TestScreenEvidence(t *testing.T) {
	ran, not := Signal{Valid: true, N: 1}, Signal{Valid: true}
	human := AnswerSignals{UntrustedEvents: sig(0), Pastes: sig(0), Webdriver: sig(0), PointerOrKey: sig(1)}
	sent := func(ms int) ScreenEvidence {
		return ScreenEvidence{Sent: true, Server: time.Duration(ms) * time.Millisecond}
	}
	flags := func(screens ...func(*IntegrityEvidence)) []string {
		var e IntegrityEvidence
		for _, s := range screens {
			s(&e)
		}
		return FlagNames(IntegrityFlags(e, CrowdQuality{}, CrowdSettings{}))
	}
	for _, c := range []struct {
		name string
		add  func(*IntegrityEvidence)
		want []string
	}{
		{"JavaScript off", func(e *IntegrityEvidence) { e.AddScreen(sent(1500), 0, AnswerTrace{Script: not}) }, nil},
		{"the script ran, times inside the server's", func(e *IntegrityEvidence) {
			e.AddScreen(sent(1500), 1400, AnswerTrace{Set: true, FirstInputMS: 900, Signals: human, Script: ran})
		}, nil},
		{"within the allowance", func(e *IntegrityEvidence) {
			e.AddScreen(sent(1500), 1500+ClockAllowanceMS, AnswerTrace{Signals: human, Script: ran})
		}, nil},
		{"reported longer than the server measured", func(e *IntegrityEvidence) {
			e.AddScreen(sent(500), 6000, AnswerTrace{Signals: human, Script: ran})
		}, []string{FlagClockMismatch}},
		{"first input after the answer arrived", func(e *IntegrityEvidence) {
			e.AddScreen(sent(500), 400, AnswerTrace{Set: true, FirstInputMS: 2000, Signals: human, Script: ran})
		}, []string{FlagClockMismatch}},
		{"page hidden longer than it existed", func(e *IntegrityEvidence) {
			e.AddScreen(sent(500), 400, AnswerTrace{Set: true, HiddenMS: 5000, Signals: human, Script: ran})
		}, []string{FlagClockMismatch}},
		{"one screen never sent (a lost record)", func(e *IntegrityEvidence) { e.AddScreen(ScreenEvidence{Server: -1}, 0, AnswerTrace{Script: not}) }, nil},
		{"screens never sent", func(e *IntegrityEvidence) {
			e.AddScreen(ScreenEvidence{Server: -1}, 0, AnswerTrace{Script: not})
			e.AddScreen(ScreenEvidence{Server: -1}, 0, AnswerTrace{Script: not})
		}, []string{FlagClockMismatch}},
		{"signals written without the script", func(e *IntegrityEvidence) {
			e.AddScreen(sent(3000), 0, AnswerTrace{Signals: AnswerSignals{PointerOrKey: sig(1)}, Script: not})
			e.AddScreen(sent(3000), 0, AnswerTrace{Signals: AnswerSignals{Webdriver: sig(0)}, Script: not})
		}, []string{FlagUnscriptedSignals}},
		{"a response time written without the script", func(e *IntegrityEvidence) {
			e.AddScreen(sent(3000), 2900, AnswerTrace{Script: not})
			e.AddScreen(sent(3000), 2800, AnswerTrace{Script: not})
		}, []string{FlagUnscriptedSignals}},
		{"one page from before the upgrade", func(e *IntegrityEvidence) {
			e.AddScreen(sent(3000), 2900, AnswerTrace{Signals: human, Script: not})
			e.AddScreen(sent(3000), 2900, AnswerTrace{Signals: human, Script: ran})
		}, nil},
		{"answered before the check existed", func(e *IntegrityEvidence) {
			e.AddScreen(ScreenEvidence{Server: -1}, 6000, AnswerTrace{Signals: human})
		}, nil},
		{"a server clock stepped back", func(e *IntegrityEvidence) {
			e.AddScreen(ScreenEvidence{Sent: true, Server: -2 * time.Second}, 1000, AnswerTrace{Signals: human, Script: ran})
		}, nil},
	} {
		if got := flags(c.add); !slices.Equal(got, c.want) && len(got)+len(c.want) > 0 {
			t.Errorf("%s: flags %v, want %v", c.name, got, c.want)
		}
	}
	var e IntegrityEvidence
	e.AddScreen(sent(500), 6000, AnswerTrace{Signals: human, Script: ran})
	e.AddScreen(sent(600), 500, AnswerTrace{Signals: human, Script: ran})
	e.AddScreen(ScreenEvidence{Server: -1}, 0, AnswerTrace{Script: not})
	e.AddScreen(ScreenEvidence{Server: -1}, 0, AnswerTrace{Script: not})
	fs := IntegrityFlags(e, CrowdQuality{}, CrowdSettings{})
	want := "reported time longer than the server measured on 1 of 2 answers (first: rt_ms 6000 ms where the server measured 500 ms; allowance 1000 ms); 2 answers to screens the server never sent"
	if len(fs) != 1 || fs[0].Evidence != want {
		t.Errorf("evidence %+v, want %q", fs, want)
	}
	if !strings.HasPrefix(FlagNames(IntegrityFlags(IntegrityEvidence{Unscripted: 2, ScriptChecked: 5}, CrowdQuality{}, CrowdSettings{}))[0], FlagUnscriptedSignals) {
		t.Error("unscripted_signals not raised")
	}
}
