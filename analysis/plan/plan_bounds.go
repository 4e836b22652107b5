package plan

import (
	"context"

	"pragmalab/analysis/toplines"
	"pragmalab/domain"
)

// The planner's bounds (docs/cli.md#analyze-plan): every size a caller
// names is refused beyond them, with a sentence naming the flag and its
// limit, before anything is simulated. Without them one number
// (--participants 1000000000) took 24 GB and a quarter of an hour.
const (
	// MaxPlanParticipants is the most participants a plan simulates, and
	// the cap of the search for a target width: a target the simulated
	// studies at the cap do not reach is out of reach.
	MaxPlanParticipants = 5000
	// MaxPlanSizes is the most numbers of participants in one plan.
	MaxPlanSizes = 12
	// MaxPlanItems is the most items of a planned study.
	MaxPlanItems = 5000
	// MaxPlanDraws is the most studies simulated per number.
	MaxPlanDraws = 50
	// MinPlanReplicates and MaxPlanReplicates bound each simulated
	// study's bootstrap replicates.
	MinPlanReplicates = 100
	MaxPlanReplicates = 5000
	// MaxPlanRatings is the most ratings of one simulated study
	// (participants × the screens each rates).
	MaxPlanRatings = 1_000_000
	// MaxPlanWork bounds one simulated study's ratings × replicates: about
	// a minute of one core.
	MaxPlanWork = 1_000_000_000
)

// checkSizes refuses the sizes both planners share beyond their bounds,
// naming the flag: the numbers of participants, items and simulated
// studies.
func checkSizes(participants []int, items, draws int) error {
	if len(participants) == 0 {
		return domain.Errorf(domain.EINVALID, "--participants: name at least one number of participants to plan for")
	}
	if len(participants) > MaxPlanSizes {
		return domain.Errorf(domain.EINVALID, "--participants: %d numbers of participants; the planner takes at most %d at once", len(participants), MaxPlanSizes)
	}
	for _, n := range participants {
		if err := checkParticipants(n); err != nil {
			return err
		}
	}
	if items < 0 || items > MaxPlanItems {
		return domain.Errorf(domain.EINVALID, "--items: %d is not a number of items the planner simulates (0 for the pilot's, or 1 to %d)", items, MaxPlanItems)
	}
	if draws < 0 || draws > MaxPlanDraws {
		return domain.Errorf(domain.EINVALID, "--draws: %d is not a number of simulated studies the planner makes (1 to %d)", draws, MaxPlanDraws)
	}
	return nil
}

// check refuses the sizes beyond the bounds, naming the flag.
func (opt PlanOptions) check() error {
	if err := checkSizes(opt.Participants, opt.Items, opt.Draws); err != nil {
		return err
	}
	if opt.Refits > MaxPlanRefits {
		return domain.Errorf(domain.EINVALID, "--refits: %d re-fitted pilots; the planner takes at most %d", opt.Refits, MaxPlanRefits)
	}
	if r := opt.Options.Bootstrap.Replicates; r != 0 && (r < MinPlanReplicates || r > MaxPlanReplicates) {
		return domain.Errorf(domain.EINVALID, "--bootstrap: %d replicates; the planner takes %d to %d", r, MinPlanReplicates, MaxPlanReplicates)
	}
	return nil
}

func checkParticipants(n int) error {
	if n < 1 || n > MaxPlanParticipants {
		return domain.Errorf(domain.EINVALID, "--participants: %d is not a number of participants the planner simulates (1 to %d)", n, MaxPlanParticipants)
	}
	return nil
}

// CheckTarget refuses a target width that is not a number above 0 and
// below 2 (the widest interval of r), for the command's --target-width
// and the Plan page's form alike.
func CheckTarget(target float64) error {
	if !(target > 0) || !(target < 2) {
		return domain.Errorf(domain.EINVALID, "the target width %g is not a width (a number above 0 and below 2, e.g. 0.10 for an interval of ±0.05)", target)
	}
	return nil
}

// checkSize refuses a simulated study of n participants whose ratings,
// or ratings × replicates, pass the bounds.
func (m *planModel) checkSize(n, replicates int) error {
	rows := n * m.most
	if rows > MaxPlanRatings {
		return domain.Errorf(domain.EINVALID, "--participants: %d participants rating up to %d screens each make %d ratings per simulated study; the planner simulates at most %d (with this pilot, at most %d participants)", n, m.most, rows, MaxPlanRatings, MaxPlanRatings/max(1, m.most))
	}
	if rows*replicates > MaxPlanWork {
		return domain.Errorf(domain.EINVALID, "--bootstrap: %d replicates of %d ratings per simulated study pass the planner's bound of %d ratings × replicates; take fewer replicates or participants", replicates, rows, MaxPlanWork)
	}
	return nil
}

// computeToplines is ComputeToplines that returns when ctx is done; the
// computation left behind is bounded by checkSize.
func computeToplines(ctx context.Context, rs *toplines.Ratings, opt toplines.Options) (*toplines.Toplines, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	done := make(chan *toplines.Toplines, 1)
	go func() { done <- toplines.ComputeToplines(rs, opt) }()
	select {
	case t := <-done:
		return t, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// CheckOptions refuses the sizes of opt beyond the planner's bounds, each
// naming its flag and limit.
func CheckOptions(opt PlanOptions) error { return opt.check() }
