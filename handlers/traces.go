package handlers

import (
	"net/http"

	"pragmalab/domain"
)

// traceParam reads the behavioural trace the page's script put in the
// answer form (docs/studies.md#behavioural-traces). A trace that is not
// valid (negative, too large, not a number: only a tampered or broken page
// sends one) is logged with what is wrong and left out; the answer itself
// is stored, since the participant did nothing wrong.
func (h *Handler) traceParam(r *http.Request, decoy string) domain.AnswerTrace {
	tr, err := domain.ParseAnswerTrace(r.PostFormValue("answer_changes"), r.PostFormValue("hidden_ms"), r.PostFormValue("first_input_ms"))
	if err != nil {
		h.Log.Warn("answer trace left out", "path", r.URL.Path, "err", err)
		tr = domain.AnswerTrace{}
	}
	tr.Signals, tr.Honeypot = signalParams(r, decoy)
	return tr
}

// signalParams reads the integrity signals and the honeypot of an answer
// form (docs/studies.md#integrity-signals), each field on its own and
// leniently: nothing in them ever refuses the answer. decoy is the
// participant's drawn name of the hidden field (domain.Traps).
func signalParams(r *http.Request, decoy string) (domain.AnswerSignals, string) {
	return domain.ParseAnswerSignals(r.PostFormValue("untrusted_events"), r.PostFormValue("pastes"),
			r.PostFormValue("webdriver"), r.PostFormValue("pointer_or_key")),
		domain.ParseHoneypot(r.PostFormValue(decoy))
}

// justificationParam reads a rating screen's typed justification
// (docs/studies.md#typed-justifications): the text under the
// participant's drawn name and the typing summary, nil when the form
// sent no text box; nothing in it refuses the answer.
func justificationParam(r *http.Request, name string) *domain.Justification {
	text, ok := r.PostForm[name]
	if !ok || name == "" {
		return nil
	}
	j := domain.ParseJustification(text[0], domain.ParseTypingSummary(r.PostFormValue))
	return &j
}

// traps are the traps of the participant whose session (crowd cookie,
// expert invitation) is session (docs/studies.md#integrity-signals).
func (h *Handler) traps(session string) domain.Traps {
	return domain.DrawTraps(h.TrapKey, session)
}

// integrityParam reads what an expert, context, explanation or
// questionnaire form records beside its answer
// (docs/studies.md#integrity-signals): the signals, the honeypot and the
// keystroke summary, each field on its own and leniently.
func integrityParam(r *http.Request, decoy string) domain.Integrity {
	sig, hp := signalParams(r, decoy)
	return domain.Integrity{Signals: sig, Honeypot: hp, Keys: domain.ParseKeySummary(
		r.PostFormValue("typed_chars"), r.PostFormValue("inserted_chars"),
		r.PostFormValue("iki_median_ms"), r.PostFormValue("iki_iqr_ms"))}
}
