package recruit

import (
	"context"
	"errors"
	"strings"

	"pragmalab/domain"
	"pragmalab/prolific"
	"pragmalab/store"
)

// Asking a participant to return their submission instead of rejecting it
// (docs/prolific.md#request-return): POST
// /api/v1/submissions/{id}/request-return/, recorded once per submission.

// maxReturnReason bounds the reason a return request sends.
const maxReturnReason = 2000

// ReturnPlan is what a return request would send.
type ReturnPlan struct {
	PID, SubmissionID, Status, Reason string
}

// PlanReturn checks a return request against the study — the participant
// must have a submission that is active or awaiting review — and returns
// what would be sent. Nothing is sent.
func (p *Service) PlanReturn(ctx context.Context, studyID int64, pid, reason string) (*ReturnPlan, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return nil, domain.Errorf(domain.EINVALID, "say why the participant should return the study (the reason is sent to them)")
	}
	if err := domain.CheckText("the reason", reason, maxReturnReason, domain.MultiLine); err != nil {
		return nil, err
	}
	rev, err := p.Review(ctx, studyID)
	if err != nil {
		return nil, err
	}
	row := rev.Row(pid)
	if row == nil {
		for i := range rev.NeverReached {
			if strings.EqualFold(rev.NeverReached[i].PID, pid) {
				row = &rev.NeverReached[i]
			}
		}
	}
	if row == nil || row.SubmissionID == "" {
		return nil, domain.Errorf(domain.EINVALID, "participant %s has no submission in the linked Prolific study (sync first, or check the id)", pid)
	}
	if row.ProlificStatus != prolific.StatusActive && row.ProlificStatus != prolific.StatusAwaitingReview {
		return nil, domain.Errorf(domain.EINVALID, "participant %s's submission is %s: only an active submission or one awaiting review can be asked to return", pid, row.ProlificStatus)
	}
	return &ReturnPlan{PID: row.PID, SubmissionID: row.SubmissionID, Status: row.ProlificStatus, Reason: reason}, nil
}

// RequestReturn asks a participant to return their submission. The request
// is recorded before it is sent and is sent at most once per submission: a
// request already recorded — answered or not — is never sent again, since
// Prolific messages the participant each time.
func (p *Service) RequestReturn(ctx context.Context, studyID int64, actor, pid, reason string) (*ReturnPlan, error) {
	api, err := p.api()
	if err != nil {
		return nil, err
	}
	plan, err := p.PlanReturn(ctx, studyID, pid, reason)
	if err != nil {
		return nil, err
	}
	c, err := p.record(ctx, studyID, domain.CallReturn, "return:"+plan.SubmissionID, plan.SubmissionID, actor,
		map[string]any{"pid": plan.PID, "submission_id": plan.SubmissionID, "request_return_reasons": []string{plan.Reason}})
	var rec *store.ErrCallRecorded
	if errors.As(err, &rec) {
		if rec.Call.State == domain.CallPending {
			return nil, domain.Errorf(domain.ECONFLICT, "a return request to %s was sent on %s by %s and its answer never came: nothing was sent again. Check the submission on Prolific", plan.PID, rec.Call.CreatedAt.Format("2 Jan 2006 15:04"), rec.Call.Actor)
		}
		if rec.Call.State == domain.CallDone {
			return nil, domain.Errorf(domain.ECONFLICT, "%s was already asked to return on %s by %s: nothing was sent", plan.PID, rec.Call.UpdatedAt.Format("2 Jan 2006 15:04"), rec.Call.Actor)
		}
	}
	if err != nil {
		return nil, err
	}
	return plan, p.send(ctx, c, func() (string, error) {
		ans, err := api.RequestReturn(ctx, plan.SubmissionID, []string{plan.Reason})
		return jsonText(ans), err
	})
}
