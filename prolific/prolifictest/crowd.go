package prolifictest

import (
	"context"
	"fmt"
	"pragmalab/domain"

	"pragmalab/store"
)

// PID is the i-th test participant's Prolific id.
func PID(i int) string { return fmt.Sprintf("60%022x", i) }

// SeedCrowdStudy makes a crowd study as Prolific participants leave it:
// two items and two attention checks in two batches; participants 1 and 2
// complete their batch (2 failing both checks, so the rule excludes them),
// participant 3 consents and stays active. The study excludes at 2 failed
// checks and has the completion code DONE.
func SeedCrowdStudy(ctx context.Context, db *store.DB, prolificStudyID string) (*domain.Study, error) {
	cs := &domain.Study{Kind: domain.KindCrowd, Name: "crowd", Lang: "en"}
	if err := db.CreateStudy(ctx, cs); err != nil {
		return nil, err
	}
	items := []domain.Item{
		{Key: "x001", Type: domain.TypeScalar, Utterance: "u1", Implicature: "b1", Cancellation: "c1"},
		{Key: "x002", Type: domain.TypeScalar, Utterance: "u2", Implicature: "b2", Cancellation: "c2"},
		{Key: "chk-high", Type: domain.TypeSynthetic, Utterance: "u", Implicature: "b", Cancellation: "x", Check: "high"},
		{Key: "chk-low", Type: domain.TypeSynthetic, Utterance: "u", Implicature: "b", Cancellation: "x", Check: "low"},
	}
	if err := db.ImportItems(ctx, cs.ID, items); err != nil {
		return nil, err
	}
	stored, err := db.ListItems(ctx, cs.ID)
	if err != nil {
		return nil, err
	}
	id := map[string]int64{}
	for _, it := range stored {
		id[it.Key] = it.ID
	}
	slot := func(k, c string) store.CrowdSlot { return store.CrowdSlot{ItemID: id[k], Condition: c} }
	b := []store.CrowdSlot{slot("x001", "trigger"), slot("x002", "cancel"), slot("chk-low", "trigger"), slot("chk-high", "trigger")}
	if err := db.SaveCrowdBatches(ctx, cs.ID, 1, nil, [][]store.CrowdSlot{b, b}); err != nil {
		return nil, err
	}
	set := domain.DefaultCrowdSettings()
	set.CompletionCode = "DONE"
	set.MaxFailedChecks = 2
	if err := db.SaveCrowdSettings(ctx, cs.ID, set); err != nil {
		return nil, err
	}
	for i := 1; i <= 3; i++ {
		part, err := db.EnterCrowd(ctx, cs.ID, store.CrowdArrival{PID: PID(i), StudyID: prolificStudyID, SessionID: fmt.Sprintf("sub%d", i)}, set)
		if err != nil {
			return nil, err
		}
		// The batch is assigned at consent.
		if part, err = db.ConsentCrowd(ctx, cs.ID, part.Token, set); err != nil {
			return nil, err
		}
		if i == 3 {
			continue
		}
		screens, err := db.CrowdBatchScreens(ctx, part.BatchID)
		if err != nil {
			return nil, err
		}
		for _, sc := range screens {
			r := 4
			switch {
			case sc.Item.Key == "chk-high" && i == 2, sc.Item.Key == "chk-low" && i != 2:
				r = 1
			case sc.Item.Key == "chk-high", sc.Item.Key == "chk-low":
				r = 7
			}
			if _, err := db.SaveCrowdRating(ctx, cs.ID, part.Token, sc.Position, r, 0, set); err != nil {
				return nil, err
			}
		}
	}
	return cs, nil
}

// AddFixtureSubmissions gives the fake the submissions of SeedCrowdStudy's
// participants, plus one of a fourth person who never reached pragmalab:
// 1 and 2 awaiting review, 3 returned (in upper case, as ids may come).
func (s *Server) AddFixtureSubmissions(studyID string) {
	s.AddStudy(studyID, "crowd on Prolific")
	s.AddSubmission(studyID, "sub1", PID(1), "AWAITING REVIEW")
	s.AddSubmission(studyID, "sub2", PID(2), "AWAITING REVIEW")
	s.AddSubmission(studyID, "sub3", fmt.Sprintf("60%022X", 3), "RETURNED")
	s.AddSubmission(studyID, "sub4", PID(4), "ACTIVE")
}
