package handlers

import (
	"net/http"
	"pragmalab/domain"
	"pragmalab/recruit"
	"strconv"
	"strings"

	"pragmalab/prolific"
	"pragmalab/templates"
)

// The study's life on Prolific, screen-outs and messages
// (docs/prolific.md#the-study-on-prolific): each change is confirmed with
// a ticked box, recorded before it is sent, and audited.

// prolificLifeView lays the study's life out for the Prolific page.
func prolificLifeView(l *recruit.Life, rev *recruit.Review) *templates.ProlificLife {
	v := &templates.ProlificLife{Status: l.Status, Missing: l.Missing, Open: l.Open, SecretEnv: prolific.WebhookSecretEnv}
	if l.Hooks != nil {
		v.SecretSet, v.Polling = l.Hooks.SecretSet, l.Hooks.Polling
		for _, s := range l.Hooks.Subscriptions {
			v.Subscriptions = append(v.Subscriptions, templates.ProlificHookSub{ID: s.ID, EventType: s.EventType, TargetURL: s.TargetURL})
		}
		if e := l.Hooks.Last; e != nil {
			v.LastEvent, v.LastOutcome, v.LastAt = e.EventType, e.Outcome, e.ReceivedAt
		}
	}
	if rev != nil {
		v.ScreenedOut = prolificRows(rev.ScreenedOut())
	}
	for _, t := range recruit.MessageTemplates {
		v.Templates = append(v.Templates, templates.ProlificTemplate{Name: t.Name, Label: t.Label, Body: t.Body})
	}
	return v
}

// TransitionProlific handles POST /admin/studies/{study}/prolific/transition:
// publish, pause or resume the study on Prolific.
func (h *Handler) TransitionProlific(w http.ResponseWriter, r *http.Request) {
	s, p, ok := h.prolificForm(w, r, true)
	if !ok {
		return
	}
	res, err := p.TransitionStudy(r.Context(), s.ID, actor(r), r.PostFormValue("action"))
	msg := "Prolific: " + res.Action + " sent; the study is " + res.Status + "."
	if res.Already {
		msg = "Prolific: the study is " + res.Status + " already; nothing was sent."
	}
	h.prolificDone(w, r, s, p, err, msg)
}

// ProlificCostPage handles GET /admin/studies/{study}/prolific/cost: the
// study's cost with Prolific's fees, before publishing.
func (h *Handler) ProlificCostPage(w http.ResponseWriter, r *http.Request) {
	s, p, ok := h.prolificStudy(w, r)
	if !ok {
		return
	}
	c, err := p.Cost(r.Context(), s.ID)
	if err != nil {
		h.prolificDone(w, r, s, p, err, "")
		return
	}
	h.render(w, r, http.StatusOK, templates.ProlificCost(templates.ProlificCostView{Nav: h.nav(w, r, s), Study: s, Status: c.Status,
		RewardCents: c.RewardCents, Places: c.Places, RewardTotal: c.RewardTotal, TotalCents: c.TotalCents, FeesCents: c.FeesCents,
		FromProlific: c.FromProlific, CalculatorErr: c.CalculatorErr, PragmalabCap: c.PragmalabCap}))
}

// ProlificPlacesPage handles GET /admin/studies/{study}/prolific/places?add=N:
// what adding N places does, here and on Prolific.
func (h *Handler) ProlificPlacesPage(w http.ResponseWriter, r *http.Request) {
	s, p, ok := h.prolificStudy(w, r)
	if !ok {
		return
	}
	n, err := strconv.Atoi(strings.TrimSpace(r.URL.Query().Get("add")))
	if err != nil {
		h.prolificDone(w, r, s, p, domain.Errorf(domain.EINVALID, "the places to add must be a whole number"), "")
		return
	}
	pl, err := p.PlanPlaces(r.Context(), s.ID, n)
	if err != nil {
		h.prolificDone(w, r, s, p, err, "")
		return
	}
	h.render(w, r, http.StatusOK, templates.ProlificPlaces(templates.ProlificPlacesView{Nav: h.nav(w, r, s), Study: s, Add: n,
		From: pl.From, To: pl.To, Batches: pl.Batches, QuotaFrom: pl.QuotaFrom, QuotaTo: pl.QuotaTo, Capacity: pl.Capacity, CostCents: pl.CostCents}))
}

