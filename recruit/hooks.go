package recruit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"pragmalab/domain"
	"strconv"
	"strings"
	"sync"
	"time"

	"pragmalab/prolific"
	"pragmalab/store"
)

// Prolific's webhooks (docs/prolific.md#webhooks): a delivery is a hint.
// It is verified before anything else, then what it names is read back
// from the API and only Prolific's answer is applied, once per event id.

// HookQuiet is how long after the last delivery about a study polling
// stays off: the minute's sync is the fallback while none has come for
// this long.
const HookQuiet = 10 * time.Minute

// HookFresh reports whether a delivery about the linked study arrived
// within HookQuiet of now, so it needs no polling.
func HookFresh(l domain.ProlificLink, now time.Time) bool {
	return !l.HookAt.IsZero() && now.Sub(l.HookAt) < HookQuiet
}

// The audit log's words for a delivery.
const (
	HookActor          = "Prolific (webhook)"
	ActionProlificHook = "Prolific webhook"
)

// HookDelivery is one webhook request as it arrived.
type HookDelivery struct {
	EventID, Timestamp, Signature string
	Body                          []byte
}

// HookError is a delivery refused: Status is the HTTP status to answer
// (401 for a bad signature or stale timestamp, 400 for a malformed
// delivery, 503 when Prolific could not be asked, so that it delivers
// again).
type HookError struct {
	Status int
	Msg    string
}

func (e *HookError) Error() string { return e.Msg }

// HookResult says what a delivery did.
type HookResult struct {
	Duplicate bool   // the event id was processed before: nothing done
	StudyID   int64  // the pragmalab study concerned (0: none linked)
	Outcome   string // what was applied
	Freed     bool   // a place was freed
}

// hookPayload is the body of a delivery (Prolific's documented fields).
type hookPayload struct {
	ResourceID    string `json:"resource_id"`
	EventType     string `json:"event_type"`
	Status        string `json:"status"`
	ParticipantID string `json:"participant_id"`
}

// ReceiveHook verifies and applies one delivery.
func (p *Service) ReceiveHook(ctx context.Context, d HookDelivery) (res HookResult, err error) {
	if err := prolific.VerifyWebhook(p.hookSecret(), d.Timestamp, d.Signature, d.Body, p.now()); err != nil {
		return res, &HookError{Status: http.StatusUnauthorized, Msg: err.Error()}
	}
	id := strings.TrimSpace(d.EventID)
	if id == "" || len(id) > 200 {
		return res, &HookError{Status: http.StatusBadRequest, Msg: "the delivery has no X-Event-ID"}
	}
	var pl hookPayload
	if err := json.Unmarshal(d.Body, &pl); err != nil || pl.EventType == "" {
		return res, &HookError{Status: http.StatusBadRequest, Msg: "the delivery's body is not a Prolific event (JSON with event_type and resource_id)"}
	}
	// X-Event-ID is not signed: a captured delivery replayed under new
	// ids is known by what the signature covers, the timestamp and the
	// body (with its resource id), remembered in the database while the
	// signature is accepted, across restarts.
	seen := hookSeen(d.Timestamp, d.Body, p.now())
	if dup, err := p.db.ProlificDeliverySeen(ctx, seen.Digest); err != nil {
		return res, err
	} else if dup {
		return HookResult{Duplicate: true, Outcome: "already processed"}, nil
	}
	if done, err := p.db.ProlificEventSeen(ctx, id); err != nil {
		return res, err
	} else if done {
		return HookResult{Duplicate: true, Outcome: "already processed"}, nil
	}
	if !p.hooks.allow(pl.ResourceID, p.now()) {
		return res, &HookError{Status: http.StatusTooManyRequests, Msg: fmt.Sprintf("more than %d deliveries about %s this minute; deliver it again later", HookPerMinute, pl.ResourceID)}
	}
	ev := domain.ProlificEvent{EventID: id, EventType: pl.EventType, ResourceID: pl.ResourceID}
	var ch store.ProlificEventChange
	unavailable := func(err error) error {
		return &HookError{Status: http.StatusServiceUnavailable, Msg: "could not read it back from Prolific: " + domain.ErrorMessage(apiErr(err))}
	}
	switch pl.EventType {
	case prolific.EventSubmissionStatus:
		api, err := p.client()
		if err != nil {
			return res, unavailable(err)
		}
		sub, err := api.Submission(ctx, pl.ResourceID)
		if err != nil {
			return res, unavailable(err)
		}
		link, err := p.db.ProlificLinkOf(ctx, sub.StudyID)
		if err != nil && domain.ErrorCode(err) != domain.ENOTFOUND {
			return res, err
		}
		if link == nil {
			ev.Outcome = "submission " + sub.ID + " of a study not linked here"
			break
		}
		ev.StudyID = link.StudyID
		ev.Outcome = fmt.Sprintf("submission %s of %s is %s", sub.ID, sub.PID(), sub.Status)
		ch.Submission = &store.ProlificSubmission{SubmissionID: sub.ID, PID: sub.PID(), Status: sub.Status,
			StartedAt: sub.StartedAt, CompletedAt: sub.CompletedAt, EnteredCode: sub.EnteredCode}
	case prolific.EventStudyStatus:
		api, err := p.client()
		if err != nil {
			return res, unavailable(err)
		}
		link, err := p.db.ProlificLinkOf(ctx, pl.ResourceID)
		if err != nil && domain.ErrorCode(err) != domain.ENOTFOUND {
			return res, err
		}
		if link == nil {
			ev.Outcome = "study " + pl.ResourceID + " is not linked here"
			break
		}
		st, err := api.Study(ctx, link.ProlificStudyID)
		if err != nil {
			return res, unavailable(err)
		}
		ev.StudyID, ch.StudyStatus = link.StudyID, st.Status
		ev.Outcome = "study is " + st.Status + " on Prolific"
	default:
		ev.Outcome = "event type " + pl.EventType + " is not used"
	}
	applied, freed, err := p.db.ApplyProlificEvent(ctx, ev, seen, ch, prolific.FreesSlot)
	if err != nil {
		return res, err
	}
	if !applied {
		return HookResult{Duplicate: true, Outcome: "already processed"}, nil
	}
	if ev.StudyID > 0 {
		detail := ev.Outcome
		if freed {
			detail += "; place freed"
		}
		if err := p.db.Audit(ctx, HookActor, ev.StudyID, ActionProlificHook, detail); err != nil {
			return res, err
		}
	}
	return HookResult{StudyID: ev.StudyID, Outcome: ev.Outcome, Freed: freed}, nil
}

