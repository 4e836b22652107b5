package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"pragmalab/domain"
	"strings"
	"time"
)

// domain.CrowdScreen is one screen a participant rates (domain.CrowdScreen, named
// here for the store's callers).

// domain.CrowdScreen returns screen position (1-based) of a batch.
func (db *DB) CrowdScreen(ctx context.Context, batchID int64, position int) (domain.CrowdScreen, error) {
	sc := domain.CrowdScreen{Position: position}
	row := db.q(nil).QueryRowContext(ctx, `
		SELECT bi.condition, `+prefixed("i.", itemColumns)+`
		FROM batch_items bi JOIN items i ON i.id = bi.item_id
		WHERE bi.batch_id = ? AND bi.position = ?`, batchID, position)
	err := row.Scan(append([]any{&sc.Condition}, itemDest(&sc.Item)...)...)
	if errors.Is(err, sql.ErrNoRows) {
		return sc, domain.Errorf(domain.ENOTFOUND, "screen %d not found", position)
	}
	if err != nil {
		return sc, fmt.Errorf("crowd screen: %w", err)
	}
	return sc, nil
}

// CrowdTraining returns a crowd study's training screens in order.
func (db *DB) CrowdTraining(ctx context.Context, studyID int64) ([]domain.CrowdScreen, error) {
	rows, err := db.read.QueryContext(ctx, `
		SELECT t.position, t.condition, `+prefixed("i.", itemColumns)+`
		FROM crowd_training t JOIN items i ON i.id = t.item_id
		WHERE t.study_id = ? ORDER BY t.position`, studyID)
	if err != nil {
		return nil, fmt.Errorf("crowd training: %w", err)
	}
	defer rows.Close()
	var out []domain.CrowdScreen
	for rows.Next() {
		var sc domain.CrowdScreen
		if err := rows.Scan(append([]any{&sc.Position, &sc.Condition}, itemDest(&sc.Item)...)...); err != nil {
			return nil, fmt.Errorf("crowd training: %w", err)
		}
		out = append(out, sc)
	}
	return out, rows.Err()
}

// CrowdBatchScreens returns every screen of a batch in order.
func (db *DB) CrowdBatchScreens(ctx context.Context, batchID int64) ([]domain.CrowdScreen, error) {
	rows, err := db.read.QueryContext(ctx, `
		SELECT bi.position, bi.condition, `+prefixed("i.", itemColumns)+`
		FROM batch_items bi JOIN items i ON i.id = bi.item_id
		WHERE bi.batch_id = ? ORDER BY bi.position`, batchID)
	if err != nil {
		return nil, fmt.Errorf("crowd batch screens: %w", err)
	}
	defer rows.Close()
	var out []domain.CrowdScreen
	for rows.Next() {
		var sc domain.CrowdScreen
		if err := rows.Scan(append([]any{&sc.Position, &sc.Condition}, itemDest(&sc.Item)...)...); err != nil {
			return nil, fmt.Errorf("crowd batch screens: %w", err)
		}
		out = append(out, sc)
	}
	return out, rows.Err()
}

func itemDest(it *domain.Item) []any {
	return []any{&it.ID, &it.Key, &it.Type, &it.Context, &it.Utterance, &it.Implicature, &it.Cancellation,
		&it.Negation, &it.Strengthening, &it.Neutral, &it.Check, &it.Status, &it.Version, &it.Decision, &it.Training, variantsCol{&it.Variants}}
}

// prefixed qualifies a comma-separated column list with a table alias.
func prefixed(alias, cols string) string {
	parts := strings.Split(cols, ",")
	for i, c := range parts {
		parts[i] = alias + strings.TrimSpace(c)
	}
	return strings.Join(parts, ", ")
}

