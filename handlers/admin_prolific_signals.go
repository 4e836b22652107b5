package handlers

import (
	"net/http"
)

// SendProlificFlags handles POST /admin/studies/{study}/prolific/flags:
// the flagged participants' integrity flags go to Prolific's submission
// feedback upload as evidence, never a rejection
// (docs/prolific.md#flags-to-prolific).
func (h *Handler) SendProlificFlags(w http.ResponseWriter, r *http.Request) {
	s, p, ok := h.prolificForm(w, r, true)
	if !ok {
		return
	}
	plan, err := p.SendSignals(r.Context(), s.ID, actor(r))
	msg := ""
	if err == nil {
		msg = "Integrity flags of " + itoa(len(plan.Rows)) + " participants uploaded to Prolific as " + plan.Filename + ": evidence only, no submission was rejected."
	}
	h.prolificDone(w, r, s, p, err, msg)
}
