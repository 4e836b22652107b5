package handlers

import (
	"net/http"

	"pragmalab/domain"

	"pragmalab/templates"
)

// The consent step of a crowd study (docs/studies.md#consent).

// crowdLanding is the consent page of the study: its texts and what a
// review board asks it to state.
func (h *Handler) crowdLanding(r *http.Request, c *crowdCtx) (templates.CrowdLandingView, error) {
	f, err := c.ConsentFacts(r.Context())
	if err != nil {
		return templates.CrowdLandingView{}, err
	}
	keep, err := h.Recruit.KeepDemographics(r.Context(), c.Study.ID)
	if err != nil {
		return templates.CrowdLandingView{}, err
	}
	return templates.CrowdLandingView{
		Lang: c.Study.Lang, Base: c.base, Title: c.Settings.Title, Intro: c.Settings.Intro, Consent: c.Settings.Consent,
		Researcher: f.Researcher, Contact: f.Contact, EthicsRef: f.EthicsRef, Minutes: f.Minutes, Screens: f.Screens,
		KeepsDemographics: keep,
		MachineCheck:      c.Settings.MachineCheck,
		Decoy:             c.traps.Decoy,
		Judgement:         c.Settings.Judgement(),
	}, nil
}

// CrowdDecline handles POST /s/{study}/decline, "I do not agree": the
// entry is deleted, the refusal alone is stored, and the next page gives
// the no-consent code back to Prolific.
func (h *Handler) CrowdDecline(w http.ResponseWriter, r *http.Request) {
	c, ok := h.crowd(w, r)
	if !ok {
		return
	}
	if err := c.Decline(r.Context()); err != nil {
		h.crowdFailed(w, r, c, err)
		return
	}
	redirect(w, r, c.base+"/screen")
}

// crowdUnavailable answers a crowd participant whom the study's state does
// not let go on, with one instruction (come back later, or return the
// study).
func (h *Handler) crowdUnavailable(w http.ResponseWriter, r *http.Request, c *crowdCtx) {
	status := http.StatusForbidden
	if c.Study.State == domain.StatePaused {
		status = http.StatusServiceUnavailable
	}
	h.render(w, r, status, templates.CrowdUnavailable(c.Study.Lang, c.Study.State))
}
