package recruit

import (
	"context"
	"crypto/rand"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"pragmalab/comparisons"
	"pragmalab/domain"
	"pragmalab/studies"
	"sort"
	"strconv"
	"strings"
	"time"

	"pragmalab/prolific"
	"pragmalab/store"
)

// Service ties Prolific's API to what pragmalab knows of a crowd study:
// who completed, who failed the checks, who was excluded
// (docs/prolific.md). Every call that approves, rejects, pays or changes
// something is recorded before it is sent and updated with the answer, so
// a crash or a retry never does it twice. Its fields are its own: the
// pages and commands reach Prolific only through its methods.
type Service struct {
	db *store.DB
	// getenv reads the token, the base URL and the webhook secret at each
	// call, so a token set while the server runs is taken up.
	getenv func(string) string
	// clock is what deliveries' timestamps are checked against.
	clock func() time.Time
	// hc carries every call, so the sync loop and the pages reuse its
	// connections.
	hc *http.Client
	// hooks counts the webhook deliveries processed per resource this
	// minute (hooks.go); the deliveries seen are kept in the database.
	hooks hookGuard
	// echo runs the LLM-echo check on the participants (SetLLMEcho).
	echo studies.LLMEchoFunc
}

// New builds the Prolific use cases over db, with a client from the
// environment (getenv reads PRAGMALAB_PROLIFIC_TOKEN and friends).
func New(db *store.DB, getenv func(string) string) *Service {
	p := &Service{db: db, getenv: getenv, clock: time.Now, hc: prolific.NewHTTPClient(getenv)}
	p.echo = func(ctx context.Context, studyID int64, set domain.CrowdSettings, reps []store.CrowdParticipantReport) (string, error) {
		return comparisons.AssessLLMEcho(ctx, db, studyID, set, reps)
	}
	return p
}

// SetLLMEcho has the review and the exports run the LLM-echo check with
// echo: the server and the CLI give the comparisons.Service's, whose
// outcome is kept (comparisons.Service.LLMEcho); without it each review runs the
// check afresh.
func (p *Service) SetLLMEcho(echo studies.LLMEchoFunc) { p.echo = echo }

// SetClock sets the clock webhook timestamps are checked against (tests).
func (p *Service) SetClock(now func() time.Time) { p.clock = now }

// client is Prolific's API client, or why there is none (no token, or a
// bad base URL).
func (p *Service) client() (*prolific.Client, error) {
	return prolific.New(p.getenv, p.hc)
}

// Connection is how pragmalab reaches Prolific: whether a usable token is
// set, the API's base URL in use, and what is wrong with the
// configuration other than a missing token (a bad base URL).
type Connection struct {
	Connected bool
	APIBase   string
	Problem   string
}

// Connection reads the token and base URL once and says how Prolific is
// reached.
func (p *Service) Connection() Connection {
	c, err := p.client()
	switch {
	case err == nil:
		return Connection{Connected: true, APIBase: c.BaseURL()}
	case errors.Is(err, prolific.ErrNoToken):
		return Connection{}
	}
	return Connection{Problem: err.Error()}
}

// crowdPlaces is what a crowd study holds here: its record, its
// settings and its number of batches.
type crowdPlaces struct {
	study   *domain.Study
	set     domain.CrowdSettings
	batches int
}

// places is how many participants the batches take: batches × quota.
func (c crowdPlaces) places() int { return c.batches * c.set.Quota }

// crowdPlaces reads a crowd study's settings and batches.
func (p *Service) crowdPlaces(ctx context.Context, studyID int64) (crowdPlaces, error) {
	st, set, err := p.db.CrowdStudy(ctx, studyID)
	if err != nil {
		return crowdPlaces{}, err
	}
	prog, err := p.db.CrowdProgress(ctx, studyID, set)
	if err != nil {
		return crowdPlaces{}, err
	}
	return crowdPlaces{study: st, set: set, batches: len(prog)}, nil
}

// linked is the one preamble of every call about a linked study: the
// client (or why there is none) and the study's link.
func (p *Service) linked(ctx context.Context, studyID int64) (*prolific.Client, *domain.ProlificLink, error) {
	api, err := p.api()
	if err != nil {
		return nil, nil, err
	}
	link, err := p.db.ProlificLink(ctx, studyID)
	if err != nil {
		return nil, nil, err
	}
	return api, link, nil
}

// linkedStudy is linked with the study as Prolific has it now.
func (p *Service) linkedStudy(ctx context.Context, studyID int64) (*prolific.Client, *domain.ProlificLink, *prolific.Study, error) {
	api, link, err := p.linked(ctx, studyID)
	if err != nil {
		return nil, nil, nil, err
	}
	st, err := api.Study(ctx, link.ProlificStudyID)
	if err != nil {
		return nil, nil, nil, apiErr(err)
	}
	return api, link, st, nil
}

func (p *Service) api() (*prolific.Client, error) {
	c, err := p.client()
	if err != nil {
		return nil, domain.Errorf(domain.EINVALID, "%v", err)
	}
	return c, nil
}

// Check tests the connection: the token, and that the linked study exists.
func (p *Service) Check(ctx context.Context, studyID int64) (*prolific.Study, error) {
	_, _, st, err := p.linkedStudy(ctx, studyID)
	if err != nil {
		return nil, err
	}
	return st, p.db.SetProlificStatus(ctx, studyID, st.Status)
}

