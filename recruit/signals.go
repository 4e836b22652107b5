package recruit

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"

	"pragmalab/csvsafe"
	"pragmalab/domain"
	"pragmalab/store"
)

// Flags to Prolific (docs/prolific.md#flags-to-prolific): the integrity
// flags of the participants with a submission in the linked study, sent as
// a CSV file through Prolific's submission feedback upload — evidence for
// Prolific's own quality work, never a rejection: nothing here changes a
// submission's status.

// SignalsDecision is the file's decision column: what pragmalab did to the
// submission on account of the flags.
const SignalsDecision = "not rejected: evidence only"

// signalsHeader is the uploaded file's header.
var signalsHeader = []string{"submission_id", "participant_id", "study_id", "flags", "evidence", "decision"}

// SignalsPlan is what an upload of the flags would send.
type SignalsPlan struct {
	ProlificStudyID string
	WorkspaceID     string // "" until Send reads it
	Rows            []ReviewRow
	Filename        string
	CSV             []byte
	// Key is the record of calls' key: the same flags are sent once.
	Key string
}

// PlanSignals lists the flagged participants who have a submission in the
// linked study (as the last sync read them) and the file that would be
// uploaded. Nothing is sent.
func (p *Service) PlanSignals(ctx context.Context, studyID int64) (*SignalsPlan, error) {
	rev, err := p.Review(ctx, studyID)
	if err != nil {
		return nil, err
	}
	if rev.Link == nil || rev.Link.ProlificStudyID == "" {
		return nil, domain.Errorf(domain.EINVALID, "the study is not linked to a Prolific study: link it first")
	}
	plan := &SignalsPlan{ProlificStudyID: rev.Link.ProlificStudyID}
	var buf bytes.Buffer
	w := csvsafe.NewWriter(&buf)
	w.Write(signalsHeader)
	for _, r := range rev.Rows {
		if len(r.Flags) == 0 || r.SubmissionID == "" {
			continue
		}
		plan.Rows = append(plan.Rows, r)
		ev := make([]string, len(r.Flags))
		for i, f := range r.Flags {
			ev[i] = f
			if i < len(r.FlagEvidence) && r.FlagEvidence[i] != "" {
				ev[i] = f + ": " + r.FlagEvidence[i]
			}
		}
		w.Write([]string{r.SubmissionID, strings.ToLower(r.PID), plan.ProlificStudyID, strings.Join(r.Flags, ";"), strings.Join(ev, "; "), SignalsDecision})
	}
	w.Flush()
	if len(plan.Rows) == 0 {
		return nil, domain.Errorf(domain.EINVALID, "no participant with a submission in the linked Prolific study carries integrity flags: nothing to send (sync first if submissions are missing)")
	}
	plan.CSV = buf.Bytes()
	sum := sha256.Sum256(plan.CSV)
	h := hex.EncodeToString(sum[:])
	plan.Filename = "pragmalab-flags-" + plan.ProlificStudyID + "-" + h[:12] + ".csv"
	plan.Key = "signals:" + plan.ProlificStudyID + ":" + h[:32]
	return plan, nil
}

// SendSignals uploads the flags: it asks Prolific for an upload address
// (GET …/submissions/signals/upload-url/{filename}), records the call, and
// PUTs the file there. The same flags are sent once: a file recorded
// before — answered or not — is never sent again (an upload cannot be read
// back, so one whose answer never came is not repeated). New flags make a
// new file, sent on its own.
func (p *Service) SendSignals(ctx context.Context, studyID int64, actor string) (*SignalsPlan, error) {
	api, err := p.api()
	if err != nil {
		return nil, err
	}
	plan, err := p.PlanSignals(ctx, studyID)
	if err != nil {
		return nil, err
	}
	pids := make([]string, len(plan.Rows))
	for i, r := range plan.Rows {
		pids[i] = strings.ToLower(r.PID)
	}
	if plan.WorkspaceID, err = api.Workspace(ctx, plan.ProlificStudyID); err != nil {
		return nil, apiErr(err)
	}
	c, err := p.record(ctx, studyID, domain.CallSignals, plan.Key, plan.ProlificStudyID, actor,
		map[string]any{"filename": plan.Filename, "workspace_id": plan.WorkspaceID, "participants": pids, "file": string(plan.CSV)})
	var rec *store.ErrCallRecorded
	if errors.As(err, &rec) {
		if rec.Call.State == domain.CallPending {
			return nil, domain.Errorf(domain.ECONFLICT, "these flags were sent to Prolific on %s by %s and the answer never came: nothing was sent again (an upload cannot be read back; new flags make a new file)", rec.Call.CreatedAt.Format("2 Jan 2006 15:04"), rec.Call.Actor)
		}
		return nil, domain.Errorf(domain.ECONFLICT, "these flags were already sent to Prolific on %s by %s: nothing was sent", rec.Call.UpdatedAt.Format("2 Jan 2006 15:04"), rec.Call.Actor)
	}
	if err != nil {
		return nil, err
	}
	u, err := api.SignalsUploadURL(ctx, plan.WorkspaceID, plan.Filename)
	if err != nil {
		// No address, so no file went anywhere: the call failed and may
		// be made again.
		if ferr := p.db.FinishProlificCall(ctx, c.ID, domain.CallFailed, "no upload address: "+err.Error()); ferr != nil {
			return nil, ferr
		}
		return nil, apiErr(err)
	}
	return plan, p.send(ctx, c, func() (string, error) {
		err := api.UploadSignals(ctx, u, "text/csv", plan.CSV)
		return jsonText(map[string]any{"uploaded_to": u.Where(), "expires_at": u.ExpiresAt, "rows": len(plan.Rows)}), err
	})
}
