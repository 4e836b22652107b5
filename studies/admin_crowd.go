package studies

import (
	"context"
	"time"

	"pragmalab/domain"
	"pragmalab/store"
)

// A crowd study's admin (docs/studies.md#crowd-settings): its settings, its
// batches, its progress and its participants' exclusions.

// CrowdBatchProgress is one batch's line of the progress table. An alias:
// a read-only report the store fills, read field by field by the pages.
type CrowdBatchProgress = store.CrowdBatchProgress

// CrowdParticipantReport is a participant with their attention-check
// results, quality flags and exclusion. An alias: a read-only report the
// store fills, read field by field by the pages.
type CrowdParticipantReport = store.CrowdParticipantReport

// TrainingScreen is one training item of a crowd study, in the condition
// it is shown in.
type TrainingScreen struct {
	Position  int
	Condition string
	Item      domain.Item
}

// CrowdAdmin is what the admin page of a crowd study shows beside its
// settings.
type CrowdAdmin struct {
	Items        []domain.Item
	Training     []TrainingScreen
	Progress     []CrowdBatchProgress
	Participants []CrowdParticipantReport
	// LLMEcho says in one sentence whether and against which likert
	// scoring jobs the participants were checked for LLM-echo
	// (comparisons.AssessLLMEcho, through SetLLMEcho).
	LLMEcho string
	// ProlificStatus is each participant's status on Prolific at the last
	// sync, by lower-cased PROLIFIC_PID.
	ProlificStatus map[string]string
	// Plan is the design a build would give now, while nobody has arrived
	// (nil otherwise, or when there is nothing to build: PlanError says
	// why).
	Plan      *CrowdBuild
	PlanError string
}

// CrowdSettings decodes the settings of a crowd study already loaded,
// defaults filled in.
func CrowdSettings(s *domain.Study) (domain.CrowdSettings, error) {
	if !domain.IsCrowdKind(s.Kind) {
		return domain.CrowdSettings{}, domain.Errorf(domain.ENOTFOUND, "study %d is not a crowd study", s.ID)
	}
	return settingsOver(s, domain.SettingsFor(s.Kind))
}

// CrowdAdmin reads the admin page of crowd study s with settings set.
func (v *Service) CrowdAdmin(ctx context.Context, s *domain.Study, set domain.CrowdSettings) (CrowdAdmin, error) {
	var a CrowdAdmin
	var err error
	if a.Items, err = v.db.ListItems(ctx, s.ID); err != nil {
		return a, err
	}
	training, err := v.db.CrowdTraining(ctx, s.ID)
	if err != nil {
		return a, err
	}
	for _, t := range training {
		a.Training = append(a.Training, TrainingScreen{Position: t.Position, Condition: t.Condition, Item: t.Item})
	}
	if a.Progress, err = v.db.CrowdProgress(ctx, s.ID, set); err != nil {
		return a, err
	}
	if a.Participants, err = v.db.CrowdParticipants(ctx, s.ID, set); err != nil {
		return a, err
	}
	if len(a.Participants) > 0 && v.echo != nil {
		if a.LLMEcho, err = v.echo(ctx, s.ID, set, a.Participants); err != nil {
			return a, err
		}
	}
	subs, err := v.db.ProlificSubmissions(ctx, s.ID)
	if err != nil {
		return a, err
	}
	a.ProlificStatus = make(map[string]string, len(subs))
	for _, sub := range subs {
		a.ProlificStatus[sub.PID] = sub.Status
	}
	if len(a.Participants) == 0 {
		plan, err := PlanCrowdBatches(ctx, v.db, s.ID, set, s.Seed)
		switch {
		case err == nil:
			a.Plan = &plan
		case domain.ErrorCode(err) == domain.EINVALID:
			a.PlanError = domain.ErrorMessage(err)
		default:
			return a, err
		}
	}
	return a, nil
}

// BuildCrowdBatches builds and stores a crowd study's training items and
// batches with the seed (refused once a participant has arrived).
func (v *Service) BuildCrowdBatches(ctx context.Context, id int64, set domain.CrowdSettings, seed int64) (CrowdBuild, error) {
	return BuildCrowdBatches(ctx, v.db, id, set, seed)
}

// CrowdProgress returns every batch of a crowd study with its counts, and
// the time they were counted at.
func (v *Service) CrowdProgress(ctx context.Context, id int64, set domain.CrowdSettings) ([]CrowdBatchProgress, time.Time, error) {
	at := v.db.Now()
	ps, err := v.db.CrowdProgress(ctx, id, set)
	return ps, at, err
}
