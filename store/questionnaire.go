package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"pragmalab/domain"
	"slices"
)

// SaveQuestionnaire stores a completed participant's answers, once: a
// second send changes nothing. The form's integrity record (signals,
// honeypot, keystroke summary of its free text) goes in the same INSERT.
func (db *DB) SaveQuestionnaire(ctx context.Context, studyID int64, token string, s domain.QuestionnaireSettings, q domain.Questionnaire) error {
	if err := q.Validate(s); err != nil {
		return err
	}
	res, err := db.execKeeping(ctx, `
		INSERT INTO crowd_questionnaires (participant_id, native_languages, age_range, gender, comments, answered_at, `+integrityCols(true)+`)
		SELECT id, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? FROM crowd_participants WHERE study_id = ? AND token = ? AND status = 'completed'
		ON CONFLICT (participant_id) DO NOTHING`,
		slices.Concat([]any{q.NativeLanguages, q.AgeRange, q.Gender, q.Comments, db.now()}, integrityValues(q.Integrity, true), []any{studyID, token})...)
	if err != nil {
		return fmt.Errorf("questionnaire: %w", err)
	}
	_ = res
	return nil
}

// QuestionnaireSent tells whether a participant has sent the questionnaire.
func (db *DB) QuestionnaireSent(ctx context.Context, participantID int64) (bool, error) {
	var one int
	err := db.read.QueryRowContext(ctx, `SELECT 1 FROM crowd_questionnaires WHERE participant_id = ?`, participantID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("questionnaire: %w", err)
	}
	return true, nil
}

// questionnaires returns the answers of a study's participants by id.
func (db *DB) questionnaires(ctx context.Context, studyID int64) (map[int64]domain.Questionnaire, error) {
	type row struct {
		id int64
		q  domain.Questionnaire
	}
	rows, err := queryRows(ctx, db, "questionnaires", `
		SELECT q.participant_id, q.native_languages, q.age_range, q.gender, q.comments, `+integritySQL("q", true)+`
		FROM crowd_questionnaires q JOIN crowd_participants p ON p.id = q.participant_id
		WHERE p.study_id = ?`, []any{studyID}, func(rows *sql.Rows, r *row) error {
		var in IntegrityRecord
		dst, filled := in.dest(true)
		err := rows.Scan(slices.Concat([]any{&r.id, &r.q.NativeLanguages, &r.q.AgeRange, &r.q.Gender, &r.q.Comments}, dst)...)
		filled()
		r.q.Integrity = in.Integrity
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make(map[int64]domain.Questionnaire, len(rows))
	for _, r := range rows {
		out[r.id] = r.q
	}
	return out, nil
}