// The statements of an answer's transaction, prepared once (see warm).
const (
	qParticipantByToken = `SELECT ` + crowdParticipantColumns + crowdParticipantFrom + `WHERE p.study_id = ? AND p.token = ?`
	// qAnswerNext is qAdvance for any screen but the last, and the common
	// case: it sets answered alone, so no index holding last_seen_at or
	// status is rewritten and the data-version trigger (migration 0340)
	// is not even run. last_seen_at is renewed apart, when it is older
	// than lastSeenEvery.
	qAnswerNext = `
		UPDATE crowd_participants SET answered = ?1
		WHERE study_id = ?2 AND token = ?3 AND status = 'active' AND consented_at IS NOT NULL
			AND training_done >= training AND answered = ?1 - 1 AND ?1 < screens AND last_seen_at >= ?4
		RETURNING id, batch_id, screens, last_seen_at`
	qSeen = `UPDATE crowd_participants SET last_seen_at = ? WHERE id = ?`
	// qAdvance moves an active, trained participant seen within the
	// time-out from screen ?1-1 to ?1, completing the session at the last.
	qAdvance = `
		UPDATE crowd_participants SET answered = ?1, last_seen_at = ?2,
			status = CASE WHEN ?1 = screens THEN 'completed' ELSE status END,
			completed_at = CASE WHEN ?1 = screens THEN ?2 ELSE completed_at END
		WHERE study_id = ?3 AND token = ?4 AND status = 'active' AND consented_at IS NOT NULL
			AND training_done >= training AND answered = ?1 - 1 AND ?1 <= screens AND last_seen_at >= ?5
		RETURNING id, batch_id, screens, status`
	// qInsertRating reads the item's version in a subquery: with items
	// joined instead, SQLite prepared the statement again at every run
	// (sqlite3Reprepare in the profile), as for a plan that depends on the
	// values bound.
	qInsertRating = `
		INSERT INTO crowd_ratings (participant_id, position, item_id, condition, rating, answered_at, item_version, shown_at, rt_ms,
			answer_changes, hidden_ms, first_input_ms, untrusted_events, pastes, webdriver, pointer_or_key, honeypot, machine_instruction, script)
		SELECT ?1, bi.position, bi.item_id, bi.condition, ?2, ?3, (SELECT version FROM items WHERE id = bi.item_id),
			COALESCE((SELECT shown_at FROM screen_views WHERE flow = 'crowd' AND owner = ?1 AND position = ?5), ''), ?6, ?7, ?8, ?9,
			?10, ?11, ?12, ?13, ?14, ?15, ?16
		FROM batch_items bi WHERE bi.batch_id = ?4 AND bi.position = ?5
		ON CONFLICT (participant_id, position) DO NOTHING`
)

// lastSeenEvery is how old a participant's last_seen_at may grow while
// they answer before an answer renews it: every answer rewrote it, and
// with it two indexes, which was nearly half of the answer's UPDATE.
// The time-out rule reads it, so it stays within 5 % of the time-out
// and never more than 15 s behind the last answer
// (docs/studies.md#crowd-time-out).
func lastSeenEvery(s domain.CrowdSettings) time.Duration {
	return min(15*time.Second, s.Timeout()/20)
}

// lockCrowd loads the session of a token inside a write transaction and
// applies the time-out rule when the participant has been idle.
func (db *DB) lockCrowd(ctx context.Context, tx *sql.Tx, studyID int64, token string, s domain.CrowdSettings) (*CrowdParticipant, error) {
	p, err := crowdParticipantRow(db.q(tx).QueryRowContext(ctx, qParticipantByToken, studyID, token))
	if err != nil {
		return nil, err
	}
	if p.Status == CrowdActive && p.LastSeenAt.Before(db.Now().Add(-s.Timeout())) {
		return db.touchCrowd(ctx, tx, p, s)
	}
	return p, nil
}

// CrowdAnswerState is where a participant stands after an answer.
type CrowdAnswerState struct {
	Status   string
	Answered int
	Screens  int
}

// SaveCrowdRating stores the rating of screen position as one write of the
// write queue (durable when it returns) and tells where the participant
// now stands. A resubmit of an
// answered screen changes nothing (the first answer stands); an answer out
// of order, before the training, or from a finished session is not stored,
// and the caller sends the participant to where they are. The answer to
// the last screen completes the session in the same transaction. rt is the
// response time the browser measured, in ms (0: not measured).
func (db *DB) SaveCrowdRating(ctx context.Context, studyID int64, token string, position, rating, rt int, s domain.CrowdSettings) (CrowdAnswerState, error) {
	return db.SaveCrowdRatingTraced(ctx, studyID, token, position, rating, rt, domain.AnswerTrace{}, s)
}

