package handlers

import (
	"fmt"
	"net/http"
	"pragmalab/domain"
	"strings"

	"pragmalab/templates"
)

// The people of a study (docs/studies.md#people): rename an expert,
// revoke their link, or give them a new one.

// personForm loads the {study} of a form post and the {annotator} id.
func (h *Handler) personForm(w http.ResponseWriter, r *http.Request) (*domain.Study, int64, bool) {
	s, ok := h.studyForm(w, r)
	if !ok {
		return nil, 0, false
	}
	id, err := idParam(r, "annotator")
	if err != nil {
		h.Error(w, r, err)
		return nil, 0, false
	}
	return s, id, true
}

// RenameAnnotator handles POST /admin/studies/{study}/people/{annotator}/rename.
func (h *Handler) RenameAnnotator(w http.ResponseWriter, r *http.Request) {
	s, id, ok := h.personForm(w, r)
	if !ok {
		return
	}
	old := h.Service.ExpertName(r.Context(), s.ID, id)
	if err := h.Store.RenameAnnotator(r.Context(), s.ID, id, r.PostFormValue("name")); err != nil {
		h.failOnStudyPage(w, r, s, err)
		return
	}
	auditf(r, "%s renamed to %s", old, strings.TrimSpace(r.PostFormValue("name")))
	h.flash(w, r, "Expert renamed.")
	redirect(w, r, templates.StudyURL(s.ID, ""))
}

// RevokeAnnotator handles POST /admin/studies/{study}/people/{annotator}/revoke:
// the link stops working at once; the answers stay.
func (h *Handler) RevokeAnnotator(w http.ResponseWriter, r *http.Request) {
	s, id, ok := h.personForm(w, r)
	if !ok {
		return
	}
	if err := h.Store.RevokeAnnotator(r.Context(), s.ID, id); err != nil {
		h.Error(w, r, err)
		return
	}
	auditf(r, "link of %s revoked", h.Service.ExpertName(r.Context(), s.ID, id))
	h.flash(w, r, "Link revoked: it no longer opens anything. Re-issue one to let the expert in again.")
	redirect(w, r, templates.StudyURL(s.ID, ""))
}

// ReissueAnnotator handles POST /admin/studies/{study}/people/{annotator}/reissue:
// a new link, the old one dead.
func (h *Handler) ReissueAnnotator(w http.ResponseWriter, r *http.Request) {
	s, id, ok := h.personForm(w, r)
	if !ok {
		return
	}
	name, err := h.Service.ReissueAnnotator(r.Context(), s.ID, id)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	auditf(r, "new link for %s", name)
	h.flash(w, r, fmt.Sprintf("New link for %s: copy it from the table below; the old one no longer works.", name))
	redirect(w, r, templates.StudyURL(s.ID, ""))
}
