package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"pragmalab/domain"
)

// pilotKey marks a context whose reads include pilot answers.
type pilotKey struct{}

// IncludePilot returns a context under which the answer rows of exports
// and analyses (RatingRows, JudgementRows, ContextAnswerRows,
// ExplanationRatingRows, CrowdParticipants, Flagged) include the pilot
// answers; without it they leave them out (docs/studies.md#pilots).
func IncludePilot(ctx context.Context) context.Context {
	return context.WithValue(ctx, pilotKey{}, true)
}

// pilotIncluded tells whether ctx asks for pilot answers.
func pilotIncluded(ctx context.Context) bool { v, _ := ctx.Value(pilotKey{}).(bool); return v }

// PilotLink returns the study's pilot token, "" when it has none.
func (db *DB) PilotLink(ctx context.Context, studyID int64) (string, error) {
	var tok string
	err := db.read.QueryRowContext(ctx, `SELECT token FROM pilot_links WHERE study_id = ?`, studyID).Scan(&tok)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("pilot link: %w", err)
	}
	return tok, nil
}

// NewPilotLink gives the study a new pilot token, revoking the old one.
func (db *DB) NewPilotLink(ctx context.Context, studyID int64) (string, error) {
	tok := RandomToken()
	err := db.tx(ctx, func(tx *sql.Tx) error {
		if err := revokePilot(ctx, tx, studyID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO pilot_links (study_id, token, created_at) VALUES (?, ?, ?)`, studyID, tok, db.now())
		return err
	})
	if err != nil {
		return "", fmt.Errorf("new pilot link: %w", err)
	}
	return tok, nil
}

// RevokePilotLink ends the study's pilot link and every session opened
// with it; the pilot answers stay until WipePilot.
func (db *DB) RevokePilotLink(ctx context.Context, studyID int64) error {
	return db.tx(ctx, func(tx *sql.Tx) error { return revokePilot(ctx, tx, studyID) })
}

// revokePilot deletes the link and gives the pilot experts and sessions
// tokens nobody holds, so their pages are closed too.
func revokePilot(ctx context.Context, tx *sql.Tx, studyID int64) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM pilot_links WHERE study_id = ?`, studyID); err != nil {
		return fmt.Errorf("revoke pilot: %w", err)
	}
	for _, table := range []string{"annotators", "crowd_participants"} {
		rows, err := tx.QueryContext(ctx, `SELECT id FROM `+table+` WHERE study_id = ? AND pilot = 1`, studyID)
		if err != nil {
			return fmt.Errorf("revoke pilot: %w", err)
		}
		var ids []int64
		for rows.Next() {
			var id int64
			rows.Scan(&id)
			ids = append(ids, id)
		}
		rows.Close()
		for _, id := range ids {
			if _, err := tx.ExecContext(ctx, `UPDATE `+table+` SET token = ? WHERE id = ?`, RandomToken(), id); err != nil {
				return fmt.Errorf("revoke pilot: %w", err)
			}
		}
	}
	return nil
}

// StudyByPilotToken returns the study whose pilot link holds token.
func (db *DB) StudyByPilotToken(ctx context.Context, token string) (*domain.Study, error) {
	var id int64
	err := db.read.QueryRowContext(ctx, `SELECT study_id FROM pilot_links WHERE token = ?`, token).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) || token == "" {
		return nil, domain.Errorf(domain.ENOTFOUND, "this pilot link is not valid (revoked or mistyped)")
	}
	if err != nil {
		return nil, fmt.Errorf("pilot link: %w", err)
	}
	return db.Study(ctx, id)
}

// PilotAnnotator returns the pilot expert of an expert, context or explain
// study, making it on first use with what a real expert gets: the first
// batch (round 1), the first survey, or the first screens outputs.
func (db *DB) PilotAnnotator(ctx context.Context, st *domain.Study, screens int) (*domain.Annotator, error) {
	var a domain.Annotator
	err := db.tx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT id, study_id, name, token, pilot FROM annotators WHERE study_id = ? AND pilot = 1 ORDER BY id LIMIT 1`,
			st.ID).Scan(&a.ID, &a.StudyID, &a.Name, &a.Token, &a.Pilot)
		if err == nil {
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		a = domain.Annotator{StudyID: st.ID, Name: "Pilot " + RandomToken()[:6], Token: RandomToken(), Pilot: true}
		res, err := tx.ExecContext(ctx, `INSERT INTO annotators (study_id, name, token, created_at, pilot) VALUES (?, ?, ?, ?, 1)`,
			st.ID, a.Name, a.Token, db.now())
		if err != nil {
			return err
		}
		a.ID, _ = res.LastInsertId()
		switch st.Kind {
		case domain.KindExpert:
			_, err = tx.ExecContext(ctx, `INSERT INTO assignments (annotator_id, batch_id, round)
				SELECT ?, id, 1 FROM batches WHERE study_id = ? ORDER BY number LIMIT 1`, a.ID, st.ID)
		case domain.KindContext:
			_, err = tx.ExecContext(ctx, `INSERT INTO context_assignments (annotator_id, survey_id)
				SELECT ?, id FROM context_surveys WHERE study_id = ? ORDER BY number LIMIT 1`, a.ID, st.ID)
		case domain.KindExplain:
			_, err = tx.ExecContext(ctx, `INSERT INTO explain_assignments (annotator_id, position, output_id)
				SELECT ?, ROW_NUMBER() OVER (ORDER BY id), id FROM explain_outputs WHERE study_id = ? ORDER BY id LIMIT ?`,
				a.ID, st.ID, screens)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("pilot expert: %w", err)
	}
	return &a, nil
}

// EnterCrowdPilot opens a new pilot session of a crowd study, on the batch
// with the fewest pilot sessions. It takes no slot: pilot sessions are not
// counted against the quota. Its Token is the cookie to set.
func (db *DB) EnterCrowdPilot(ctx context.Context, studyID int64) (*CrowdParticipant, error) {
	var out *CrowdParticipant
	err := db.sessionTx(ctx, prioArrival, func(ctx context.Context, tx *sql.Tx) error {
		batchID, err := fewestPilotsBatch(ctx, tx, studyID)
		if errors.Is(err, domain.ErrNoBatches) {
			return err
		}
		if err != nil {
			return fmt.Errorf("pilot session: %w", err)
		}
		token, now := RandomToken(), db.now()
		if _, err := tx.ExecContext(ctx, `
			INSERT INTO crowd_participants (study_id, batch_id, prolific_pid, token, screens, training, started_at, last_seen_at, pilot)
			VALUES (?, ?, ?, ?, (SELECT COUNT(*) FROM batch_items WHERE batch_id = ?), (SELECT COUNT(*) FROM crowd_training WHERE study_id = ?), ?, ?, 1)`,
			studyID, batchID, "pilot-"+token[:12], token, batchID, studyID, now, now); err != nil {
			return fmt.Errorf("pilot session: %w", err)
		}
		out, err = crowdParticipantWhere(ctx, db.q(tx), `p.token = ?`, token)
		return err
	})
	return out, err
}

// WipePilot deletes every pilot session and pilot expert of a study with
// their answers, and returns how many answers went.
func (db *DB) WipePilot(ctx context.Context, studyID int64) (int, error) {
	var n int
	err := db.tx(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `
			SELECT (SELECT COUNT(*) FROM crowd_ratings r JOIN crowd_participants p ON p.id = r.participant_id WHERE p.study_id = ?1 AND p.pilot = 1)
				+ (SELECT COUNT(*) FROM judgements j JOIN assignments a ON a.id = j.assignment_id JOIN annotators n ON n.id = a.annotator_id WHERE n.study_id = ?1 AND n.pilot = 1)
				+ (SELECT COUNT(*) FROM context_answers c JOIN context_assignments a ON a.id = c.assignment_id JOIN annotators n ON n.id = a.annotator_id WHERE n.study_id = ?1 AND n.pilot = 1 AND c.sufficient != '')
				+ (SELECT COUNT(*) FROM explain_ratings r JOIN explain_assignments x ON x.id = r.assignment_id JOIN annotators n ON n.id = x.annotator_id WHERE n.study_id = ?1 AND n.pilot = 1)`,
			studyID).Scan(&n); err != nil {
			return err
		}
		for _, q := range []string{
			`DELETE FROM screen_views WHERE flow IN ('crowd', 'training') AND owner IN (SELECT id FROM crowd_participants WHERE study_id = ?1 AND pilot = 1)`,
			`DELETE FROM screen_views WHERE flow = 'expert' AND owner IN (SELECT a.id FROM assignments a JOIN annotators n ON n.id = a.annotator_id WHERE n.study_id = ?1 AND n.pilot = 1)`,
			`DELETE FROM screen_views WHERE flow = 'context' AND owner IN (SELECT a.id FROM context_assignments a JOIN annotators n ON n.id = a.annotator_id WHERE n.study_id = ?1 AND n.pilot = 1)`,
			`DELETE FROM screen_views WHERE flow = 'explain' AND owner IN (SELECT id FROM annotators WHERE study_id = ?1 AND pilot = 1)`,
			`DELETE FROM crowd_participants WHERE study_id = ?1 AND pilot = 1`,
			`DELETE FROM annotators WHERE study_id = ?1 AND pilot = 1`,
		} {
			if _, err := tx.ExecContext(ctx, q, studyID); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("wipe pilot: %w", err)
	}
	return n, nil
}

// PilotSummary counts the pilot data of a study.
func (db *DB) PilotSummary(ctx context.Context, studyID int64) (domain.PilotSummary, error) {
	var s domain.PilotSummary
	err := db.read.QueryRowContext(ctx, `
		SELECT (SELECT COUNT(*) FROM crowd_participants WHERE study_id = ?1 AND pilot = 1)
				+ (SELECT COUNT(*) FROM annotators WHERE study_id = ?1 AND pilot = 1),
			(SELECT COUNT(*) FROM crowd_ratings r JOIN crowd_participants p ON p.id = r.participant_id WHERE p.study_id = ?1 AND p.pilot = 1)
				+ (SELECT COUNT(*) FROM judgements j JOIN assignments a ON a.id = j.assignment_id JOIN annotators n ON n.id = a.annotator_id WHERE n.study_id = ?1 AND n.pilot = 1)
				+ (SELECT COUNT(*) FROM context_answers c JOIN context_assignments a ON a.id = c.assignment_id JOIN annotators n ON n.id = a.annotator_id WHERE n.study_id = ?1 AND n.pilot = 1 AND c.sufficient != '')
				+ (SELECT COUNT(*) FROM explain_ratings r JOIN explain_assignments x ON x.id = r.assignment_id JOIN annotators n ON n.id = x.annotator_id WHERE n.study_id = ?1 AND n.pilot = 1)`,
		studyID).Scan(&s.Sessions, &s.Answers)
	if err != nil {
		return s, fmt.Errorf("pilot summary: %w", err)
	}
	return s, nil
}

// fewestPilotsBatch is the study's batch with the fewest pilot sessions
// (the first by number among equals), domain.ErrNoBatches when it has
// none: where a pilot or a Prolific test participant goes.
func fewestPilotsBatch(ctx context.Context, tx *sql.Tx, studyID int64) (int64, error) {
	var batchID int64
	err := tx.QueryRowContext(ctx, `
		SELECT b.id FROM batches b WHERE b.study_id = ? AND b.retired = 0
		ORDER BY (SELECT COUNT(*) FROM crowd_participants p WHERE p.batch_id = b.id AND p.pilot = 1), b.number
		LIMIT 1`, studyID).Scan(&batchID)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, domain.ErrNoBatches
	}
	return batchID, err
}
