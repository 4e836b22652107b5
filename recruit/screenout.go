package recruit

import (
	"context"
	"errors"
	"pragmalab/domain"

	"pragmalab/prolific"
	"pragmalab/store"
)

// Screen-outs paid the Prolific way (docs/prolific.md#screen-outs): a
// participant sent back with the screen-out code is moved to SCREENED OUT
// at the next review when the study pays screen-outs, and never rejected.

// ScreenOutResult says what a review did of the screened-out.
type ScreenOutResult struct {
	Due     int      // screened out here, with a submission awaiting review on Prolific
	Moved   []string // submission ids moved to SCREENED OUT by this review
	NotPaid bool     // the study does not use Prolific's screen-out with payment: nothing sent
	Code    string   // the code used
}

// ScreenOut syncs, then moves every screened-out participant's
// submission to SCREENED OUT (see screenOut).
func (p *Service) ScreenOut(ctx context.Context, studyID int64, actor string) (ScreenOutResult, error) {
	if _, err := p.api(); err != nil {
		return ScreenOutResult{}, err
	}
	if _, err := p.Sync(ctx, studyID); err != nil {
		return ScreenOutResult{}, err
	}
	rev, err := p.Review(ctx, studyID)
	if err != nil {
		return ScreenOutResult{}, err
	}
	return p.screenOut(ctx, studyID, actor, rev)
}

// screenOut moves the submissions of the screened-out that await review to
// SCREENED OUT with the study's screen-out code, each recorded before it
// is sent ("screen_out:<submission>": never recorded twice; a recorded
// call whose answer never came is sent again, which Prolific ignores if
// it was carried out). Nothing is sent when no one is due, or when the
// study on Prolific has no FIXED_SCREENOUT code equal to pragmalab's
// screen-out code (NotPaid: the researcher decides on Prolific).
func (p *Service) screenOut(ctx context.Context, studyID int64, actor string, rev *Review) (ScreenOutResult, error) {
	var res ScreenOutResult
	due := rev.screenOutsDue()
	res.Due = len(due)
	if len(due) == 0 {
		return res, nil
	}
	api, err := p.api()
	if err != nil {
		return res, err
	}
	_, set, err := p.db.CrowdStudy(ctx, studyID)
	if err != nil {
		return res, err
	}
	st, err := api.Study(ctx, rev.Link.ProlificStudyID)
	if err != nil {
		return res, apiErr(err)
	}
	res.Code = set.ScreenOutCode
	if !st.PaysScreenOut(set.ScreenOutCode) {
		res.NotPaid = true
		return res, nil
	}
	for _, r := range due {
		moved, err := p.screenOutOne(ctx, api, studyID, actor, r, set.ScreenOutCode)
		if err != nil {
			return res, err
		}
		if moved {
			res.Moved = append(res.Moved, r.SubmissionID)
		}
	}
	return res, nil
}

// screenOutsDue are the screened-out whose submission awaits review (or
// is still active) on Prolific.
func (v *Review) screenOutsDue() []ReviewRow {
	var due []ReviewRow
	for _, r := range v.Rows {
		if r.ScreenOut != "" && r.SubmissionID != "" && (r.ProlificStatus == prolific.StatusAwaitingReview || r.ProlificStatus == prolific.StatusActive) {
			due = append(due, r)
		}
	}
	return due
}

// screenOutOne records and sends the screen-out of r's submission with
// code; moved is false when it was recorded and carried out before.
func (p *Service) screenOutOne(ctx context.Context, api *prolific.Client, studyID int64, actor string, r ReviewRow, code string) (moved bool, err error) {
	c, err := p.record(ctx, studyID, domain.CallScreenOut, "screen_out:"+r.SubmissionID, r.SubmissionID, actor,
		map[string]string{"pid": r.PID, "submission_id": r.SubmissionID, "action": "COMPLETE", "completion_code": code, "reason": r.ScreenOut})
	var rec *store.ErrCallRecorded
	switch {
	case errors.As(err, &rec) && rec.Call.State == domain.CallPending:
		c = &rec.Call
	case errors.As(err, &rec):
		return false, nil
	case err != nil:
		return false, err
	}
	if err := p.send(ctx, c, func() (string, error) { return "screened out", api.ScreenOut(ctx, r.SubmissionID, code) }); err != nil {
		return false, err
	}
	return true, nil
}

// ScreenedOut lists the review's screened-out rows.
func (v *Review) ScreenedOut() []ReviewRow {
	var out []ReviewRow
	for _, r := range v.Rows {
		if r.ScreenOut != "" {
			out = append(out, r)
		}
	}
	return out
}