// apiErr makes an API error one the pages show as it is: what Prolific
// said is what the researcher needs to read.
func apiErr(err error) error {
	if errors.Is(err, prolific.ErrNoToken) || errors.Is(err, prolific.ErrBadToken) || errors.Is(err, prolific.ErrUnknownStudy) {
		return domain.Errorf(domain.EINVALID, "%v", err)
	}
	var ae *prolific.APIError
	if errors.As(err, &ae) && ae.Status >= 400 && ae.Status < 500 {
		return domain.Errorf(domain.EINVALID, "%v", err)
	}
	return domain.Errorf(domain.EINVALID, "Prolific could not be reached or failed: %v", err)
}

// Sync reads the linked study's submissions, stores them and frees the
// batch slot of every returned or timed-out participant at once.
func (p *Service) Sync(ctx context.Context, studyID int64) (store.SyncResult, error) {
	api, link, err := p.linked(ctx, studyID)
	if err != nil {
		return store.SyncResult{}, err
	}
	subs, err := api.Submissions(ctx, link.ProlificStudyID)
	if err != nil {
		err = apiErr(err)
		p.db.SetProlificSyncError(ctx, studyID, domain.ErrorMessage(err))
		return store.SyncResult{}, err
	}
	in := make([]store.ProlificSubmission, len(subs))
	for i, s := range subs {
		in[i] = store.ProlificSubmission{SubmissionID: s.ID, PID: s.PID(), Status: s.Status,
			StartedAt: s.StartedAt, CompletedAt: s.CompletedAt, EnteredCode: s.EnteredCode}
	}
	res, err := p.db.SaveProlificSync(ctx, studyID, in, prolific.FreesSlot)
	if err != nil {
		return res, err
	}
	return res, p.reconcile(ctx, studyID, subs)
}

// reconcile closes the approvals and rejections recorded as sent whose
// answer never came but which Prolific shows carried out.
func (p *Service) reconcile(ctx context.Context, studyID int64, subs []prolific.Submission) error {
	status := map[string]string{}
	for _, s := range subs {
		status[s.ID] = s.Status
	}
	calls, err := p.db.ProlificCalls(ctx, studyID)
	if err != nil {
		return err
	}
	for _, c := range calls {
		if c.State != domain.CallPending {
			continue
		}
		if (c.Kind == domain.CallApprove && status[c.Target] == prolific.StatusApproved) ||
			(c.Kind == domain.CallReject && status[c.Target] == prolific.StatusRejected) {
			if err := p.db.FinishProlificCall(ctx, c.ID, domain.CallDone, "carried out, as a later sync showed"); err != nil {
				return err
			}
		}
	}
	return nil
}

// ReviewRow is one person in the review: pragmalab's view beside
// Prolific's.
type ReviewRow struct {
	PID            string // as the participant arrived with it; lower-cased for those who never reached pragmalab
	Here           string // pragmalab's status, "" when the person never reached pragmalab
	SubmissionID   string
	ProlificStatus string // "" when Prolific has no submission (or no sync yet)
	Excluded       bool
	ChecksAnswered int
	ChecksFailed   int
	FailedChecks   []string // the item ids of the failed attention checks
	BonusCents     int      // already set up in earlier bonus batches
	// ScreenOut says why the person was sent back with the screen-out
	// code ("" when not): they are screened out on Prolific, never rejected.
	ScreenOut string
	// ExcludedReasons are the rules that exclude the participant from the
	// analysis; QualityOnly: excluded by data-quality flags alone (speed,
	// identical runs, hidden time), not by failed checks nor by the
	// researcher — no reason to reject on Prolific
	// (docs/studies.md#quality-rules-and-their-sources).
	ExcludedReasons []string
	QualityOnly     bool
	// Flags are the participant's integrity flags
	// (docs/studies.md#integrity-flags). FlagsOnly: excluded by the
	// researcher while the attention checks pass and flags are raised —
	// the flags are then the evidence, and they are no reason to reject on
	// Prolific (exclude, do not reject: Prolific's guidance), so the
	// review proposes no rejection.
	Flags     []string
	FlagsOnly bool
	// FlagEvidence is each flag's evidence, in Flags' order
	// (docs/prolific.md#flags-to-prolific).
	FlagEvidence []string
}

// Disagrees reports whether the two sides tell different stories: completed
// here but not submitted there, or submitted there but not completed here.
func (r ReviewRow) Disagrees() bool {
	if r.Here == "" || r.ProlificStatus == "" {
		return false
	}
	doneHere := r.Here == store.CrowdCompleted
	doneThere := r.ProlificStatus == prolific.StatusAwaitingReview || r.ProlificStatus == prolific.StatusApproved || r.ProlificStatus == prolific.StatusRejected
	return doneHere != doneThere
}

// Approvable: completed here, not excluded by the rules or the researcher,
// and awaiting review on Prolific.
func (r ReviewRow) Approvable() bool {
	return r.Here == store.CrowdCompleted && !r.Excluded && r.ProlificStatus == prolific.StatusAwaitingReview && r.SubmissionID != ""
}

// Review is the study's participants beside its Prolific submissions.
type Review struct {
	Link         *domain.ProlificLink
	Rows         []ReviewRow // pragmalab's participants, in arrival order
	NeverReached []ReviewRow // Prolific submissions without a pragmalab session
}

// Disagreements lists the rows whose statuses disagree.
func (v *Review) Disagreements() []ReviewRow {
	var out []ReviewRow
	for _, r := range v.Rows {
		if r.Disagrees() {
			out = append(out, r)
		}
	}
	return out
}

