package domain

// The crowd participant's session (docs/studies.md#crowd-entry): the
// values its pages and the store share.

// Refusals of a crowd entry or consent, each shown to the participant as
// a page of its own.
var (
	// ErrStudyFull: every batch has its quota of participants.
	ErrStudyFull = Errorf(ECONFLICT, "The study is full.")
	// ErrNotYourSession: the PROLIFIC_PID has a session bound to another
	// browser and the SESSION_ID given does not match it.
	ErrNotYourSession = Errorf(ECONFLICT, "This Prolific ID already has a session in another browser.")
	// ErrNoBatches: the researcher has not built the batches yet.
	ErrNoBatches = Errorf(ECONFLICT, "The study is not open yet.")
	// ErrAddressLimit: the client address already holds the study's
	// places_per_address consented, unfinished places
	// (docs/studies.md#no-hoarding).
	ErrAddressLimit = Errorf(ECONFLICT, "Too many sessions of this study are in progress from your address.")
)

// ErrRatingRange refuses a rating off the scale (RatingMin–RatingMax):
// every answer path of the crowd study checks it before anything is
// stored.
var ErrRatingRange = Errorf(EINVALID, "rating must be %d–%d", RatingMin, RatingMax)

// CrowdScreen is one screen a crowd participant rates: the item, the
// condition it is shown in, and (through Item.Check) whether it is an
// attention check.
type CrowdScreen struct {
	Position  int
	Condition string
	Item      Item
	// Shown: the screen was shown before, its first showing is recorded
	// (read with the session, so showing it again writes nothing).
	Shown bool
}

// FollowUp is the utterance the screen's condition appends (u×, u⊥, u+,
// u≈), "" for the bare item.
func (sc CrowdScreen) FollowUp() string { return sc.Item.FollowUp(sc.Condition) }