// HookPerMinute bounds the deliveries about one resource (a study or a
// submission) processed in a minute: each costs a read of Prolific's API,
// an event row and an audit entry. Prolific delivers a refused one again.
const HookPerMinute = 30

// hookSeen is a verified delivery as the store remembers it: the digest
// of its timestamp and body, kept until its timestamp is out of the
// window a signature is accepted in (prolific.VerifyWebhook).
func hookSeen(ts string, body []byte, now time.Time) store.HookSeen {
	h := sha256.New()
	h.Write([]byte(ts))
	h.Write([]byte{0})
	h.Write(body)
	sec, _ := strconv.ParseInt(strings.TrimSpace(ts), 10, 64) // verified
	return store.HookSeen{Digest: hex.EncodeToString(h.Sum(nil)), Expires: time.Unix(sec, 0).Add(prolific.WebhookWindow), Now: now}
}

// hookGuard counts, in memory, the deliveries processed per resource in
// the current minute.
type hookGuard struct {
	mu   sync.Mutex
	work map[string]*hookWork
}

type hookWork struct {
	minute int64
	n      int
}

// allow counts one delivery about resource in now's minute, or refuses it
// past HookPerMinute.
func (g *hookGuard) allow(resource string, now time.Time) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.work == nil {
		g.work = map[string]*hookWork{}
	}
	m := now.Unix() / 60
	for r, w := range g.work {
		if w.minute != m {
			delete(g.work, r)
		}
	}
	w := g.work[resource]
	if w == nil {
		w = &hookWork{minute: m}
		g.work[resource] = w
	}
	if w.n >= HookPerMinute {
		return false
	}
	w.n++
	return true
}

// HookView is what the page shows of the webhooks.
type HookView struct {
	SecretSet     bool // PRAGMALAB_PROLIFIC_WEBHOOK_SECRET is set (never shown)
	Subscriptions []domain.HookSubscription
	Last          *domain.ProlificEvent // the last delivery about the study
	Polling       bool                  // the minute's sync runs (no delivery for HookQuiet)
}