// Approvable lists the rows a bulk approval would approve.
func (v *Review) Approvable() []ReviewRow {
	var out []ReviewRow
	for _, r := range v.Rows {
		if r.Approvable() {
			out = append(out, r)
		}
	}
	return out
}

// Row returns the row of a PID (case-insensitive), or nil.
func (v *Review) Row(pid string) *ReviewRow {
	for i := range v.Rows {
		if strings.EqualFold(v.Rows[i].PID, pid) {
			return &v.Rows[i]
		}
	}
	return nil
}

// Review joins the study's participants, their check results and
// exclusions with the synced submissions (matched on PROLIFIC_PID,
// case-insensitively).
func (p *Service) Review(ctx context.Context, studyID int64) (*Review, error) {
	link, err := p.db.ProlificLink(ctx, studyID)
	if err != nil {
		return nil, err
	}
	_, set, err := p.db.CrowdStudy(ctx, studyID)
	if err != nil {
		return nil, err
	}
	return p.review(ctx, studyID, link, set)
}

// review is Review of the study's link and settings, read by the caller.
func (p *Service) review(ctx context.Context, studyID int64, link *domain.ProlificLink, set domain.CrowdSettings) (*Review, error) {
	parts, err := p.db.CrowdParticipants(ctx, studyID, set)
	if err != nil {
		return nil, err
	}
	// llm_echo is a flag like the others: never a proposed rejection alone.
	if _, err := p.echo(ctx, studyID, set, parts); err != nil {
		return nil, err
	}
	subs, err := p.db.ProlificSubmissions(ctx, studyID)
	if err != nil {
		return nil, err
	}
	failed, err := p.failedChecks(ctx, studyID, set)
	if err != nil {
		return nil, err
	}
	bonused, err := p.db.BonusedBefore(ctx, studyID)
	if err != nil {
		return nil, err
	}
	byPID := map[string]store.ProlificSubmission{}
	for _, s := range subs {
		byPID[strings.ToLower(s.PID)] = s
	}
	refused, err := p.db.ProlificScreenOuts(ctx, studyID)
	if err != nil {
		return nil, err
	}
	in := reviewInputs{set: set, byPID: byPID, failed: failed, bonused: bonused, refused: refused}
	v := &Review{Link: link}
	seen := map[string]bool{}
	for _, pr := range parts {
		key := strings.ToLower(pr.PID)
		seen[key] = true
		v.Rows = append(v.Rows, in.participantRow(pr, key))
	}
	for key, reason := range refused {
		if seen[key] {
			continue
		}
		seen[key] = true
		s := byPID[key]
		v.Rows = append(v.Rows, ReviewRow{PID: key, Here: store.CrowdScreenedOut, SubmissionID: s.SubmissionID,
			ProlificStatus: s.Status, ScreenOut: reason, BonusCents: bonused[key]})
	}
	for _, s := range subs {
		if !seen[strings.ToLower(s.PID)] {
			v.NeverReached = append(v.NeverReached, ReviewRow{PID: s.PID, SubmissionID: s.SubmissionID, ProlificStatus: s.Status, BonusCents: bonused[strings.ToLower(s.PID)]})
		}
	}
	return v, nil
}

// reviewInputs are what a review joins, keyed by lower-cased PID.
type reviewInputs struct {
	set     domain.CrowdSettings
	byPID   map[string]store.ProlificSubmission
	failed  map[string][]string
	bonused map[string]int
	refused map[string]string // the screen-outs' reasons
}

// participantRow is the review row of a participant who reached
// pragmalab (key: their lower-cased PID).
func (in reviewInputs) participantRow(pr store.CrowdParticipantReport, key string) ReviewRow {
	s := in.byPID[key]
	row := ReviewRow{
		PID: pr.PID, Here: pr.Status, SubmissionID: s.SubmissionID, ProlificStatus: s.Status,
		Excluded: pr.Excluded, ChecksAnswered: pr.ChecksAnswered, ChecksFailed: pr.ChecksFailed,
		FailedChecks: in.failed[key], BonusCents: in.bonused[key], ExcludedReasons: pr.Reasons,
		QualityOnly: pr.Excluded && pr.Override != "exclude" && pr.ChecksFailed < in.set.MaxFailedChecks,
		Flags:       domain.FlagNames(pr.Flags),
	}
	for _, f := range pr.Flags {
		row.FlagEvidence = append(row.FlagEvidence, f.Evidence)
	}
	row.FlagsOnly = pr.Excluded && pr.ChecksFailed < in.set.MaxFailedChecks && len(row.Flags) > 0
	if pr.Status == store.CrowdScreenedOut {
		row.ScreenOut = studies.ReasonTraining
	}
	if r := in.refused[key]; r != "" {
		row.ScreenOut = r
	}
	return row
}

// failedChecks lists, per lower-cased PID, the attention checks a
// completed participant failed.
func (p *Service) failedChecks(ctx context.Context, studyID int64, set domain.CrowdSettings) (map[string][]string, error) {
	rows, err := p.db.RatingRows(ctx, studyID, false)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, r := range rows {
		if r.Check != "" && !set.CheckPasses(r.Check, r.Rating) {
			k := strings.ToLower(r.PID)
			out[k] = append(out[k], r.Item)
		}
	}
	return out, nil
}

