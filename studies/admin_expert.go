package studies

import (
	"context"
	"strconv"
	"strings"

	"pragmalab/domain"
)

// ExpertStudyReport is what the admin page of an expert validation study
// shows (docs/studies.md#expert-validation).
type ExpertStudyReport struct {
	// Settings are the study's batch settings; before any batch was built,
	// settings the items can fill (ExpertSettingsFor).
	Settings    domain.ExpertSettings
	Items       []domain.Item
	Batches     []domain.Batch
	Annotators  []domain.Annotator
	Assignments []domain.Assignment
	Flagged     int // flagged items still awaiting a review decision
}

// ExpertSettingsOf reads an expert study's settings over the defaults.
func ExpertSettingsOf(s *domain.Study) (domain.ExpertSettings, error) {
	return settingsOver(s, domain.DefaultExpertSettings())
}

// settingsOver decodes a study's settings over set, its kind's defaults.
func settingsOver[T any](s *domain.Study, set T) (T, error) {
	err := s.DecodeSettings(&set)
	return set, err
}

// ExpertStudy gathers the admin page of an expert study.
func (s *Service) ExpertStudy(ctx context.Context, st *domain.Study) (*ExpertStudyReport, error) {
	v := &ExpertStudyReport{}
	var err error
	if v.Settings, err = ExpertSettingsOf(st); err != nil {
		return nil, err
	}
	if v.Items, err = s.db.ListItems(ctx, st.ID); err != nil {
		return nil, err
	}
	if !strings.Contains(string(st.Settings), `"batch_size"`) {
		// No batch built yet: propose settings the items can fill.
		v.Settings = ExpertSettingsFor(v.Items)
	}
	if v.Batches, err = s.db.Batches(ctx, st.ID); err != nil {
		return nil, err
	}
	if v.Annotators, err = s.db.Annotators(ctx, st.ID); err != nil {
		return nil, err
	}
	if v.Assignments, err = s.db.Assignments(ctx, st.ID); err != nil {
		return nil, err
	}
	flagged, err := s.db.Flagged(ctx, st.ID)
	if err != nil {
		return nil, err
	}
	for _, f := range flagged {
		if f.Item.Decision == "" {
			v.Flagged++
		}
	}
	return v, nil
}

// BuildExpertBatches builds the study's batches with the given settings
// (BuildExpertBatches) and returns how many it made.
func (s *Service) BuildExpertBatches(ctx context.Context, st *domain.Study, set domain.ExpertSettings) (int, error) {
	return BuildExpertBatches(ctx, s.db, st, set)
}

// FlaggedItem is one flagged item of the study; an item nobody flagged is
// ENOTFOUND.
func (s *Service) FlaggedItem(ctx context.Context, studyID, itemID int64) (*domain.FlaggedItem, error) {
	flagged, err := s.db.Flagged(ctx, studyID)
	if err != nil {
		return nil, err
	}
	for i := range flagged {
		if flagged[i].Item.ID == itemID {
			return &flagged[i], nil
		}
	}
	return nil, domain.Errorf(domain.ENOTFOUND, "this item is not flagged")
}

// ReviewChoice is what the researcher chose for one flagged item: for the
// implicature and the cancellation, "keep", "own" (with the text typed) or
// the index of an expert's alternative among the item's flags; "" when
// nothing is chosen.
type ReviewChoice struct {
	Implicature, Cancellation string
	OwnImplicature, OwnCancel string
}

// AcceptReview takes the researcher's choices on a flagged item as the
// review's decision (kept as is, an expert's alternative accepted, or their
// own fix) and returns it; a choice that cannot be taken is EINVALID with a
// message saying what to do, and changes nothing.
func (s *Service) AcceptReview(ctx context.Context, studyID int64, f *domain.FlaggedItem, c ReviewChoice) (string, error) {
	decision, impl, canc, note, problem := reviewDecision(c, f.Flags)
	if problem != "" {
		return "", domain.Errorf(domain.EINVALID, "%s", problem)
	}
	if err := s.db.DecideReview(ctx, studyID, f.Item.ID, decision, impl, canc, note); err != nil {
		return "", err
	}
	return decision, nil
}

// reviewDecision turns the researcher's choices into a decision and the
// new texts, or says what is missing. A field left unchosen is kept.
func reviewDecision(c ReviewChoice, flags []domain.Flag) (decision, impl, canc, note, problem string) {
	if c.Implicature == "" && c.Cancellation == "" {
		return "", "", "", "", "Nothing was chosen. For the implicature and the cancellation, choose “keep as is”, one of the experts' alternatives, or “write my own fix” (and type it), then press Accept. To take the item out of the data set, press “Drop the item…”."
	}
	decision = domain.ReviewKept
	pick := func(field, choice, own string, alt func(domain.Flag) string) (string, string) {
		switch choice {
		case "", "keep":
			return "", ""
		case "own":
			own = strings.TrimSpace(own)
			if own == "" {
				return "", "You chose to write your own " + field + ": type it in the box below that choice, then press Accept."
			}
			if err := domain.CheckText("your own "+field, own, domain.MaxTextLen, domain.MultiLine); err != nil {
				return "", domain.ErrorMessage(err)
			}
			decision = domain.ReviewOwn
			note += "own " + field + "; "
			return own, ""
		}
		i, err := strconv.Atoi(choice)
		if err != nil || i < 0 || i >= len(flags) || alt(flags[i]) == "" {
			return "", "That alternative " + field + " no longer exists: choose again."
		}
		if decision != domain.ReviewOwn {
			decision = domain.ReviewAccepted
		}
		note += field + " from " + flags[i].Annotator + "; "
		return alt(flags[i]), ""
	}
	impl, problem = pick("implicature", c.Implicature, c.OwnImplicature, func(f domain.Flag) string { return f.AltImplicature })
	if problem != "" {
		return "", "", "", "", problem
	}
	canc, problem = pick("cancellation", c.Cancellation, c.OwnCancel, func(f domain.Flag) string { return f.AltCancellation })
	if problem != "" {
		return "", "", "", "", problem
	}
	return decision, impl, canc, strings.TrimSuffix(note, "; "), ""
}
