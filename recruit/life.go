package recruit

import (
	"context"
	"errors"
	"fmt"
	"pragmalab/domain"
	"pragmalab/studies"
	"strings"

	"pragmalab/prolific"
	"pragmalab/store"
)

// The study's life on Prolific from pragmalab (docs/prolific.md#the-study-on-prolific):
// publish, pause and resume, more places, the cost.

// Transitions by the word the page and the command line use.
var studyActions = map[string]string{"publish": prolific.ActionPublish, "pause": prolific.ActionPause, "resume": prolific.ActionStart}

// TransitionResult says what a transition did.
type TransitionResult struct {
	Action  string // publish, pause, resume
	Status  string // the study's status on Prolific afterwards
	Already bool   // the study was in that status already: nothing sent
}

// TransitionStudy publishes, pauses or resumes the linked study on
// Prolific. Publishing and resuming are refused while pragmalab's go-live
// checklist fails or the study is not open here, since participants would
// find it closed. The study's status is read first: a study already in the
// wanted status gets nothing sent, and a transition recorded earlier whose
// answer never came is closed by that reading or sent again under the same
// record — Prolific refuses a transition from the wrong status, so none is
// carried out twice.
func (p *Service) TransitionStudy(ctx context.Context, studyID int64, actor, what string) (TransitionResult, error) {
	res := TransitionResult{Action: what}
	action, ok := studyActions[what]
	if !ok {
		return res, domain.Errorf(domain.EINVALID, "unknown action %q: publish, pause or resume", what)
	}
	api, link, err := p.linked(ctx, studyID)
	if err != nil {
		return res, err
	}
	if action != prolific.ActionPause {
		if err := p.readyToGoLive(ctx, studyID); err != nil {
			return res, err
		}
	}
	cur, err := api.Study(ctx, link.ProlificStudyID)
	if err != nil {
		return res, apiErr(err)
	}
	target := prolific.TransitionTarget(action)
	pending, err := p.pendingCall(ctx, studyID, domain.CallTransition, action)
	if err != nil {
		return res, err
	}
	if cur.Status == target {
		res.Status, res.Already = cur.Status, true
		return res, p.transitionSeen(ctx, studyID, pending, cur.Status)
	}
	c := pending
	if c == nil {
		if c, err = p.record(ctx, studyID, domain.CallTransition, "transition:"+link.ProlificStudyID+":"+action+":"+newPlanID(), action, actor,
			map[string]string{"study_id": link.ProlificStudyID, "action": action, "from": cur.Status}); err != nil {
			return res, err
		}
	}
	var after *prolific.Study
	if err := p.send(ctx, c, func() (string, error) {
		var err error
		after, err = api.TransitionStudy(ctx, link.ProlificStudyID, action)
		return jsonText(after), err
	}); err != nil {
		return res, err
	}
	res.Status = target
	if after != nil && after.Status != "" {
		res.Status = after.Status
	}
	return res, p.db.SetProlificStatus(ctx, studyID, res.Status)
}

// readyToGoLive refuses to publish or resume a study whose go-live
// checklist fails or that is not open here.
func (p *Service) readyToGoLive(ctx context.Context, studyID int64) error {
	st, err := p.db.Study(ctx, studyID)
	if err != nil {
		return err
	}
	missing, err := studies.Checklist(ctx, p.db, st)
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		return domain.Errorf(domain.ECONFLICT, "Nothing was sent: the study's go-live checklist fails. Missing: %s.", strings.Join(missing, "; "))
	}
	if st.State != domain.StateOpen {
		return domain.Errorf(domain.ECONFLICT, "Nothing was sent: the study is %s here; open it first, or participants arriving from Prolific find it closed", st.State)
	}
	return nil
}

// transitionSeen records that Prolific's study already has the wanted
// status: a pending transition call was carried out.
func (p *Service) transitionSeen(ctx context.Context, studyID int64, pending *domain.ProlificCall, status string) error {
	if pending != nil {
		if err := p.db.FinishProlificCall(ctx, pending.ID, domain.CallDone, "carried out, as Prolific's status showed"); err != nil {
			return err
		}
	}
	return p.db.SetProlificStatus(ctx, studyID, status)
}