// record records a call before it is sent; request is stored as JSON.
func (p *Service) record(ctx context.Context, studyID int64, kind, key, target, actor string, request any) (*domain.ProlificCall, error) {
	b, err := json.Marshal(request)
	if err != nil {
		return nil, err
	}
	c := &domain.ProlificCall{StudyID: studyID, Kind: kind, Key: key, Target: target, Request: string(b), Actor: actor}
	if err := p.db.RecordProlificCall(ctx, c); err != nil {
		return nil, err
	}
	return c, nil
}

// finish records the answer to a sent call. A call Prolific refused with a
// 4xx did nothing and is marked failed; a call whose answer never came
// (transport error, 5xx) stays pending: it may have been carried out.
func (p *Service) finish(ctx context.Context, c *domain.ProlificCall, sendErr error, answer string) error {
	if sendErr == nil {
		return p.db.FinishProlificCall(ctx, c.ID, domain.CallDone, answer)
	}
	var ae *prolific.APIError
	if errors.As(sendErr, &ae) && ae.Status >= 400 && ae.Status < 500 || errors.Is(sendErr, prolific.ErrBadToken) {
		return p.db.FinishProlificCall(ctx, c.ID, domain.CallFailed, sendErr.Error())
	}
	return nil
}

// send makes one recorded call, records Prolific's answer, and turns an
// API error into one the pages show.
func (p *Service) send(ctx context.Context, c *domain.ProlificCall, call func() (answer string, err error)) error {
	answer, sendErr := call()
	if err := p.finish(ctx, c, sendErr, answer); err != nil {
		return err
	}
	if sendErr != nil {
		return apiErr(sendErr)
	}
	return nil
}

// jsonText is v as JSON, for the record of an answer.
func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// ApproveResult says what an approval did.
type ApproveResult struct {
	Approved []string // submission ids approved by this call
	Already  []string // approved before (recorded, or APPROVED on Prolific)
	// ScreenedOut is what the review did of the screened-out.
	ScreenedOut ScreenOutResult
}

// Approve approves, in one bulk call, the given submissions of the
// approvable participants (all of them when ids is empty). Each approval
// is recorded before the call; an approval recorded earlier whose answer
// never came is checked on Prolific first.
func (p *Service) Approve(ctx context.Context, studyID int64, actor string, ids []string) (ApproveResult, error) {
	var res ApproveResult
	api, err := p.api()
	if err != nil {
		return res, err
	}
	if _, err := p.Sync(ctx, studyID); err != nil {
		return res, err
	}
	rev, err := p.Review(ctx, studyID)
	if err != nil {
		return res, err
	}
	// The review moves the screened-out to SCREENED OUT, never rejected.
	if res.ScreenedOut, err = p.screenOut(ctx, studyID, actor, rev); err != nil {
		return res, err
	}
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	calls, err := p.recordApprovals(ctx, studyID, actor, rev, want, &res)
	if err != nil {
		return res, err
	}
	if err := p.sendApprovals(ctx, api, calls, &res); err != nil {
		return res, err
	}
	if len(want) > 0 && len(res.Approved)+len(res.Already) < len(want) {
		return res, domain.Errorf(domain.EINVALID, "%d of the chosen submissions cannot be approved (not completed here, excluded, or not awaiting review on Prolific)", len(want)-len(res.Approved)-len(res.Already))
	}
	return res, nil
}

// recordApprovals records an approval of each approvable participant
// wanted (all without want) and returns the calls to make; an approval
// recorded and carried out before goes to res.Already.
func (p *Service) recordApprovals(ctx context.Context, studyID int64, actor string, rev *Review, want map[string]bool, res *ApproveResult) ([]*domain.ProlificCall, error) {
	var calls []*domain.ProlificCall
	for _, r := range rev.Approvable() {
		if len(want) > 0 && !want[r.SubmissionID] {
			continue
		}
		c, err := p.record(ctx, studyID, domain.CallApprove, "approve:"+r.SubmissionID, r.SubmissionID, actor, map[string]string{"pid": r.PID, "submission_id": r.SubmissionID})
		var rec *store.ErrCallRecorded
		switch {
		case errors.As(err, &rec) && rec.Call.State == domain.CallPending:
			// Recorded, maybe sent: Prolific's status (AWAITING REVIEW, as
			// the sync just read) says it was not carried out.
			c = &rec.Call
		case errors.As(err, &rec):
			res.Already = append(res.Already, r.SubmissionID)
			continue
		case err != nil:
			return calls, err
		}
		calls = append(calls, c)
	}
	return calls, nil
}

// sendApprovals makes the approval calls in bulk, 1000 at a time,
// recording each answer; the approved go to res.Approved.
func (p *Service) sendApprovals(ctx context.Context, api *prolific.Client, calls []*domain.ProlificCall, res *ApproveResult) error {
	for i := 0; i < len(calls); i += 1000 {
		chunk := calls[i:min(i+1000, len(calls))]
		subIDs := make([]string, len(chunk))
		for k, c := range chunk {
			subIDs[k] = c.Target
		}
		sendErr := api.BulkApprove(ctx, subIDs)
		for _, c := range chunk {
			if err := p.finish(ctx, c, sendErr, "bulk approve"); err != nil {
				return err
			}
		}
		if sendErr != nil {
			return apiErr(sendErr)
		}
		res.Approved = append(res.Approved, subIDs...)
	}
	return nil
}

