package recruit

import (
	"context"
	"slices"

	"pragmalab/analysis/plan"
	"pragmalab/analysis/toplines"
	"pragmalab/domain"
	"pragmalab/store"
	"pragmalab/studies"
)

// The Plan on the Prolific page (docs/prolific.md#plan): how many
// participants a target width of one topline's 95 % interval needs, what
// they cost by Prolific's calculator, the widths the study has now, and
// the places to add — exactly the difference, through the existing
// add-places path and its confirmation.

// planDraws and planReplicates are the simulation's size on the page: a
// little under `analyze plan`'s defaults (4 and 500), so a Plan answers
// in seconds.
const (
	planDraws      = 3
	planReplicates = 400
)

// CurrentWidth is one topline of the study's answers now.
type CurrentWidth struct {
	Quantity string
	Estimate float64
	Width    float64
	Chosen   bool // the quantity the target is for
}

// PlanResult is the answer of PlanByWidth.
type PlanResult struct {
	Plan *plan.WidthPlan
	// FromPilot: planned from the pilot sessions with the live answers,
	// the live answers alone having fewer than 10 analysed participants.
	FromPilot bool
	Analysed  int // live analysed participants now
	// Current are the live widths of the type's toplines (nil before 2
	// analysed participants).
	Current []CurrentWidth
	// Places on Prolific now and the reward per place (-1: not known,
	// ProlificErr says why).
	Places, RewardCents int
	ProlificErr         string
	// Reached: the live answers' interval is at the target already.
	Reached bool
	// Add is the places to add: needed − places, 0 when they suffice or
	// the target is reached.
	Add int
	// CostCents is Prolific's calculator's total for the needed places
	// (0: not known; CostErr says why).
	CostCents int
	CostErr   string
}

// PlanByWidth plans the participants for a target width of quantity q of
// item type typ. It sends nothing but reads.
func (p *Service) PlanByWidth(ctx context.Context, studyID int64, typ, q string, target float64) (*PlanResult, error) {
	if typ != domain.TypeAll && !slices.Contains(domain.TableTypes, typ) {
		return nil, domain.Errorf(domain.EINVALID, "%q is not an item type (all, %v)", typ, domain.TableTypes)
	}
	opt, err := studies.CrowdOptions(ctx, p.db, studyID)
	if err != nil {
		return nil, err
	}
	res := &PlanResult{Places: -1, RewardCents: -1}
	rs, err := studies.CrowdRatings(ctx, p.db, studyID)
	if err != nil {
		return nil, err
	}
	if rs != nil {
		res.current(toplines.ComputeToplines(rs, opt), typ, q, target)
	}
	if res.Analysed < plan.MinPlanParticipants {
		res.FromPilot = true
		if rs, err = studies.CrowdRatings(store.IncludePilot(ctx), p.db, studyID); err != nil {
			return nil, err
		}
	}
	if rs == nil {
		return nil, domain.Errorf(domain.EINVALID, "there are no answers to plan from yet: run a pilot of at least %d participants first (the study's pilot link)", plan.MinPlanParticipants)
	}
	po := plan.PlanOptions{Draws: planDraws, Options: opt}
	po.Options.Bootstrap.Replicates = planReplicates
	if res.Plan, err = plan.PlanWidth(rs, po, typ, q, target); err != nil {
		return nil, err
	}
	p.planPlaces(ctx, studyID, res)
	return res, nil
}

// current sets the live widths of the type's toplines.
func (res *PlanResult) current(t *toplines.Toplines, typ, q string, target float64) {
	res.Analysed = t.Participants.Analysed
	tt := t.ByType[typ]
	if tt == nil {
		return
	}
	for _, name := range plan.PlanQuantities {
		v, ci := plan.Quantity(tt, name)
		if v == nil || ci == nil {
			continue
		}
		res.Current = append(res.Current, CurrentWidth{Quantity: name, Estimate: *v, Width: ci[1] - ci[0], Chosen: name == q})
		res.Reached = res.Reached || name == q && ci[1]-ci[0] <= target && res.Analysed >= plan.MinPlanParticipants
	}
}

// planPlaces reads the places on Prolific and asks its calculator what
// the needed places cost; a failure is said, not fatal.
func (p *Service) planPlaces(ctx context.Context, studyID int64, res *PlanResult) {
	api, _, st, err := p.linkedStudy(ctx, studyID)
	if err != nil {
		res.ProlificErr = domain.ErrorMessage(err)
		return
	}
	res.Places, res.RewardCents = st.TotalAvailablePlaces, st.Reward
	if !res.Plan.Reachable {
		return
	}
	if !res.Reached {
		res.Add = max(0, res.Plan.Participants-res.Places)
	}
	cost, err := api.StudyCost(ctx, st.Reward, res.Plan.Participants)
	if err != nil {
		res.CostErr = domain.ErrorMessage(apiErr(err))
		return
	}
	res.CostCents = cost
}