// pendingCall returns the study's pending call of a kind and target, nil
// if none.
func (p *Service) pendingCall(ctx context.Context, studyID int64, kind, target string) (*domain.ProlificCall, error) {
	calls, err := p.db.ProlificCalls(ctx, studyID)
	if err != nil {
		return nil, err
	}
	for _, c := range calls {
		if c.Kind == kind && c.State == domain.CallPending && (target == "" || c.Target == target) {
			return &c, nil
		}
	}
	return nil, nil
}

// PlacesPlan is an increase of places, shown before it is sent.
type PlacesPlan struct {
	From, To           int // places on Prolific before and after
	Batches            int
	QuotaFrom, QuotaTo int // pragmalab's participants per batch before and after
	Capacity           int // batches × QuotaTo: the places pragmalab's batches hold
	RewardCents        int // the reward per place
	CostCents          int // what the added places cost with Prolific's fees (0: unknown)
	Status             string
}

// QuotaRaised reports whether pragmalab's quota goes up with the places.
func (pl *PlacesPlan) QuotaRaised() bool { return pl.QuotaTo > pl.QuotaFrom }

// PlanPlaces works out an increase of n places: Prolific's places go from
// its current number to that plus n, and pragmalab's quota rises to the
// least that gives every place a slot (batches × quota ≥ places). Nothing
// is sent but reads.
func (p *Service) PlanPlaces(ctx context.Context, studyID int64, n int) (*PlacesPlan, error) {
	if n <= 0 || n > 10000 {
		return nil, domain.Errorf(domain.EINVALID, "the places to add must be a number from 1 to 10000 (Prolific only allows increases)")
	}
	api, link, err := p.linked(ctx, studyID)
	if err != nil {
		return nil, err
	}
	cp, err := p.crowdPlaces(ctx, studyID)
	if err != nil {
		return nil, err
	}
	if cp.batches == 0 {
		return nil, domain.Errorf(domain.EINVALID, "build the batches first: places need batches to go to")
	}
	st, err := api.Study(ctx, link.ProlificStudyID)
	if err != nil {
		return nil, apiErr(err)
	}
	pl := &PlacesPlan{From: st.TotalAvailablePlaces, To: st.TotalAvailablePlaces + n, Batches: cp.batches,
		QuotaFrom: cp.set.Quota, QuotaTo: cp.set.Quota, RewardCents: st.Reward, Status: st.Status}
	if need := (pl.To + pl.Batches - 1) / pl.Batches; need > pl.QuotaTo {
		pl.QuotaTo = need
	}
	pl.Capacity = pl.Batches * pl.QuotaTo
	if cost, err := api.StudyCost(ctx, st.Reward, n); err == nil {
		pl.CostCents = cost
	}
	return pl, nil
}