// DefaultRejectionTemplate is the editable text sent with a rejection for
// failed attention checks. {failed}, {answered} and {checks} are filled in
// per participant.
const DefaultRejectionTemplate = "Thank you for taking part. We cannot approve this submission: you failed {failed} of the {answered} attention checks in the study ({checks}), which the study's instructions said must be answered as asked. If you think this is a mistake, please message us."

// RejectionMessage fills the template for one participant.
func RejectionMessage(template string, r ReviewRow) string {
	checks := strings.Join(r.FailedChecks, ", ")
	if checks == "" {
		checks = "none recorded"
	}
	return strings.NewReplacer("{failed}", strconv.Itoa(r.ChecksFailed), "{answered}", strconv.Itoa(r.ChecksAnswered), "{checks}", checks).Replace(template)
}

// Reject rejects one participant's submission with a category and message
// (checked before anything is recorded or sent).
func (p *Service) Reject(ctx context.Context, studyID int64, actor, pid, category, message string) error {
	api, err := p.api()
	if err != nil {
		return err
	}
	if err := domain.CheckText("the rejection message", message, 10000, domain.MultiLine); err != nil {
		return err
	}
	if err := prolific.CheckRejection(category, message); err != nil {
		return domain.Errorf(domain.EINVALID, "%v", err)
	}
	if _, err := p.Sync(ctx, studyID); err != nil {
		return err
	}
	rev, err := p.Review(ctx, studyID)
	if err != nil {
		return err
	}
	r := rev.anyRow(pid)
	if err := rejectable(r, pid); err != nil {
		return err
	}
	c, err := p.record(ctx, studyID, domain.CallReject, "reject:"+r.SubmissionID, r.SubmissionID, actor,
		map[string]string{"pid": r.PID, "submission_id": r.SubmissionID, "rejection_category": category, "message": message})
	var rec *store.ErrCallRecorded
	switch {
	case errors.As(err, &rec) && rec.Call.State == domain.CallPending:
		c = &rec.Call // recorded, and Prolific still awaits review: it was not carried out
	case err != nil:
		return err
	}
	return p.send(ctx, c, func() (string, error) { return "rejected", api.Reject(ctx, r.SubmissionID, category, message) })
}

// anyRow returns the row of a PID (case-insensitive) among those who
// reached pragmalab, else among those who never did, or nil.
func (v *Review) anyRow(pid string) *ReviewRow {
	r := v.Row(pid)
	if r == nil {
		for i := range v.NeverReached {
			if strings.EqualFold(v.NeverReached[i].PID, pid) {
				r = &v.NeverReached[i]
			}
		}
	}
	return r
}

// rejectable refuses to reject a participant without a submission, a
// screen-out, and a submission not awaiting review.
func rejectable(r *ReviewRow, pid string) error {
	switch {
	case r == nil || r.SubmissionID == "":
		return domain.Errorf(domain.ENOTFOUND, "Prolific has no submission of participant %s in the linked study", pid)
	case r.ScreenOut != "":
		return domain.Errorf(domain.ECONFLICT, "participant %s was screened out (%s): a screen-out is never rejected; it is moved to SCREENED OUT at the review", pid, r.ScreenOut)
	case r.ProlificStatus == prolific.StatusRejected:
		return domain.Errorf(domain.ECONFLICT, "participant %s is already rejected on Prolific", pid)
	case r.ProlificStatus != prolific.StatusAwaitingReview:
		return domain.Errorf(domain.ECONFLICT, "participant %s's submission is %s on Prolific: only one awaiting review can be rejected", pid, r.ProlificStatus)
	}
	return nil
}

// BonusLine is one bonus of a batch.
type BonusLine struct {
	PID         string
	AmountCents int
	// Line is the line of the CSV it came from (0 for a rule).
	Line int
	// Before is what the participant was already given in earlier batches.
	Before int
}

// BonusPlan is a bonus batch shown for confirmation before anything is
// set up.
type BonusPlan struct {
	ID         string // names the plan: confirming it twice sets it up once
	Lines      []BonusLine
	TotalCents int
	Repeats    int // lines for participants bonused before
}

// maxBonusCents bounds one bonus (£/$100), a guard against typing 30 for
// 0.30.
const maxBonusCents = 100_00

// ParseBonusCSV reads "participant id, amount" lines (amount in the study's
// currency, e.g. 0.50); a header line naming the columns is allowed.
func ParseBonusCSV(r io.Reader) ([]BonusLine, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	var out []BonusLine
	seen := map[string]int{}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			return nil, domain.Errorf(domain.EINVALID, "bonus file, line %d: %v", line, err)
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if len(rec) != 2 {
			return nil, domain.Errorf(domain.EINVALID, "bonus file, line %d: expected two fields, participant id and amount; found %d", line, len(rec))
		}
		pid, amount := strings.TrimSpace(strings.TrimPrefix(rec[0], "\uFEFF")), strings.TrimSpace(rec[1])
		if len(out) == 0 && line == 1 && !prolific.ValidID(pid) {
			if _, err := strconv.ParseFloat(amount, 64); err != nil {
				continue // a header
			}
		}
		if !prolific.ValidID(pid) {
			return nil, domain.Errorf(domain.EINVALID, "bonus file, line %d: %q is not a Prolific participant id (24 hexadecimal characters)", line, pid)
		}
		cents, err := parseAmount(amount)
		if err != nil {
			return nil, domain.Errorf(domain.EINVALID, "bonus file, line %d: %v", line, err)
		}
		key := strings.ToLower(pid)
		if l, dup := seen[key]; dup {
			return nil, domain.Errorf(domain.EINVALID, "bonus file, line %d: participant %s is already on line %d", line, pid, l)
		}
		seen[key] = line
		out = append(out, BonusLine{PID: pid, AmountCents: cents, Line: line})
	}
	if len(out) == 0 {
		return nil, domain.Errorf(domain.EINVALID, "the bonus file has no bonus lines")
	}
	return out, nil
}

