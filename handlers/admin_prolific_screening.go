package handlers

import (
	"net/http"
	"strings"

	"pragmalab/recruit"
	"pragmalab/templates"
)

// The screening on the Prolific page and the request to return
// (docs/prolific.md#screening, #request-return). Viewers are refused by
// the admin area's NoViewerAnswers, as for every POST.

// prolificScreening is the page's view of the study's screening.
func prolificScreening(sc *recruit.Screening) templates.ProlificScreening {
	v := templates.ProlificScreening{Filters: templates.ScreeningFilters(sc.Filters, recruit.FormatFilter), Proposed: sc.Proposed}
	if sc.Last != nil {
		v.Count = sc.Last.Text() + " for " + itoa(sc.Last.Places) + " places, counted " + sc.CountedAt.UTC().Format("2 Jan 2006 15:04") + " UTC"
		v.Warning = sc.Last.Warning()
	}
	return v
}

// formList splits a form field of changes separated by semicolons or
// lines (values inside one change are separated by commas, and may hold
// spaces: "first-language=Brazilian Portuguese").
func formList(v string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ';' || r == '\n' || r == '\r' }) {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// SaveProlificScreening handles POST /admin/studies/{study}/prolific/screening:
// the change saved whole, or nothing saved and the page says why.
func (h *Handler) SaveProlificScreening(w http.ResponseWriter, r *http.Request) {
	s, p, ok := h.prolificForm(w, r, false)
	if !ok {
		return
	}
	ch := recruit.ScreeningChange{Add: formList(r.PostFormValue("add")), Range: formList(r.PostFormValue("range")), Remove: formList(r.PostFormValue("remove"))}
	if len(ch.Add)+len(ch.Range)+len(ch.Remove) == 0 {
		h.renderProlific(w, r, s, p, http.StatusBadRequest, "Nothing to change: name a filter to add, a range or a filter to remove.")
		return
	}
	plan, err := p.SaveScreening(r.Context(), s.ID, ch)
	msg := "Screening saved: nobody is screened out."
	if err == nil && len(plan.After) > 0 {
		msg = "Screening saved: " + strings.Join(templates.ScreeningFilters(plan.After, recruit.FormatFilter), " ") + "."
	}
	h.prolificDone(w, r, s, p, err, msg)
}

// ProlificEligible handles POST /admin/studies/{study}/prolific/eligible:
// Prolific's count of the participants the screening admits (read only),
// shown as a message on the page.
func (h *Handler) ProlificEligible(w http.ResponseWriter, r *http.Request) {
	s, p, ok := h.prolificForm(w, r, false)
	if !ok {
		return
	}
	e, err := p.EligibleCount(r.Context(), s.ID)
	if err != nil {
		h.prolificDone(w, r, s, p, err, "")
		return
	}
	msg := "Eligible participants on Prolific: " + e.Text() + " (for " + itoa(e.Places) + " places)."
	if wn := e.Warning(); wn != "" {
		msg += " Warning: " + wn + "."
	}
	h.flash(w, r, msg)
	redirect(w, r, templates.StudyURL(s.ID, "/prolific"))
}

// RequestProlificReturn handles POST /admin/studies/{study}/prolific/return:
// asks one participant to return their submission, once, after the
// confirmation box.
func (h *Handler) RequestProlificReturn(w http.ResponseWriter, r *http.Request) {
	s, p, ok := h.prolificForm(w, r, true)
	if !ok {
		return
	}
	plan, err := p.RequestReturn(r.Context(), s.ID, actor(r), r.PostFormValue("pid"), r.PostFormValue("reason"))
	msg := ""
	if err == nil {
		msg = "Asked " + plan.PID + " to return submission " + plan.SubmissionID + "."
	}
	h.prolificDone(w, r, s, p, err, msg)
}
