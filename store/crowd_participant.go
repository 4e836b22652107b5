package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"pragmalab/domain"
	"regexp"
	"strings"
	"time"
)

// Crowd participant statuses.
const (
	CrowdActive      = "active"
	CrowdCompleted   = "completed"
	CrowdMovedOn     = "moved_on"     // idle past the time-out and the slot was taken
	CrowdScreenedOut = "screened_out" // failed a training item twice
)

// prolificID is the accepted shape of PROLIFIC_PID (with the study's
// any_pid setting), STUDY_ID and SESSION_ID: anything with braces or
// percent signs (an unreplaced {{%PROLIFIC_PID%}} placeholder) is refused.
var prolificID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// prolificPID is the shape of Prolific's own participant ids: 24
// hexadecimal characters (lower case once normalised).
var prolificPID = regexp.MustCompile(`^[0-9a-f]{24}$`)

// ValidProlificID tells whether s can be a Prolific id.
func ValidProlificID(s string) bool { return prolificID.MatchString(s) }

// CrowdArrival is what a participant brings to the entry URL.
type CrowdArrival struct {
	PID       string // PROLIFIC_PID
	StudyID   string // STUDY_ID (Prolific's)
	SessionID string // SESSION_ID
	Token     string // the session cookie, if the browser has one
}

// Validate checks the Prolific values and puts PROLIFIC_PID in lower case,
// so that one person cannot get two sessions by changing its case; the
// message names the parameter. anyShape (the study's any_pid setting)
// accepts ids other than Prolific's 24 hexadecimal characters.
func (a *CrowdArrival) Validate(anyShape bool) error {
	a.PID = strings.ToLower(strings.TrimSpace(a.PID))
	if a.PID == "" {
		return domain.Errorf(domain.EINVALID, "PROLIFIC_PID is missing from the address")
	}
	if !ValidProlificID(a.PID) {
		return domain.Errorf(domain.EINVALID, "PROLIFIC_PID is malformed (expected letters and digits, at most 64)")
	}
	if !anyShape && !prolificPID.MatchString(a.PID) {
		return domain.Errorf(domain.EINVALID, "PROLIFIC_PID is malformed (a Prolific id is 24 hexadecimal characters)")
	}
	for _, f := range []struct{ name, v string }{{"STUDY_ID", a.StudyID}, {"SESSION_ID", a.SessionID}} {
		if f.v != "" && !ValidProlificID(f.v) {
			return domain.Errorf(domain.EINVALID, "%s is malformed (expected letters and digits, at most 64)", f.name)
		}
	}
	return nil
}

// CrowdParticipant is one Prolific participant of a crowd study.
type CrowdParticipant struct {
	ID              int64
	StudyID         int64
	BatchID         int64
	BatchNumber     int
	PID             string
	ProlificStudyID string
	SessionID       string
	Token           string
	Status          string
	Consented       bool
	Training        int
	TrainingDone    int
	TrainingWrong   int
	Screens         int
	Answered        int
	StartedAt       time.Time
	LastSeenAt      time.Time
	CompletedAt     time.Time
	Override        string
	Pilot           bool // opened with the study's pilot link: kept apart
	// Trusted: the researcher trusts this participant (a vetted pilot, a
	// lab panel); LLM-echo compares the others with the trusted ones
	// (docs/statistics.md#llm-echo-against-a-reference).
	Trusted bool
	// DesignVersion is the version of the study's design of the
	// participant's batch (docs/studies.md#design-versions).
	DesignVersion int
}

const crowdParticipantColumns = `p.id, p.study_id, p.batch_id, b.number, p.prolific_pid, p.prolific_study_id,
	p.prolific_session_id, p.token, p.status, p.consented_at IS NOT NULL, p.training, p.training_done, p.training_wrong,
	p.screens, p.answered, p.started_at, p.last_seen_at, COALESCE(p.completed_at, ''), p.exclusion_override, p.pilot, p.trusted, b.design_version`

const crowdParticipantFrom = ` FROM crowd_participants p JOIN batches b ON b.id = p.batch_id `