// parseAmount reads an amount like 0.50 or 2 into cents.
func parseAmount(s string) (int, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("amount %q is not a number (write 0.50 for 50 pence or cents)", s)
	}
	cents := int(math.Round(v * 100))
	if math.Abs(v*100-float64(cents)) > 1e-6 {
		return 0, fmt.Errorf("amount %q has more than two decimals", s)
	}
	if cents <= 0 || cents > maxBonusCents {
		return 0, fmt.Errorf("amount %q must be more than 0 and at most %d.00", s, maxBonusCents/100)
	}
	return cents, nil
}

// FormatCents writes cents as an amount: 1234 → "12.34".
func FormatCents(c int) string { return domain.FormatCents(c) }

// BonusRule gives a fixed bonus to every completed participant the rules
// do not exclude.
func (p *Service) BonusRule(ctx context.Context, studyID int64, amount string) ([]BonusLine, error) {
	cents, err := parseAmount(amount)
	if err != nil {
		return nil, domain.Errorf(domain.EINVALID, "%v", err)
	}
	rev, err := p.Review(ctx, studyID)
	if err != nil {
		return nil, err
	}
	var out []BonusLine
	for _, r := range rev.Rows {
		if r.Here == store.CrowdCompleted && !r.Excluded {
			out = append(out, BonusLine{PID: r.PID, AmountCents: cents})
		}
	}
	if len(out) == 0 {
		return nil, domain.Errorf(domain.EINVALID, "no completed, included participant to give a bonus to")
	}
	return out, nil
}

// PlanBonuses checks a batch against the study — every participant must
// have a Prolific submission in the linked study — and marks those bonused
// before. Nothing is sent.
func (p *Service) PlanBonuses(ctx context.Context, studyID int64, lines []BonusLine) (*BonusPlan, error) {
	rev, err := p.Review(ctx, studyID)
	if err != nil {
		return nil, err
	}
	known := map[string]int{}
	for _, r := range append(append([]ReviewRow(nil), rev.Rows...), rev.NeverReached...) {
		if r.SubmissionID != "" {
			known[strings.ToLower(r.PID)] = r.BonusCents
		}
	}
	plan := &BonusPlan{ID: newPlanID()}
	for _, l := range lines {
		before, ok := known[strings.ToLower(l.PID)]
		if !ok {
			where := "participant " + l.PID
			if l.Line > 0 {
				where = fmt.Sprintf("line %d: participant %s", l.Line, l.PID)
			}
			return nil, domain.Errorf(domain.EINVALID, "%s has no submission in the linked Prolific study (sync first, or check the id)", where)
		}
		l.Before = before
		if before > 0 {
			plan.Repeats++
		}
		plan.Lines = append(plan.Lines, l)
		plan.TotalCents += l.AmountCents
	}
	sort.SliceStable(plan.Lines, func(i, k int) bool { return plan.Lines[i].Before > 0 && plan.Lines[k].Before == 0 })
	return plan, nil
}

