package domain

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"strconv"
	"time"
)

// The evidence a crowd rating screen gives that the participant can
// neither simply omit nor write (docs/studies.md#server-evidence): the
// server's own clock, and whether the page's script ran.

// ClockAllowanceMS is how much longer than the server's sent→answered
// interval a time the browser reports may be before the server's clock
// contradicts it. The browser measures from the page being shown to the
// answer being sent, inside the server's interval from sending the page to
// receiving the answer, so an honest report is never longer; the allowance
// covers a coarsened browser timer, a small step of the server's clock and
// the server's own work between reading its clock and sending the page.
const ClockAllowanceMS = 1000

// MinUnscripted is how many rating screens must carry the script's fields
// without the page's token before unscripted_signals is raised: one may
// be a page sent before the server began to give nonces and answered
// after (an upgrade in the middle of a session), never two.
const MinUnscripted = 2

// MinUnsent is how many answers to screens the server never sent raise
// clock_mismatch on their own: the record of a showing is queued, and a
// server that stopped before writing it may lose one, never two.
const MinUnsent = 2

// ScriptTokenField is the hidden field of a rating screen that
// static/app.js fills from the page's nonce (data-nonce).
const ScriptTokenField = "script_token"

// ScreenNonce is the nonce of one rating screen of a session: an HMAC of
// the study, the session's token and the screen's position under the
// server's key, so nobody without the key can make one, and a page of
// another screen or session carries another.
func ScreenNonce(key []byte, studyID int64, session string, position int) string {
	m := hmac.New(sha256.New, key)
	fmt.Fprintf(m, "pragmalab screen nonce\x00%d\x00%s\x00%d", studyID, session, position)
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:18])
}

// ScriptToken is what static/app.js writes in the script_token field
// from a page's nonce: FNV-1a (32 bits) of "pragmalab:" and the nonce, as
// 8 hexadecimal digits. It is no secret — a client that reads the script
// can compute it — but only a client that ran the script, or chose to
// imitate it, sends it (docs/studies.md#server-evidence).
func ScriptToken(nonce string) string {
	h := fnv.New32a()
	h.Write([]byte("pragmalab:" + nonce))
	return hex.EncodeToString(h.Sum(nil))
}

// ScriptVerdict is whether the token sent with the answer to screen
// position is the page's: Valid (the check was made), N 1 when it is, 0
// when it is absent or another.
func ScriptVerdict(key []byte, studyID int64, session string, position int, sent string) Signal {
	want := ScriptToken(ScreenNonce(key, studyID, session, position))
	if hmac.Equal([]byte(sent), []byte(want)) {
		return Signal{Valid: true, N: 1}
	}
	return Signal{Valid: true}
}

// ScreenEvidence is what the server knows of one answered rating screen
// besides the browser's word: Sent, whether the server sent the screen
// (it recorded its first showing), and Server, the interval from that
// showing to the answer's arrival by the server's clock.
type ScreenEvidence struct {
	Sent   bool
	Server time.Duration
}

// ClockContradiction is the first time the browser reported for a screen
// that the server's clock contradicts — reported longer than the server's
// interval plus ClockAllowanceMS: rt the response time (rt_ms, 0 none),
// then the trace's first_input_ms and hidden_ms. It names the field and
// its value; ok is false when nothing is contradicted or the screen's
// interval is unknown.
func ClockContradiction(sc ScreenEvidence, rt int, tr AnswerTrace) (field string, reported int, ok bool) {
	if !sc.Sent || sc.Server < 0 {
		return "", 0, false
	}
	limit := int(sc.Server/time.Millisecond) + ClockAllowanceMS
	if rt > limit {
		return "rt_ms", rt, true
	}
	if tr.Set && tr.FirstInputMS > limit {
		return "first_input_ms", tr.FirstInputMS, true
	}
	if tr.Set && tr.HiddenMS > limit {
		return "hidden_ms", tr.HiddenMS, true
	}
	return "", 0, false
}

// ScriptFields tells whether an answer carried any of the fields the
// page's script fills beside the token: the response time or one of the
// four integrity signals.
func ScriptFields(rt int, s AnswerSignals) bool {
	return rt > 0 || s.UntrustedEvents.Valid || s.Pastes.Valid || s.Webdriver.Valid || s.PointerOrKey.Valid
}

// AddScreen counts one rating screen's server evidence
// (docs/studies.md#server-evidence): sc what the server measured, rt the
// response time the browser reported (0: none), tr the answer's trace and
// signals, tr.Script the verdict on its script token (invalid: answered
// before the token was checked, which then counts nothing).
func (e *IntegrityEvidence) AddScreen(sc ScreenEvidence, rt int, tr AnswerTrace) {
	if !tr.Script.Valid {
		return
	}
	if !sc.Sent {
		e.Unsent++
	}
	if rt > 0 || tr.Set {
		e.ClockReported++
	}
	if field, v, bad := ClockContradiction(sc, rt, tr); bad {
		e.ClockContradicted++
		if e.ClockExample == "" {
			e.ClockExample = field + " " + strconv.Itoa(v) + " ms where the server measured " +
				strconv.FormatInt(sc.Server.Milliseconds(), 10) + " ms"
		}
	}
	if tr.Script.N == 0 && ScriptFields(rt, tr.Signals) {
		e.Unscripted++
	}
	e.ScriptChecked++
}