// scanCrowdParticipant scans crowdParticipantColumns, then extra.
func scanCrowdParticipant(sc interface{ Scan(...any) error }, extra ...any) (*CrowdParticipant, error) {
	var p CrowdParticipant
	var started, seen, completed string
	err := sc.Scan(append([]any{&p.ID, &p.StudyID, &p.BatchID, &p.BatchNumber, &p.PID, &p.ProlificStudyID, &p.SessionID,
		&p.Token, &p.Status, &p.Consented, &p.Training, &p.TrainingDone, &p.TrainingWrong, &p.Screens, &p.Answered,
		&started, &seen, &completed, &p.Override, &p.Pilot, &p.Trusted, &p.DesignVersion}, extra...)...)
	if err != nil {
		return nil, err
	}
	p.StartedAt, p.LastSeenAt = parseTime(started), parseTime(seen)
	if completed != "" {
		p.CompletedAt = parseTime(completed)
	}
	return &p, nil
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func crowdParticipantWhere(ctx context.Context, q querier, where string, args ...any) (*CrowdParticipant, error) {
	return crowdParticipantRow(q.QueryRowContext(ctx, `SELECT `+crowdParticipantColumns+crowdParticipantFrom+`WHERE `+where, args...))
}

// crowdParticipantRow scans one participant, mapping no row to domain.ENOTFOUND.
func crowdParticipantRow(row *sql.Row) (*CrowdParticipant, error) {
	p, err := scanCrowdParticipant(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, domain.Errorf(domain.ENOTFOUND, "no such participant session")
	}
	if err != nil {
		return nil, fmt.Errorf("crowd participant: %w", err)
	}
	return p, nil
}

// CrowdParticipantByToken returns the session bound to a cookie token.
func (db *DB) CrowdParticipantByToken(ctx context.Context, studyID int64, token string) (*CrowdParticipant, error) {
	if token == "" || len(token) > 100 {
		return nil, domain.Errorf(domain.ENOTFOUND, "no such participant session")
	}
	return crowdParticipantWhere(ctx, db.q(nil), `p.study_id = ? AND p.token = ?`, studyID, token)
}

// CrowdParticipant returns a participant of a study by row id.
func (db *DB) CrowdParticipant(ctx context.Context, studyID, id int64) (*CrowdParticipant, error) {
	return crowdParticipantWhere(ctx, db.q(nil), `p.study_id = ? AND p.id = ?`, studyID, id)
}

// EnterCrowd receives a participant arriving from Prolific, in one write
// transaction (docs/studies.md#crowd-entry).
//
// A known PROLIFIC_PID gets its own session back — never a second batch —
// but only in the browser holding its cookie, or in another browser that
// brings the same SESSION_ID; otherwise ErrNotYourSession. A new one gets
// an entry: a CrowdParticipant with ID 0, no batch and no slot, until
// ConsentCrowd assigns the batch. The returned Token is the cookie to set.
func (db *DB) EnterCrowd(ctx context.Context, studyID int64, a CrowdArrival, s domain.CrowdSettings) (*CrowdParticipant, error) {
	if err := a.Validate(s.AnyPID); err != nil {
		return nil, err
	}
	var out *CrowdParticipant
	err := db.sessionTx(ctx, prioArrival, func(ctx context.Context, tx *sql.Tx) error {
		p, err := crowdParticipantWhere(ctx, db.q(tx), `p.study_id = ? AND p.prolific_pid = ?`, studyID, a.PID)
		if err == nil {
			if a.Token != p.Token && (a.SessionID == "" || a.SessionID != p.SessionID) {
				return domain.ErrNotYourSession
			}
			out, err = db.touchCrowd(ctx, tx, p, s)
			return err
		}
		if domain.ErrorCode(err) != domain.ENOTFOUND {
			return err
		}
		out, err = db.enterCrowd(ctx, tx, studyID, a)
		return err
	})
	return out, err
}

// crowdEntryTTL is how long an entry that never consented is kept.
const crowdEntryTTL = 24 * time.Hour

// enterCrowd returns the browser's entry for the PID, or records a new one.
func (db *DB) enterCrowd(ctx context.Context, tx *sql.Tx, studyID int64, a CrowdArrival) (*CrowdParticipant, error) {
	if e, err := crowdEntry(ctx, db.q(tx), studyID, a.Token); err == nil && e.PID == a.PID {
		return e, nil
	}
	if _, err := db.q(tx).ExecContext(ctx, `DELETE FROM crowd_entries WHERE study_id = ? AND created_at < ?`,
		studyID, db.Now().Add(-crowdEntryTTL).UTC().Format(time.RFC3339Nano)); err != nil {
		return nil, fmt.Errorf("crowd entry: %w", err)
	}
	a.Token = RandomToken()
	if _, err := db.q(tx).ExecContext(ctx, `
		INSERT INTO crowd_entries (token, study_id, prolific_pid, prolific_study_id, prolific_session_id, created_at)
		VALUES (?, ?, ?, ?, ?, ?)`, a.Token, studyID, a.PID, a.StudyID, a.SessionID, db.now()); err != nil {
		return nil, fmt.Errorf("crowd entry: %w", err)
	}
	return crowdEntry(ctx, db.q(tx), studyID, a.Token)
}

// crowdEntry reads the entry of a token as a participant with ID 0.
func crowdEntry(ctx context.Context, q querier, studyID int64, token string) (*CrowdParticipant, error) {
	p := CrowdParticipant{StudyID: studyID, Token: token, Status: CrowdActive}
	var created string
	err := q.QueryRowContext(ctx, `
		SELECT prolific_pid, prolific_study_id, prolific_session_id, created_at
		FROM crowd_entries WHERE study_id = ? AND token = ?`, studyID, token).
		Scan(&p.PID, &p.ProlificStudyID, &p.SessionID, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, domain.Errorf(domain.ENOTFOUND, "no such participant session")
	}
	if err != nil {
		return nil, fmt.Errorf("crowd entry: %w", err)
	}
	p.StartedAt = parseTime(created)
	p.LastSeenAt = p.StartedAt
	return &p, nil
}

// CrowdEntry returns the entry (ID 0: not consented, no batch) of a
// browser's cookie token.
func (db *DB) CrowdEntry(ctx context.Context, studyID int64, token string) (*CrowdParticipant, error) {
	if token == "" || len(token) > 100 {
		return nil, domain.Errorf(domain.ENOTFOUND, "no such participant session")
	}
	return crowdEntry(ctx, db.read, studyID, token)
}

// assignCrowd creates a participant on the batch takeSlot chooses.
func (db *DB) assignCrowd(ctx context.Context, tx *sql.Tx, studyID int64, a CrowdArrival, s domain.CrowdSettings) (*CrowdParticipant, error) {
	test, err := isTestParticipant(ctx, db.q(tx), a.PID)
	if err != nil {
		return nil, err
	}
	if test {
		return db.assignTestParticipant(ctx, tx, studyID, a) // kept apart (prolific_testers.go)
	}
	batchID, err := db.takeSlot(ctx, tx, studyID, s)
	if err != nil {
		return nil, err
	}
	var screens, training int
	if err := db.q(tx).QueryRowContext(ctx, `
		SELECT (SELECT COUNT(*) FROM batch_items WHERE batch_id = ?),
			(SELECT COUNT(*) FROM crowd_training WHERE study_id = ?)`, batchID, studyID).Scan(&screens, &training); err != nil {
		return nil, fmt.Errorf("assign crowd batch: %w", err)
	}
	now := db.now()
	token := a.Token // the entry's: the browser's cookie stays valid
	if _, err := db.q(tx).ExecContext(ctx, `
		INSERT INTO crowd_participants (study_id, batch_id, prolific_pid, prolific_study_id, prolific_session_id,
			token, screens, training, started_at, last_seen_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		studyID, batchID, a.PID, a.StudyID, a.SessionID, token, screens, training, now, now); err != nil {
		return nil, fmt.Errorf("assign crowd batch: %w", err)
	}
	return crowdParticipantWhere(ctx, db.q(tx), `p.token = ?`, token)
}

// takeSlot takes a place for a new participant and returns its batch: the
// batch with the fewest places taken (lowest number first) if it is under
// the quota; when every batch is full, a place freePlace finds — the
// participant idle the longest past the time-out, else one consented but
// unanswered past the hold time — whose holder is moved on. Otherwise
// ErrStudyFull.
// Both are index lookups (batches_slots, crowd_participants_idle): the
// cost does not grow with the number of batches or participants.
//
// batches.slots_taken counts the places held: active participants, idle
// or not, and completed ones. takeSlot is the one function that takes a
// place, freeSlot the one that gives it back (screen-out); a place that
// changes hands (time-out) changes no count.
func (db *DB) takeSlot(ctx context.Context, tx *sql.Tx, studyID int64, s domain.CrowdSettings) (int64, error) {
	var batchID int64
	var taken int
	err := db.q(tx).QueryRowContext(ctx, `
		SELECT id, slots_taken FROM batches WHERE study_id = ? AND retired = 0 ORDER BY slots_taken, number LIMIT 1`,
		studyID).Scan(&batchID, &taken)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, domain.ErrNoBatches
	}
	if err != nil {
		return 0, fmt.Errorf("take a crowd slot: %w", err)
	}
	if taken < s.Quota {
		if _, err := db.q(tx).ExecContext(ctx, `UPDATE batches SET slots_taken = slots_taken + 1 WHERE id = ?`, batchID); err != nil {
			return 0, fmt.Errorf("take a crowd slot: %w", err)
		}
		return batchID, nil
	}
	idle, batchID, err := db.freePlace(ctx, db.q(tx), studyID, s)
	if err != nil {
		return 0, err
	}
	if idle == 0 {
		return 0, domain.ErrStudyFull
	}
	if _, err := db.q(tx).ExecContext(ctx, `UPDATE crowd_participants SET status = 'moved_on' WHERE id = ?`, idle); err != nil {
		return 0, fmt.Errorf("take a crowd slot: %w", err)
	}
	changedSessions(ctx, idle)
	return batchID, nil
}

// freeSlot gives back the place a participant held in a batch.
func (db *DB) freeSlot(ctx context.Context, tx *sql.Tx, batchID int64) error {
	if _, err := db.q(tx).ExecContext(ctx, `
		UPDATE batches SET slots_taken = slots_taken - 1 WHERE id = ? AND slots_taken > 0`, batchID); err != nil {
		return fmt.Errorf("free a crowd slot: %w", err)
	}
	return nil
}

// touchCrowd marks an active participant seen now. An active participant
// holds their place however long they were away, until a newcomer takes
// it (takeSlot moves them on). The one exception comes from databases
// older than the place counts: a batch holding more than its quota moves
// an idle participant on and frees the place.
func (db *DB) touchCrowd(ctx context.Context, tx *sql.Tx, p *CrowdParticipant, s domain.CrowdSettings) (*CrowdParticipant, error) {
	if p.Status != CrowdActive {
		return p, nil
	}
	changedSessions(ctx, p.ID)
	nowT := db.Now()
	status := CrowdActive
	// A pilot session holds no place (docs/studies.md#pilots): it never
	// times out.
	if p.LastSeenAt.Before(nowT.Add(-s.Timeout())) && !p.Pilot {
		var taken int
		if err := db.q(tx).QueryRowContext(ctx, `SELECT slots_taken FROM batches WHERE id = ?`, p.BatchID).Scan(&taken); err != nil {
			return nil, fmt.Errorf("crowd time-out: %w", err)
		}
		if taken > s.Quota {
			status = CrowdMovedOn
			if err := db.freeSlot(ctx, tx, p.BatchID); err != nil {
				return nil, err
			}
		}
	}
	if _, err := db.q(tx).ExecContext(ctx, `UPDATE crowd_participants SET status = ?, last_seen_at = ? WHERE id = ?`,
		status, db.now(), p.ID); err != nil {
		return nil, fmt.Errorf("crowd time-out: %w", err)
	}
	p.Status, p.LastSeenAt = status, nowT
	return p, nil
}

// TouchCrowd applies the time-out rule to the session of a token; pages call
// it when a participant shows up after being idle past the time-out.
func (db *DB) TouchCrowd(ctx context.Context, studyID int64, token string, s domain.CrowdSettings) (*CrowdParticipant, error) {
	var out *CrowdParticipant
	err := db.sessionTx(ctx, prioArrival, func(ctx context.Context, tx *sql.Tx) error {
		p, err := crowdParticipantWhere(ctx, db.q(tx), `p.study_id = ? AND p.token = ?`, studyID, token)
		if err != nil {
			return err
		}
		out, err = db.touchCrowd(ctx, tx, p, s)
		return err
	})
	return out, err
}

// ConsentCrowd records the participant's consent (once). Consent is when a
// slot is taken: the entry of the token becomes a participant on a batch
// (ErrStudyFull when every batch is at its quota), in the same write
// transaction. When the PID got a session meanwhile (consent in another
// browser), the entry gets it only with the same SESSION_ID, else
// ErrNotYourSession; the returned Token is then that session's cookie.
// The client's address is not known here (ConsentCrowdFrom).
func (db *DB) ConsentCrowd(ctx context.Context, studyID int64, token string, s domain.CrowdSettings) (*CrowdParticipant, error) {
	return db.ConsentCrowdFrom(ctx, studyID, token, "", s)
}

// ConsentCrowdFrom is ConsentCrowd from a known client: clientKey (a hash
// of the client's address, "" when unknown) is stored with a new
// participant, and a newcomer whose key holds the study's
// places_per_address places already is refused with ErrAddressLimit
// (docs/studies.md#no-hoarding).
func (db *DB) ConsentCrowdFrom(ctx context.Context, studyID int64, token, clientKey string, s domain.CrowdSettings) (*CrowdParticipant, error) {
	var out *CrowdParticipant
	err := db.sessionTx(ctx, prioArrival, func(ctx context.Context, tx *sql.Tx) error {
		p, err := crowdParticipantWhere(ctx, db.q(tx), `p.study_id = ? AND p.token = ?`, studyID, token)
		if domain.ErrorCode(err) == domain.ENOTFOUND {
			if err = db.checkAddress(ctx, db.q(tx), studyID, clientKey, s); err != nil {
				return err
			}
			p, err = db.admitCrowdEntry(ctx, tx, studyID, token, clientKey, s)
		}
		if err != nil {
			return err
		}
		changedSessions(ctx, p.ID)
		if p, err = db.touchCrowd(ctx, tx, p, s); err != nil || p.Status != CrowdActive {
			out = p
			return err
		}
		if _, err := db.q(tx).ExecContext(ctx, `
			UPDATE crowd_participants SET consented_at = COALESCE(consented_at, ?) WHERE id = ?`,
			db.now(), p.ID); err != nil {
			return fmt.Errorf("consent: %w", err)
		}
		p.Consented = true
		out = p
		return nil
	})
	return out, err
}

// admitCrowdEntry turns the entry of a token into a participant: the one
// place where a crowd batch is assigned.
func (db *DB) admitCrowdEntry(ctx context.Context, tx *sql.Tx, studyID int64, token, clientKey string, s domain.CrowdSettings) (*CrowdParticipant, error) {
	e, err := crowdEntry(ctx, db.q(tx), studyID, token)
	if err != nil {
		return nil, err
	}
	p, err := crowdParticipantWhere(ctx, db.q(tx), `p.study_id = ? AND p.prolific_pid = ?`, studyID, e.PID)
	switch {
	case err == nil:
		if e.SessionID == "" || e.SessionID != p.SessionID {
			return nil, domain.ErrNotYourSession
		}
	case domain.ErrorCode(err) != domain.ENOTFOUND:
		return nil, err
	default:
		a := CrowdArrival{PID: e.PID, StudyID: e.ProlificStudyID, SessionID: e.SessionID, Token: e.Token}
		if p, err = db.assignCrowd(ctx, tx, studyID, a, s); err != nil {
			return nil, err
		}
		if clientKey != "" {
			if _, err := db.q(tx).ExecContext(ctx, `UPDATE crowd_participants SET client_key = ? WHERE id = ?`, clientKey, p.ID); err != nil {
				return nil, fmt.Errorf("consent: %w", err)
			}
		}
	}
	if _, err := db.q(tx).ExecContext(ctx, `DELETE FROM crowd_entries WHERE token = ?`, token); err != nil {
		return nil, fmt.Errorf("consent: %w", err)
	}
	return p, nil
}