func newPlanID() string {
	b := make([]byte, 12)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// SetUpBonuses sets a confirmed plan up on Prolific (this pays nothing)
// and returns Prolific's answer with its total, fees included, for the
// second confirmation. Confirming the same plan twice sets it up once.
func (p *Service) SetUpBonuses(ctx context.Context, studyID int64, actor string, plan *BonusPlan) (*prolific.BonusSetup, error) {
	api, link, err := p.linked(ctx, studyID)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	for _, l := range plan.Lines {
		fmt.Fprintf(&b, "%s,%s\n", l.PID, FormatCents(l.AmountCents))
	}
	body := b.String()
	c, err := p.record(ctx, studyID, domain.CallBonusSetup, "bonus_setup:"+plan.ID, plan.ID, actor,
		map[string]any{"study_id": link.ProlificStudyID, "csv_bonuses": body, "total_cents": plan.TotalCents})
	var rec *store.ErrCallRecorded
	if errors.As(err, &rec) {
		if rec.Call.State == domain.CallDone {
			var setup prolific.BonusSetup
			if json.Unmarshal([]byte(rec.Call.Response), &setup) == nil && setup.ID != "" {
				return &setup, nil
			}
		}
		return nil, domain.Errorf(domain.ECONFLICT, "this bonus batch was already sent to Prolific on %s; its answer was not recorded. Check the study's bonuses on Prolific before setting up a new batch", rec.Call.CreatedAt.Format("2 Jan 2006 15:04"))
	}
	if err != nil {
		return nil, err
	}
	lines := make([]store.ProlificBonus, len(plan.Lines))
	for i, l := range plan.Lines {
		lines[i] = store.ProlificBonus{PID: l.PID, AmountCents: l.AmountCents}
	}
	if err := p.db.SaveProlificBonuses(ctx, c.ID, lines); err != nil {
		return nil, err
	}
	var setup *prolific.BonusSetup
	err = p.send(ctx, c, func() (string, error) {
		var err error
		setup, err = api.SetUpBonuses(ctx, link.ProlificStudyID, body)
		return jsonText(setup), err
	})
	return setup, err
}

// PayBonuses pays a setup. The payment is recorded before it is sent and
// is never sent twice: when an earlier payment of this setup was recorded
// and its answer never came, nothing is sent and the researcher is told to
// check on Prolific (MarkPaymentNotSent undoes that once checked).
func (p *Service) PayBonuses(ctx context.Context, studyID int64, actor, setupID string) error {
	api, err := p.api()
	if err != nil {
		return err
	}
	calls, err := p.db.ProlificCalls(ctx, studyID)
	if err != nil {
		return err
	}
	var total string
	found := false
	for _, c := range calls {
		var s prolific.BonusSetup
		if c.Kind == domain.CallBonusSetup && c.State == domain.CallDone && json.Unmarshal([]byte(c.Response), &s) == nil && s.ID == setupID {
			found, total = true, fmt.Sprintf("%.2f", s.TotalAmount)
		}
	}
	if !found {
		return domain.Errorf(domain.ENOTFOUND, "no bonus batch %s was set up for this study", setupID)
	}
	c, err := p.record(ctx, studyID, domain.CallBonusPay, "bonus_pay:"+setupID, setupID, actor, map[string]string{"setup_id": setupID, "total": total})
	var rec *store.ErrCallRecorded
	if errors.As(err, &rec) {
		if rec.Call.State == domain.CallDone {
			return domain.Errorf(domain.ECONFLICT, "bonus batch %s was already paid on %s by %s: nothing was sent", setupID, rec.Call.UpdatedAt.Format("2 Jan 2006 15:04"), rec.Call.Actor)
		}
		return domain.Errorf(domain.ECONFLICT, "bonus batch %s was sent to Prolific for payment on %s by %s and the answer was never recorded: it may have been paid. Nothing was sent again. Check the bonus payments on Prolific; if they were not made, mark the payment as not sent and pay again", setupID, rec.Call.CreatedAt.Format("2 Jan 2006 15:04"), rec.Call.Actor)
	}
	if err != nil {
		return err
	}
	return p.send(ctx, c, func() (string, error) { return "paid", api.PayBonuses(ctx, setupID) })
}

// MarkPaymentNotSent records the researcher's word, after checking on
// Prolific, that a payment whose answer was never recorded was not made,
// so that it may be paid again.
func (p *Service) MarkPaymentNotSent(ctx context.Context, studyID int64, actor, setupID string) error {
	c, err := p.db.ProlificCallByKey(ctx, "bonus_pay:"+setupID)
	if err != nil {
		return err
	}
	if c.StudyID != studyID || c.State != domain.CallPending {
		return domain.Errorf(domain.ECONFLICT, "payment %s is %s: only a payment whose answer never came can be marked as not sent", setupID, c.State)
	}
	return p.db.FinishProlificCall(ctx, c.ID, domain.CallFailed, "marked as not sent by "+actor+" after checking on Prolific")
}

// DraftInput is what the researcher enters to create the study on Prolific.
type DraftInput struct {
	Name, Description string
	StudyURL          string // pragmalab's entry URL; the placeholders are added
	RewardCents       int
	Minutes           int
}

// CreateDraft creates the study on Prolific as a draft — the study URL
// with Prolific's placeholders, the completion and screen-out codes, places
// = batches × quota — and links the crowd study to it.
func (p *Service) CreateDraft(ctx context.Context, studyID int64, actor string, in DraftInput) (*prolific.Study, error) {
	api, err := p.api()
	if err != nil {
		return nil, err
	}
	cp, err := p.crowdPlaces(ctx, studyID)
	if err != nil {
		return nil, err
	}
	s, set, batches := cp.study, cp.set, cp.batches
	if err := checkDraft(&in, s.Name, set, batches); err != nil {
		return nil, err
	}
	d := draftStudy(studyID, in, set, cp.places())
	if err := p.withScreening(ctx, studyID, &d); err != nil {
		return nil, err
	}
	c, err := p.record(ctx, studyID, domain.CallCreateStudy, "create_study:"+strconv.FormatInt(studyID, 10)+":"+newPlanID(), in.Name, actor, d)
	if err != nil {
		return nil, err
	}
	var st *prolific.Study
	if err := p.send(ctx, c, func() (string, error) {
		var err error
		st, err = api.CreateDraftStudy(ctx, d)
		return jsonText(st), err
	}); err != nil {
		return nil, err
	}
	if err := p.db.LinkProlific(ctx, studyID, st.ID); err != nil {
		return st, err
	}
	return st, nil
}

// checkDraft checks what a draft needs — batches, a completion code, a
// reward, a time and a study URL — and its texts; the name defaults to
// the study's.
func checkDraft(in *DraftInput, studyName string, set domain.CrowdSettings, batches int) error {
	switch {
	case batches == 0:
		return domain.Errorf(domain.EINVALID, "build the batches first: the number of places is batches × quota")
	case set.CompletionCode == "":
		return domain.Errorf(domain.EINVALID, "set the completion code first: participants return to Prolific with it")
	case in.RewardCents <= 0 || in.Minutes <= 0:
		return domain.Errorf(domain.EINVALID, "the reward (in pence or cents) and the estimated time (in minutes) must be more than 0")
	case !strings.HasPrefix(in.StudyURL, "https://") && !strings.HasPrefix(in.StudyURL, "http://"):
		return domain.Errorf(domain.EINVALID, "the study URL must be the address participants open (http or https)")
	}
	if strings.TrimSpace(in.Name) == "" {
		in.Name = studyName
	}
	if err := domain.CheckText("the Prolific study's name", in.Name, 200, domain.OneLine); err != nil {
		return err
	}
	return domain.CheckText("the description", in.Description, 10000, domain.MultiLine)
}

// draftStudy is the draft sent to Prolific: the study URL with Prolific's
// placeholders, the completion and screen-out codes, and the places.
func draftStudy(studyID int64, in DraftInput, set domain.CrowdSettings, places int) prolific.DraftStudy {
	sep := "?"
	if strings.Contains(in.StudyURL, "?") {
		sep = "&"
	}
	d := prolific.DraftStudy{
		Name: in.Name, InternalName: fmt.Sprintf("pragmalab study %d", studyID), Description: in.Description,
		ExternalStudyURL:        in.StudyURL + sep + "PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}",
		ProlificIDOption:        "url_parameters",
		CompletionCodes:         []prolific.CompletionCode{{Code: set.CompletionCode, CodeType: "COMPLETED", Actions: []prolific.CodeAction{{Action: "MANUALLY_REVIEW"}}}},
		TotalAvailablePlaces:    places,
		EstimatedCompletionTime: in.Minutes, Reward: in.RewardCents,
		DeviceCompatibility: []string{"desktop", "tablet", "mobile"},
	}
	if set.ScreenOutCode != "" {
		d.CompletionCodes = append(d.CompletionCodes, prolific.CompletionCode{Code: set.ScreenOutCode, CodeType: "FIXED_SCREENOUT", Actions: []prolific.CodeAction{{Action: "FIXED_SCREENOUT_PAYMENT"}}})
	}
	return d
}

// AddToGroup adds every participant who reached the study (consented or
// not) to a Prolific participant group, so other studies can exclude them.
func (p *Service) AddToGroup(ctx context.Context, studyID int64, actor, groupID string) (int, error) {
	api, err := p.api()
	if err != nil {
		return 0, err
	}
	if !prolific.ValidID(groupID) {
		return 0, domain.Errorf(domain.EINVALID, "the participant group id must be 24 hexadecimal characters")
	}
	_, set, err := p.db.CrowdStudy(ctx, studyID)
	if err != nil {
		return 0, err
	}
	parts, err := p.db.CrowdParticipants(ctx, studyID, set)
	if err != nil {
		return 0, err
	}
	var pids []string
	for _, pr := range parts {
		if prolific.ValidID(pr.PID) {
			pids = append(pids, strings.ToLower(pr.PID))
		}
	}
	if len(pids) == 0 {
		return 0, domain.Errorf(domain.EINVALID, "no participant with a Prolific id has reached the study yet")
	}
	c, err := p.record(ctx, studyID, domain.CallGroupAdd, "group_add:"+groupID+":"+newPlanID(), groupID, actor, map[string]any{"group_id": groupID, "participant_ids": pids})
	if err != nil {
		return 0, err
	}
	return len(pids), p.send(ctx, c, func() (string, error) {
		return fmt.Sprintf("%d participants added", len(pids)), api.AddToParticipantGroup(ctx, groupID, pids)
	})
}

// SyncLoop syncs every linked study that active accepts (a study being run)
// and that no webhook delivery has reached for HookQuiet, every interval
// until ctx ends; failures are recorded on the link and
// logged, and the loop goes on.
func (p *Service) SyncLoop(ctx context.Context, log *slog.Logger, every time.Duration, active func(context.Context, int64) bool) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		links, err := p.db.ProlificLinks(ctx)
		if err != nil {
			log.Warn("prolific sync", "err", err)
			continue
		}
		for _, l := range links {
			if ctx.Err() != nil {
				return
			}
			if !active(ctx, l.StudyID) || HookFresh(l, p.now()) {
				continue
			}
			if res, err := p.Sync(ctx, l.StudyID); err != nil {
				log.Warn("prolific sync", "study", l.StudyID, "err", domain.ErrorMessage(err))
			} else if len(res.Freed) > 0 {
				log.Info("prolific sync freed slots", "study", l.StudyID, "freed", len(res.Freed))
			}
		}
	}
}