// AddPlaces raises the study's places on Prolific to plan.To and
// pragmalab's quota to plan.QuotaTo. The call sends the new total, so
// repeating it changes nothing; it is recorded under "places:<study>:<from>-<to>"
// before it is sent, and a recorded call whose answer never came is
// checked against Prolific's places before anything is sent again.
func (p *Service) AddPlaces(ctx context.Context, studyID int64, actor string, n int) (*PlacesPlan, error) {
	pl, err := p.PlanPlaces(ctx, studyID, n)
	if err != nil {
		return nil, err
	}
	api, _ := p.api()
	link, err := p.db.ProlificLink(ctx, studyID)
	if err != nil {
		return nil, err
	}
	if pending, err := p.pendingCall(ctx, studyID, domain.CallPlaces, ""); err != nil {
		return nil, err
	} else if pending != nil {
		var to int
		fmt.Sscanf(pending.Target, "%d", &to)
		if pl.From >= to {
			if err := p.db.FinishProlificCall(ctx, pending.ID, domain.CallDone, "carried out, as Prolific's places showed"); err != nil {
				return nil, err
			}
			return nil, domain.Errorf(domain.ECONFLICT, "an earlier increase to %d places, whose answer was lost, was carried out: the study has %d places now. Nothing was sent; add more if you still need them", to, pl.From)
		}
		// Prolific shows fewer places: the lost call was not carried out.
		if err := p.db.FinishProlificCall(ctx, pending.ID, domain.CallFailed, fmt.Sprintf("not carried out: Prolific showed %d places", pl.From)); err != nil {
			return nil, err
		}
	}
	c, err := p.record(ctx, studyID, domain.CallPlaces, fmt.Sprintf("places:%s:%d-%d", link.ProlificStudyID, pl.From, pl.To), fmt.Sprint(pl.To), actor,
		map[string]any{"study_id": link.ProlificStudyID, "total_available_places": pl.To, "from": pl.From, "quota_from": pl.QuotaFrom, "quota_to": pl.QuotaTo})
	var rec *store.ErrCallRecorded
	if errors.As(err, &rec) {
		return nil, domain.Errorf(domain.ECONFLICT, "the increase from %d to %d places was already recorded on %s (%s): nothing was sent", pl.From, pl.To, rec.Call.CreatedAt.Format("2 Jan 2006 15:04"), rec.Call.State)
	}
	if err != nil {
		return nil, err
	}
	if err := p.send(ctx, c, func() (string, error) {
		st, err := api.SetPlaces(ctx, link.ProlificStudyID, pl.To)
		return jsonText(st), err
	}); err != nil {
		return nil, err
	}
	if pl.QuotaRaised() {
		_, set, err := p.db.CrowdStudy(ctx, studyID)
		if err != nil {
			return pl, err
		}
		if set.Quota < pl.QuotaTo {
			set.Quota = pl.QuotaTo
			if err := p.db.SaveCrowdSettings(ctx, studyID, set); err != nil {
				return pl, err
			}
		}
	}
	return pl, nil
}

// CostPreview is what the study costs on Prolific: reward × places, and
// Prolific's total with its fees and VAT when its calculator answers.
type CostPreview struct {
	Status        string
	RewardCents   int
	Places        int
	RewardTotal   int // reward × places
	TotalCents    int // Prolific's total; 0 when unknown
	FeesCents     int // TotalCents − RewardTotal
	FromProlific  bool
	CalculatorErr string
	PragmalabCap  int // batches × quota
}

// Cost previews the linked study's cost before publishing (reads only).
func (p *Service) Cost(ctx context.Context, studyID int64) (*CostPreview, error) {
	api, _, st, err := p.linkedStudy(ctx, studyID)
	if err != nil {
		return nil, err
	}
	cp, err := p.crowdPlaces(ctx, studyID)
	if err != nil {
		return nil, err
	}
	c := &CostPreview{Status: st.Status, RewardCents: st.Reward, Places: st.TotalAvailablePlaces,
		RewardTotal: st.Reward * st.TotalAvailablePlaces, PragmalabCap: cp.places()}
	total, err := api.StudyCost(ctx, st.Reward, st.TotalAvailablePlaces)
	if err != nil {
		c.CalculatorErr = domain.ErrorMessage(apiErr(err))
		return c, nil
	}
	c.TotalCents, c.FeesCents, c.FromProlific = total, total-c.RewardTotal, true
	return c, nil
}

// Life is what the Prolific page shows of the study's life there.
type Life struct {
	Status  string // on Prolific, as last read
	Hooks   *HookView
	Missing []string // the go-live checklist's open points
	Open    bool     // the study is open here
}

// Life returns the study's life on Prolific for its page (no API call).
func (p *Service) Life(ctx context.Context, studyID int64) (*Life, error) {
	link, err := p.db.ProlificLink(ctx, studyID)
	if err != nil {
		return nil, err
	}
	st, err := p.db.Study(ctx, studyID)
	if err != nil {
		return nil, err
	}
	l := &Life{Status: link.ProlificStatus, Open: st.State == domain.StateOpen}
	if l.Missing, err = studies.Checklist(ctx, p.db, st); err != nil {
		return nil, err
	}
	if l.Hooks, err = p.Hooks(ctx, studyID); err != nil {
		return nil, err
	}
	return l, nil
}
