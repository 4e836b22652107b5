package handlers

import (
	"net/http"
	"strconv"
	"strings"

	"pragmalab/analysis/plan"
	"pragmalab/analysis/toplines"
	"pragmalab/domain"
	"pragmalab/recruit"
	"pragmalab/templates"
)

// ProlificPlanPage handles GET /admin/studies/{study}/prolific/plan: the
// form of a target width and, with ?width=, the participants it needs,
// their cost and the widths now (docs/prolific.md#plan). A GET: it only
// reads, here and on Prolific; Add places goes through the places page
// and its confirmation.
func (h *Handler) ProlificPlanPage(w http.ResponseWriter, r *http.Request) {
	s, p, ok := h.prolificStudy(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	v := templates.ProlificPlanView{Nav: h.nav(w, r, s), Study: s, Type: q.Get("type"), Quantity: q.Get("quantity"),
		Width: strings.TrimSpace(q.Get("width")), Types: append([]string{domain.TypeAll}, domain.TableTypes...), Quantities: plan.PlanQuantities}
	if v.Type == "" {
		v.Type = domain.TypeAll
	}
	if v.Quantity == "" {
		v.Quantity = toplines.MImplicature
	}
	status := http.StatusOK
	if v.Width != "" {
		res, err := planWidth(r, p, s.ID, v)
		if err != nil {
			if domain.ErrorCode(err) != domain.EINVALID {
				h.Error(w, r, err)
				return
			}
			status, v.Nav.Error = http.StatusBadRequest, domain.ErrorMessage(err)
		}
		v.Result = res
	}
	h.render(w, r, status, templates.ProlificPlan(v))
}

// planWidth runs the planner for the form's values.
func planWidth(r *http.Request, p *recruit.Service, studyID int64, v templates.ProlificPlanView) (*templates.ProlificPlanResult, error) {
	target, err := strconv.ParseFloat(strings.Replace(v.Width, ",", ".", 1), 64)
	if err != nil {
		return nil, domain.Errorf(domain.EINVALID, "the target width %q is not a number (e.g. 0.10)", v.Width)
	}
	// the bounds of `analyze plan --target-width` (docs/prolific.md#plan)
	if err := plan.CheckTarget(target); err != nil {
		return nil, err
	}
	res, err := p.PlanByWidth(r.Context(), studyID, v.Type, v.Quantity, target)
	if err != nil {
		return nil, err
	}
	pl := res.Plan
	out := &templates.ProlificPlanResult{Target: pl.Target, Estimate: pl.Estimate, Width: pl.Width, Floor: pl.Floor,
		Participants: pl.Participants, PilotAnalysed: pl.PilotAnalysed, Cap: pl.Cap, Reachable: pl.Reachable, ItemsLimit: pl.OutOfReach == "items", NearBoundary: pl.NearBoundary,
		FromPilot: res.FromPilot, Analysed: res.Analysed, Places: res.Places, RewardCents: res.RewardCents, Add: res.Add,
		ProlificErr: res.ProlificErr, Reached: res.Reached, CostCents: res.CostCents, CostErr: res.CostErr}
	if wr := pl.WidthRange; wr != nil {
		out.WidthLow, out.WidthHigh = wr.Low, wr.High
	}
	for _, pt := range pl.Points {
		out.Points = append(out.Points, templates.ProlificPlanPoint{Participants: pt.Participants, Width: pt.Width})
	}
	for _, c := range res.Current {
		out.Current = append(out.Current, templates.ProlificCurrentWidth{Quantity: c.Quantity, Estimate: c.Estimate, Width: c.Width,
			Chosen: c.Chosen, Reached: c.Chosen && c.Width <= pl.Target})
	}
	return out, nil
}
