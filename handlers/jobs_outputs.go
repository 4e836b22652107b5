package handlers

import (
	"fmt"
	"net/http"
	"pragmalab/domain"
	"strconv"
	"strings"

	"pragmalab/studies"
	"pragmalab/templates"
)

// JobOutputs handles POST /admin/studies/{study}/jobs/{job}/outputs: a
// finished generation job's outputs become rating screens of the
// explanation-rating study the form names ("to"; default the job's own
// study), all or nothing.
func (h *Handler) JobOutputs(w http.ResponseWriter, r *http.Request) {
	_, res, err := h.jobResults(r)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	if err := parseForm(w, r); err != nil {
		h.Error(w, r, err)
		return
	}
	j := res.Job
	if err := studies.CanSendOutputs(j); err != nil {
		h.Error(w, r, err)
		return
	}
	to := j.StudyID
	if v := strings.TrimSpace(r.PostFormValue("to")); v != "" {
		if to, err = strconv.ParseInt(v, 10, 64); err != nil || to <= 0 {
			h.Error(w, r, domain.Errorf(domain.EINVALID, "to: choose an explanation-rating study"))
			return
		}
	}
	target, n, err := h.Service.SendJobOutputs(r.Context(), res, to)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	h.Log.Info("job outputs sent", "job", j.ID, "study", target.ID, "outputs", n)
	// The change is to the receiving study: its log has the entry.
	auditStudy(r, target.ID)
	auditf(r, "%s", studies.AuditJobOutputsSent(n, j.ID, j.StudyID))
	h.flash(w, r, fmt.Sprintf("%d outputs of job #%d added to the rating screens of study #%d %s.", n, j.ID, target.ID, target.Name))
	redirect(w, r, templates.StudyURL(target.ID, ""))
}
