package handlers

import (
	"bytes"
	"fmt"
	"net/http"

	"pragmalab/templates"
)

// Prolific's demographic export on the Prolific page
// (docs/prolific.md#demographics): downloaded joined to the participants
// CSV, and kept in the database only when the researcher says so. Both
// are POSTs: the download calls Prolific and may store, so it needs the
// CSRF token and is refused in a viewer's session like every change.

// prolificDemographicsView is the section's state.
func (h *Handler) prolificDemographicsView(r *http.Request, studyID int64) (templates.ProlificDemographics, error) {
	var d templates.ProlificDemographics
	keep, err := h.Recruit.KeepDemographics(r.Context(), studyID)
	if err != nil || !keep {
		return d, err
	}
	d.Keep = true
	d.Kept, err = h.Recruit.KeptDemographics(r.Context(), studyID)
	return d, err
}

// ProlificDemographicsCSV handles POST
// /admin/studies/{study}/prolific/participants.csv: the participants
// export with Prolific's demographic columns. When Prolific fails, the
// page says why and nothing is downloaded.
func (h *Handler) ProlificDemographicsCSV(w http.ResponseWriter, r *http.Request) {
	s, p, ok := h.prolificForm(w, r, false)
	if !ok {
		return
	}
	var buf bytes.Buffer
	if err := p.ExportParticipantsWithDemographics(r.Context(), s.ID, actor(r), &buf); err != nil {
		h.prolificDone(w, r, s, p, err, "")
		return
	}
	auditf(r, "downloaded the participants of study %d with Prolific's demographics", s.ID)
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", fmt.Sprintf("participants-demographics-study%d.csv", s.ID)))
	if _, err := w.Write(buf.Bytes()); err == nil {
		h.exported(r, s.ID)
	}
}

// KeepProlificDemographics handles POST
// /admin/studies/{study}/prolific/demographics: keep=yes keeps the
// demographic export in the database; without it, what was kept is
// deleted.
func (h *Handler) KeepProlificDemographics(w http.ResponseWriter, r *http.Request) {
	s, p, ok := h.prolificForm(w, r, false)
	if !ok {
		return
	}
	keep := r.PostFormValue("keep") == "yes"
	err := p.SetKeepDemographics(r.Context(), s.ID, keep, actor(r))
	msg := "Demographics from Prolific are no longer kept: the rows kept so far were deleted, and the consent page no longer mentions them."
	if keep {
		msg = "Demographics from Prolific are kept in the database from the next download on; the consent page says so."
	}
	h.prolificDone(w, r, s, p, err, msg)
}