// AddProlificPlaces handles POST /admin/studies/{study}/prolific/places.
func (h *Handler) AddProlificPlaces(w http.ResponseWriter, r *http.Request) {
	s, p, ok := h.prolificForm(w, r, true)
	if !ok {
		return
	}
	n, err := formInt(r, "add", 0)
	if err != nil {
		h.prolificDone(w, r, s, p, domain.Errorf(domain.EINVALID, "the places to add must be a whole number"), "")
		return
	}
	pl, err := p.AddPlaces(r.Context(), s.ID, actor(r), n)
	msg := ""
	if err == nil {
		msg = "Places on Prolific raised from " + itoa(pl.From) + " to " + itoa(pl.To) + "."
		if pl.QuotaRaised() {
			msg += " pragmalab's quota raised from " + itoa(pl.QuotaFrom) + " to " + itoa(pl.QuotaTo) + " per batch."
		}
	}
	h.prolificDone(w, r, s, p, err, msg)
}

// ScreenOutProlific handles POST /admin/studies/{study}/prolific/screen-out.
func (h *Handler) ScreenOutProlific(w http.ResponseWriter, r *http.Request) {
	s, p, ok := h.prolificForm(w, r, true)
	if !ok {
		return
	}
	res, err := p.ScreenOut(r.Context(), s.ID, actor(r))
	msg := screenOutMessage(res)
	h.prolificDone(w, r, s, p, err, msg)
}

// screenOutMessage says what a review did of the screened-out.
func screenOutMessage(res recruit.ScreenOutResult) string {
	switch {
	case res.Due == 0:
		return "No screened-out submission awaits review on Prolific."
	case res.NotPaid:
		return itoa(res.Due) + " screened out, but the study on Prolific has no FIXED_SCREENOUT code equal to the screen-out code: nothing was sent. Do not reject them; decide on Prolific."
	}
	return "Moved " + itoa(len(res.Moved)) + " submissions to SCREENED OUT on Prolific."
}

// messagePlan reads a message form into a plan.
func (h *Handler) messagePlan(r *http.Request, s *domain.Study, p *recruit.Service) (*recruit.MessagePlan, error) {
	body := r.PostFormValue("body")
	if t := r.PostFormValue("template"); t != "" {
		b, ok := recruit.MessageTemplateBody(t)
		if !ok {
			return nil, domain.Errorf(domain.EINVALID, "unknown message template %q", t)
		}
		body = b
	}
	return p.PlanMessage(r.Context(), s.ID, r.PostFormValue("to"), r.PostFormValue("pid"), body)
}

// ProlificMessagePreview handles POST /admin/studies/{study}/prolific/message/preview:
// who the message goes to and what it says, before anything is sent.
func (h *Handler) ProlificMessagePreview(w http.ResponseWriter, r *http.Request) {
	s, p, ok := h.prolificForm(w, r, false)
	if !ok {
		return
	}
	plan, err := h.messagePlan(r, s, p)
	if err != nil {
		h.prolificDone(w, r, s, p, err, "")
		return
	}
	h.render(w, r, http.StatusOK, templates.ProlificMessage(templates.ProlificMessageView{Nav: h.nav(w, r, s), Study: s, Plan: plan.ID,
		To: plan.Selection, PID: r.PostFormValue("pid"), Recipients: plan.Recipients, Body: plan.Body}))
}

// SendProlificMessage handles POST /admin/studies/{study}/prolific/message:
// the confirmed message; the same confirmation sent twice sends once.
func (h *Handler) SendProlificMessage(w http.ResponseWriter, r *http.Request) {
	s, p, ok := h.prolificForm(w, r, true)
	if !ok {
		return
	}
	plan, err := h.messagePlan(r, s, p)
	if err == nil {
		if id := r.PostFormValue("plan"); len(id) == 24 {
			plan.ID = id
		}
		err = p.SendMessage(r.Context(), s.ID, actor(r), plan)
	}
	msg := ""
	if plan != nil {
		msg = "Message sent through Prolific to " + itoa(len(plan.Recipients)) + " participants (" + plan.Selection + ")."
	}
	h.prolificDone(w, r, s, p, err, msg)
}
