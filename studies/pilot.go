package studies

import (
	"context"

	"pragmalab/domain"
	"pragmalab/store"
)

// A study's pilot link (docs/studies.md#pilots) walks the real participant
// or expert flow in any state of the study, with everything stored marked
// as pilot and kept apart.

// IncludePilot returns a context under which the answer rows of the
// exports and analyses include the pilot answers; without it they leave
// them out.
func IncludePilot(ctx context.Context) context.Context { return store.IncludePilot(ctx) }

// PilotVisit is where a pilot link leads.
type PilotVisit struct {
	StudyID int64
	Kind    string // the study's kind
	// CrowdToken is, for a crowd study, the cookie of a new pilot session,
	// or "" when the browser's own pilot session goes on.
	CrowdToken string
	// Annotator is, for the other kinds, the pilot expert's token (/e/{token}).
	Annotator string
}

// EnterPilot follows the pilot link token. A crowd pilot link opens a new
// pilot session in each browser; cookie returns the browser's crowd
// session token of a study. The other kinds share one pilot expert, made
// on first use with what a real expert gets.
func (s *Service) EnterPilot(ctx context.Context, token string, cookie func(studyID int64) string) (PilotVisit, error) {
	st, err := s.db.StudyByPilotToken(ctx, token)
	if err != nil {
		return PilotVisit{}, err
	}
	v := PilotVisit{StudyID: st.ID, Kind: st.Kind}
	if domain.IsCrowdKind(st.Kind) {
		if p, err := s.db.CrowdParticipantByToken(ctx, st.ID, cookie(st.ID)); err == nil && p.Pilot {
			return v, nil // this browser's pilot session
		}
		p, err := s.db.EnterCrowdPilot(ctx, st.ID)
		if err != nil {
			return PilotVisit{}, err
		}
		v.CrowdToken = p.Token
		return v, nil
	}
	n := 0
	if st.Kind == domain.KindExplain {
		set, err := ExplainSettingsOf(st)
		if err != nil {
			return PilotVisit{}, err
		}
		n = set.PerExpert
	}
	a, err := s.db.PilotAnnotator(ctx, st, n)
	if err != nil {
		return PilotVisit{}, err
	}
	v.Annotator = a.Token
	return v, nil
}

// NewPilotLink gives the study a new pilot link, revoking the old one.
func (s *Service) NewPilotLink(ctx context.Context, studyID int64) error {
	_, err := s.db.NewPilotLink(ctx, studyID)
	return err
}
