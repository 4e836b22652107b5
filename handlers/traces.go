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
func (h *Handler) traceParam(r *http.Request) domain.AnswerTrace {
	tr, err := domain.ParseAnswerTrace(r.PostFormValue("answer_changes"), r.PostFormValue("hidden_ms"), r.PostFormValue("first_input_ms"))
	if err != nil {
		h.Log.Warn("answer trace left out", "path", r.URL.Path, "err", err)
		return domain.AnswerTrace{}
	}
	return tr
}
