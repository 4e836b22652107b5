package handlers

import (
	"io"
	"net/http"

	"pragmalab/prolific"
	"pragmalab/recruit"
)

// ProlificWebhook handles POST /webhooks/prolific: Prolific's deliveries
// (docs/prolific.md#webhooks). The body is read up to 64 KB, then the
// use case checks the signature before anything else; a refused delivery
// changes nothing. Answers are plain text: Prolific reads the status.
func (h *Handler) ProlificWebhook(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, prolific.MaxWebhookBody))
	if err != nil {
		http.Error(w, "the delivery is over 64 KB or could not be read", http.StatusBadRequest)
		return
	}
	res, err := h.Recruit.ReceiveHook(r.Context(), recruit.HookDelivery{
		EventID:   r.Header.Get("X-Event-ID"),
		Timestamp: r.Header.Get("X-Prolific-Request-Timestamp"),
		Signature: r.Header.Get("X-Prolific-Request-Signature"),
		Body:      body,
	})
	if he, ok := recruit.AsHookError(err); ok {
		h.Log.Warn("prolific webhook refused", "status", he.Status, "why", he.Msg)
		http.Error(w, he.Msg, he.Status)
		return
	}
	if err != nil {
		h.Log.Error("prolific webhook", "err", err)
		http.Error(w, "the delivery could not be processed", http.StatusInternalServerError)
		return
	}
	if res.Duplicate {
		w.Write([]byte("already processed\n"))
		return
	}
	w.Write([]byte("ok: " + res.Outcome + "\n"))
}
