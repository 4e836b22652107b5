package handlers

import (
	"fmt"
	"net/http"

	"pragmalab/domain"
	"pragmalab/recruit"
	"pragmalab/templates"
)

// ProlificInboxPage handles GET /admin/studies/{study}/prolific/inbox: the
// participants' messages about the study, unread first (read from
// Prolific on each visit), each with a reply form.
func (h *Handler) ProlificInboxPage(w http.ResponseWriter, r *http.Request) {
	s, p, ok := h.prolificStudy(w, r)
	if !ok {
		return
	}
	h.renderInbox(w, r, s, p, "")
}

func (h *Handler) renderInbox(w http.ResponseWriter, r *http.Request, s *domain.Study, p *recruit.Service, testParticipant string) {
	msgs, err := p.Inbox(r.Context(), s.ID)
	if err != nil {
		h.prolificDone(w, r, s, p, err, "")
		return
	}
	v := templates.ProlificInboxView{Nav: h.nav(w, r, s), Study: templates.StudyRef{ID: s.ID, Name: s.Name},
		TestParticipant: testParticipant, EntryURL: fmt.Sprintf("%s/s/%d", baseURL(r), s.ID)}
	for _, m := range msgs {
		v.Messages = append(v.Messages, templates.ProlificInMessage{PID: m.PID, Body: m.Body, Category: m.Category, SentAt: m.SentAt, Unread: m.Unread})
	}
	h.render(w, r, http.StatusOK, templates.ProlificInbox(v))
}

// CreateProlificTestParticipant handles POST
// /admin/studies/{study}/prolific/test-participant: a Prolific test
// participant for the researcher, once per email.
func (h *Handler) CreateProlificTestParticipant(w http.ResponseWriter, r *http.Request) {
	s, p, ok := h.prolificForm(w, r, true)
	if !ok {
		return
	}
	id, err := p.CreateTestParticipant(r.Context(), s.ID, actor(r), r.PostFormValue("email"))
	if err != nil {
		h.prolificDone(w, r, s, p, err, "")
		return
	}
	auditf(r, "created Prolific test participant %s", id)
	h.renderInbox(w, r, s, p, id)
}