// SaveCrowdRatingTraced is SaveCrowdRating with the answer's behavioural
// trace, stored in the same statement as the rating (NULL when tr.Set is
// false: the page's script did not run), and the verdict on its script
// token (tr.Script; NULL when not checked).
func (db *DB) SaveCrowdRatingTraced(ctx context.Context, studyID int64, token string, position, rating, rt int, tr domain.AnswerTrace, s domain.CrowdSettings) (CrowdAnswerState, error) {
	if !s.ValidRating(rating) {
		return CrowdAnswerState{}, domain.ErrRatingRange
	}
	db.warm(ctx, qParticipantByToken, qAnswerNext, qSeen, qAdvance, qInsertRating)
	traps, err := db.crowdTraps(ctx, token, s)
	if err != nil {
		return CrowdAnswerState{}, err
	}
	var out CrowdAnswerState
	err = db.sessionTx(ctx, prioAnswer, func(ctx context.Context, tx *sql.Tx) error {
		now := db.Now()
		id, batchID, err := db.advanceCrowd(ctx, tx, studyID, token, position, now, s, &out)
		if errors.Is(err, sql.ErrNoRows) {
			var stored bool
			if id, batchID, stored, err = db.advanceCrowdSlowly(ctx, tx, studyID, token, position, now, s, &out); err != nil || !stored {
				return err
			}
		} else if err != nil {
			return fmt.Errorf("save rating: %w", err)
		}
		out.Answered = position
		asked, err := db.machineAsked(ctx, tx, batchID, position, traps, s)
		if err != nil {
			return err
		}
		args := append([]any{id, rating, now.UTC().Format(time.RFC3339Nano), batchID, position, RT(rt),
			traceValue(tr, tr.Changes), traceValue(tr, tr.HiddenMS), traceValue(tr, tr.FirstInputMS)}, signalValues(tr)...)
		res, err := db.q(tx).ExecContext(ctx, qInsertRating, append(args, machineObeyed(asked, rating), signalValue(tr.Script))...)
		if err != nil {
			return fmt.Errorf("save rating: %w", err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return fmt.Errorf("save rating: screen %d of batch %d missing or already answered", position, batchID)
		}
		return db.saveJustification(ctx, tx, id, batchID, position, traps, tr.Justification, s)
	})
	return out, err
}

// advanceCrowd is the common case of an answer, in one statement or two:
// the participant moves on a screen (qAnswerNext; qAdvance for the last),
// and last_seen_at is renewed when it is due. It reports the move to the
// cache of sessions' screens. sql.ErrNoRows: not the next screen, not
// trained, idle, finished, or no such session.
func (db *DB) advanceCrowd(ctx context.Context, tx *sql.Tx, studyID int64, token string, position int, now time.Time, s domain.CrowdSettings, out *CrowdAnswerState) (id, batchID int64, err error) {
	at := now.UTC() // as the database will read it back: no monotonic reading
	stamp, idle := at.Format(time.RFC3339Nano), now.Add(-s.Timeout()).UTC().Format(time.RFC3339Nano)
	var seen string
	err = db.q(tx).QueryRowContext(ctx, qAnswerNext, position, studyID, token, idle).Scan(&id, &batchID, &out.Screens, &seen)
	seenAt := at
	switch {
	case err == nil:
		out.Status = CrowdActive
		if last := parseTime(seen); last.After(now.Add(-lastSeenEvery(s))) {
			seenAt = last
		} else if _, err := db.q(tx).ExecContext(ctx, qSeen, stamp, id); err != nil {
			return 0, 0, err
		}
	case errors.Is(err, sql.ErrNoRows):
		// The last screen, or no screen to store.
		err = db.q(tx).QueryRowContext(ctx, qAdvance, position, stamp, studyID, token, idle).
			Scan(&id, &batchID, &out.Screens, &out.Status)
	}
	if err != nil {
		return 0, 0, err
	}
	if fx := effectOf(ctx); fx != nil {
		fx.advance = &advanceEffect{id: id, position: position, status: out.Status, seen: seenAt, at: at}
	}
	return id, batchID, nil
}

// advanceCrowdSlowly is an answer advanceCrowd did not store: it reports
// where the participant stands, and stores the answer (stored) only when
// the participant was idle past the time-out but the slot was still free,
// so that lockCrowd renewed the session.
func (db *DB) advanceCrowdSlowly(ctx context.Context, tx *sql.Tx, studyID int64, token string, position int, now time.Time, s domain.CrowdSettings, out *CrowdAnswerState) (id, batchID int64, stored bool, err error) {
	p, err := db.lockCrowd(ctx, tx, studyID, token, s)
	if err != nil {
		return 0, 0, false, err
	}
	changedSessions(ctx, p.ID)
	*out = CrowdAnswerState{Status: p.Status, Answered: p.Answered, Screens: p.Screens}
	if p.Status != CrowdActive || !p.Consented || p.TrainingDone < p.Training || position != p.Answered+1 || position > p.Screens {
		return 0, 0, false, nil
	}
	status := CrowdActive
	if position == p.Screens {
		status = CrowdCompleted
	}
	if _, err := db.q(tx).ExecContext(ctx, `
		UPDATE crowd_participants SET answered = ?, status = ?,
			completed_at = CASE WHEN ? = 'completed' THEN ? ELSE completed_at END
		WHERE id = ?`, position, status, status, now.UTC().Format(time.RFC3339Nano), p.ID); err != nil {
		return 0, 0, false, fmt.Errorf("save rating: %w", err)
	}
	out.Status = status
	return p.ID, p.BatchID, true, nil
}

// CrowdTrainingResult is the outcome of a training answer.
type CrowdTrainingResult struct {
	P *CrowdParticipant
	// Passed: the answer was right; Retry: it was wrong and the item must be
	// answered again; neither: a stale resubmit, ignored.
	Passed, Retry bool
}

// AnswerCrowdTraining records a training answer. attempt is the number of
// wrong answers the page was showing, so a double submit of a wrong answer
// counts once. A second wrong answer on the same item screens the
// participant out when the study has a screen-out code; without one the
// participant keeps trying. rt is the browser's response time in ms (0:
// not measured).
func (db *DB) AnswerCrowdTraining(ctx context.Context, studyID int64, token string, position, attempt, rating, rt int, s domain.CrowdSettings) (CrowdTrainingResult, error) {
	if !s.ValidRating(rating) {
		return CrowdTrainingResult{}, domain.ErrRatingRange
	}
	var out CrowdTrainingResult
	err := db.sessionTx(ctx, prioArrival, func(ctx context.Context, tx *sql.Tx) error {
		p, err := db.lockCrowd(ctx, tx, studyID, token, s)
		if err != nil {
			return err
		}
		changedSessions(ctx, p.ID)
		out.P = p
		if p.Status != CrowdActive || !p.Consented || position != p.TrainingDone+1 || attempt != p.TrainingWrong {
			return nil
		}
		var cond, expect string
		if err := db.q(tx).QueryRowContext(ctx, `SELECT t.condition, i.training FROM crowd_training t JOIN items i ON i.id = t.item_id
			WHERE t.study_id = ? AND t.position = ?`, studyID, position).Scan(&cond, &expect); err != nil {
			return fmt.Errorf("training answer: %w", err)
		}
		passed := practicePasses(s, cond, expect, rating)
		now := db.now()
		if _, err := db.q(tx).ExecContext(ctx, `
			INSERT INTO crowd_training_answers (participant_id, position, attempt, rating, passed, answered_at, shown_at, rt_ms)
			VALUES (?, ?, ?, ?, ?, ?, `+qShownAt+`, ?)`, p.ID, position, attempt+1, rating, passed, now,
			FlowTraining, p.ID, position, RT(rt)); err != nil {
			return fmt.Errorf("training answer: %w", err)
		}
		switch {
		case passed:
			p.TrainingDone, p.TrainingWrong = position, 0
			out.Passed = true
		case screensOut(s, p.TrainingWrong+1):
			p.TrainingWrong++
			p.Status = CrowdScreenedOut
			if !p.Pilot { // a pilot session holds no place
				if err := db.freeSlot(ctx, tx, p.BatchID); err != nil {
					return err
				}
			}
		default:
			p.TrainingWrong++
			out.Retry = true
		}
		p.LastSeenAt = db.Now()
		_, err = db.q(tx).ExecContext(ctx, `
			UPDATE crowd_participants SET training_done = ?, training_wrong = ?, status = ?, last_seen_at = ?
			WHERE id = ?`, p.TrainingDone, p.TrainingWrong, p.Status, now, p.ID)
		if err != nil {
			return fmt.Errorf("training answer: %w", err)
		}
		return nil
	})
	return out, err
}

// practicePasses is a practice answer's verdict: a judgement study's lies
// in the range its item's training value expects (a value the scale no
// longer holds reads as any, and the go-live checklist refuses it;
// docs/studies.md#judgement-practice); a crowd study's on the side of the
// scale its condition calls for.
func practicePasses(s domain.CrowdSettings, cond, expect string, rating int) bool {
	if s.Judgement() {
		r, _ := s.PracticeRangeOf(expect)
		return domain.JudgementPracticePasses(r, rating)
	}
	return s.PracticePasses(cond, rating)
}

// screensOut reports whether wrong answers on one practice item end the
// visit: a judgement study's at practice_screen_out (never when 0); a
// crowd study's at the second, when it has a screen-out code.
func screensOut(s domain.CrowdSettings, wrong int) bool {
	if s.Judgement() {
		return s.PracticeScreenOut > 0 && wrong >= s.PracticeScreenOut
	}
	return wrong >= 2 && s.ScreenOutCode != ""
}

// CrowdRating is one stored rating.
type CrowdRating struct {
	Position  int
	ItemID    int64
	Condition string
	Rating    int
	AnswerTimes
}

// CrowdRatings returns a participant's ratings in screen order.
func (db *DB) CrowdRatings(ctx context.Context, participantID int64) ([]CrowdRating, error) {
	rows, err := db.read.QueryContext(ctx, `
		SELECT position, item_id, condition, rating, shown_at, answered_at, rt_ms FROM crowd_ratings
		WHERE participant_id = ? ORDER BY position`, participantID)
	if err != nil {
		return nil, fmt.Errorf("crowd ratings: %w", err)
	}
	defer rows.Close()
	var out []CrowdRating
	for rows.Next() {
		var r CrowdRating
		times, done := r.AnswerTimes.dest()
		if err := rows.Scan(append([]any{&r.Position, &r.ItemID, &r.Condition, &r.Rating}, times...)...); err != nil {
			return nil, fmt.Errorf("crowd ratings: %w", err)
		}
		done()
		out = append(out, r)
	}
	return out, rows.Err()
}

// qSessionScreen reads a session, the screen it is at — the next
// training item, or the next item of the batch: its condition and item id
// — and whether that screen was shown before, in one query, since every
// page a participant loads needs all three. The item itself comes from
// the cache of screen items (screen_items.go).
const qSessionScreen = `SELECT ` + crowdParticipantColumns + `,
		COALESCE(t.condition, bi.condition, ''), COALESCE(t.item_id, bi.item_id, 0),
		EXISTS (SELECT 1 FROM screen_views v
			WHERE v.flow = CASE WHEN p.training_done < p.training THEN 'training' ELSE 'crowd' END AND v.owner = p.id
				AND v.position = CASE WHEN p.training_done < p.training THEN p.training_done ELSE p.answered END + 1)
	` + crowdParticipantFrom + `
	LEFT JOIN crowd_training t ON p.training_done < p.training
		AND t.study_id = p.study_id AND t.position = p.training_done + 1
	LEFT JOIN batch_items bi ON p.training_done >= p.training
		AND bi.batch_id = p.batch_id AND bi.position = p.answered + 1
	WHERE p.study_id = ? AND p.token = ?`

// CrowdSessionScreen returns the session bound to a token and the screen it
// is at (domain.Item.ID 0 when there is none: finished, or before consent the
// first training item is returned all the same).
func (db *DB) CrowdSessionScreen(ctx context.Context, studyID int64, token string) (*CrowdParticipant, domain.CrowdScreen, error) {
	var sc domain.CrowdScreen
	if token == "" || len(token) > 100 {
		return nil, sc, domain.Errorf(domain.ENOTFOUND, "no such participant session")
	}
	c := &db.hot.screens
	if s, ok := c.lookup(token); ok && s.p.StudyID == studyID {
		return db.fromSnap(ctx, s)
	}
	mark := c.begin()
	row := db.q(nil).QueryRowContext(ctx, qSessionScreen, studyID, token)
	var itemID int64
	p, err := scanCrowdParticipant(row, &sc.Condition, &itemID, &sc.Shown)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, sc, domain.Errorf(domain.ENOTFOUND, "no such participant session")
	}
	if err != nil {
		return nil, sc, fmt.Errorf("crowd session: %w", err)
	}
	if p.TrainingDone < p.Training {
		sc.Position = p.TrainingDone + 1
	} else {
		sc.Position = p.Answered + 1
	}
	snap := sessionSnap{p: *p, screen: sc, itemID: itemID}
	c.keep(token, snap, mark)
	return db.fromSnap(ctx, snap)
}
