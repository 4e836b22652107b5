package domain

import (
	"fmt"
	"time"
)

// The kinds of recorded Prolific calls (docs/prolific.md#what-each-button-sends).
const (
	CallApprove         = "approve"          // one submission, sent in a bulk approval
	CallReject          = "reject"           // one submission
	CallBonusSetup      = "bonus_setup"      // sets bonuses up; pays nothing
	CallBonusPay        = "bonus_pay"        // pays a setup: never sent twice
	CallCreateStudy     = "create_study"     // a draft study
	CallGroupAdd        = "group_add"        // participants added to a group
	CallTransition      = "study_transition" // publish, pause or resume the study
	CallPlaces          = "places"           // raise the study's places
	CallScreenOut       = "screen_out"       // one submission moved to SCREENED OUT
	CallMessage         = "message"          // a message to one or more participants
	CallHook            = "hook"             // a hook subscription created or removed
	CallReturn          = "return_request"   // a participant asked to return their submission
	CallTestParticipant = "test_participant" // a test participant created for the researcher
	CallSignals         = "signals_upload"   // integrity flags uploaded as submission feedback: evidence, never a rejection
)

// The states of a recorded call.
const (
	CallPending = "pending" // recorded; sent or about to be; no answer recorded
	CallDone    = "done"    // Prolific accepted it
	CallFailed  = "failed"  // Prolific refused it, or it was never sent
)

// ProlificLink is a crowd study's link to its Prolific study.
type ProlificLink struct {
	StudyID         int64
	ProlificStudyID string
	SyncedAt        time.Time
	SyncError       string
	// ProlificStatus is the study's status on Prolific as last read
	// (a delivery, a check, a transition); "" before any.
	ProlificStatus string
	// HookAt is when the last webhook delivery about the study arrived.
	HookAt time.Time
}

// ProlificCall is one recorded call to Prolific.
type ProlificCall struct {
	ID        int64
	StudyID   int64
	Kind      string
	Key       string
	Target    string
	Request   string
	State     string
	Response  string
	Actor     string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// FormatCents writes an amount in cents (or pence) as units with two
// decimals, 0.50: as bonus files and Prolific's API write amounts.
func FormatCents(c int) string { return fmt.Sprintf("%d.%02d", c/100, c%100) }

// ProlificEvent is one webhook delivery processed (docs/prolific.md#webhooks).
type ProlificEvent struct {
	EventID    string
	EventType  string
	ResourceID string
	StudyID    int64 // the pragmalab study it concerned; 0 for none
	Outcome    string
	ReceivedAt time.Time
}

// HookSubscription is a hook subscription made from pragmalab.
type HookSubscription struct {
	ID, WorkspaceID, EventType, TargetURL string
	CreatedAt                             time.Time
}