// Hooks returns the webhooks' state for a study.
func (p *Service) Hooks(ctx context.Context, studyID int64) (*HookView, error) {
	v := &HookView{SecretSet: p.hookSecret() != "", Polling: true}
	var err error
	if v.Subscriptions, err = p.db.HookSubscriptions(ctx, studyID); err != nil {
		return nil, err
	}
	if v.Last, err = p.db.LastProlificEvent(ctx, studyID); err != nil {
		return nil, err
	}
	if link, err := p.db.ProlificLink(ctx, studyID); err == nil {
		v.Polling = !HookFresh(*link, p.now())
	}
	return v, nil
}

func (p *Service) now() time.Time {
	if p.clock != nil {
		return p.clock()
	}
	return time.Now()
}

// hookSecret is the workspace's webhook secret, from
// PRAGMALAB_PROLIFIC_WEBHOOK_SECRET ("" when webhooks are not set up).
func (p *Service) hookSecret() string { return p.getenv(prolific.WebhookSecretEnv) }

// HookList is the workspace's subscriptions on Prolific.
type HookList struct {
	WorkspaceID   string
	Subscriptions []prolific.Subscription
}

// ListHooks reads the subscriptions of the linked study's workspace.
func (p *Service) ListHooks(ctx context.Context, studyID int64) (*HookList, error) {
	api, link, err := p.linked(ctx, studyID)
	if err != nil {
		return nil, err
	}
	ws, err := api.Workspace(ctx, link.ProlificStudyID)
	if err != nil {
		return nil, apiErr(err)
	}
	subs, err := api.Subscriptions(ctx, ws)
	if err != nil {
		return nil, apiErr(err)
	}
	return &HookList{WorkspaceID: ws, Subscriptions: subs}, nil
}

// HookTarget is the delivery address of a server reachable at base.
func HookTarget(base string) string { return strings.TrimRight(base, "/") + "/webhooks/prolific" }

// Subscribe subscribes the server at base (https) to the events pragmalab
// uses, skipping those already subscribed to that address: repeating it
// creates nothing twice.
func (p *Service) Subscribe(ctx context.Context, studyID int64, actor, base string) ([]prolific.Subscription, error) {
	if !strings.HasPrefix(base, "https://") {
		return nil, domain.Errorf(domain.EINVALID, "--url must be the server's public https:// address (Prolific delivers only to https)")
	}
	target := HookTarget(base)
	list, err := p.ListHooks(ctx, studyID)
	if err != nil {
		return nil, err
	}
	api, err := p.api()
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for _, s := range list.Subscriptions {
		if s.TargetURL == target {
			have[s.EventType] = true
		}
	}
	var made []prolific.Subscription
	for _, et := range prolific.HookEvents {
		if have[et] {
			continue
		}
		c, err := p.record(ctx, studyID, domain.CallHook, "hook:"+list.WorkspaceID+":"+et+":"+target+":"+newPlanID(), et, actor,
			map[string]string{"workspace_id": list.WorkspaceID, "event_type": et, "target_url": target})
		if err != nil {
			return made, err
		}
		var sub *prolific.Subscription
		if err := p.send(ctx, c, func() (string, error) {
			var err error
			sub, err = api.Subscribe(ctx, list.WorkspaceID, et, target)
			return jsonText(sub), err
		}); err != nil {
			return made, err
		}
		if err := p.db.SaveHookSubscription(ctx, studyID, domain.HookSubscription{ID: sub.ID, WorkspaceID: list.WorkspaceID, EventType: et, TargetURL: target}); err != nil {
			return made, err
		}
		made = append(made, *sub)
	}
	return made, nil
}

// Unsubscribe removes a subscription on Prolific (removing one already
// gone is no error) and forgets it here.
func (p *Service) Unsubscribe(ctx context.Context, studyID int64, actor, id string) error {
	api, err := p.api()
	if err != nil {
		return err
	}
	if !prolific.ValidID(id) {
		return domain.Errorf(domain.EINVALID, "%q is not a subscription id (24 hexadecimal characters)", id)
	}
	c, err := p.record(ctx, studyID, domain.CallHook, "unhook:"+id+":"+newPlanID(), id, actor, map[string]string{"remove": id})
	if err != nil {
		return err
	}
	if err := p.send(ctx, c, func() (string, error) { return "removed", api.Unsubscribe(ctx, id) }); err != nil {
		return err
	}
	return p.db.DeleteHookSubscription(ctx, id)
}

// AsHookError returns the HookError in err, if any.
func AsHookError(err error) (*HookError, bool) {
	var he *HookError
	ok := errors.As(err, &he)
	return he, ok
}