// ProlificStatus is what a crowd study's Prolific page shows of it.
type ProlificStatus struct {
	// Places is what the study's batches hold: batches × quota.
	Places int
	// Link is the study's Prolific study, nil when it is not linked.
	Link *domain.ProlificLink
	// Review is the review of the linked study's submissions (nil unlinked).
	Review *Review
	// Calls are the calls recorded, newest first.
	Calls []domain.ProlificCall
}

// Status returns what the Prolific page shows of a crowd study.
func (p *Service) Status(ctx context.Context, studyID int64) (*ProlificStatus, error) {
	cp, err := p.crowdPlaces(ctx, studyID)
	if err != nil {
		return nil, err
	}
	set := cp.set
	st := &ProlificStatus{Places: cp.places()}
	if link, err := p.db.ProlificLink(ctx, studyID); err == nil {
		st.Link = link
		if st.Review, err = p.review(ctx, studyID, link, set); err != nil {
			return nil, err
		}
	} else if domain.ErrorCode(err) != domain.ENOTFOUND {
		return nil, err
	}
	if st.Calls, err = p.db.ProlificCalls(ctx, studyID); err != nil {
		return nil, err
	}
	return st, nil
}

// Link links a crowd study to its Prolific study (by Prolific's id).
func (p *Service) Link(ctx context.Context, studyID int64, prolificStudyID string) error {
	return p.db.LinkProlific(ctx, studyID, prolificStudyID)
}
