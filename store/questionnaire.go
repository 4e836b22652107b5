package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// QuestionnaireSettings turn the fields of a crowd study's post-study
// questionnaire on (docs/studies.md#post-study-questionnaire); all off, no
// questionnaire.
type QuestionnaireSettings struct {
	Languages bool `json:"native_languages"`
	Age       bool `json:"age_range"`
	Gender    bool `json:"gender"`
	Comments  bool `json:"comments"`
}

// On reports whether any field is asked.
func (q QuestionnaireSettings) On() bool { return q.Languages || q.Age || q.Gender || q.Comments }

// The answers the questionnaire offers; "" is no answer.
var (
	AgeRanges = []string{"18-24", "25-34", "35-44", "45-54", "55-64", "65+", "no_answer"}
	Genders   = []string{"woman", "man", "non_binary", "other", "no_answer"}
)

// Questionnaire is one participant's answers.
type Questionnaire struct {
	NativeLanguages string
	AgeRange        string
	Gender          string
	Comments        string
}

// Validate checks the answers against the fields asked, dropping those not
// asked; the message names the field.
func (q *Questionnaire) Validate(s QuestionnaireSettings) error {
	q.NativeLanguages, q.Comments = strings.TrimSpace(q.NativeLanguages), strings.TrimSpace(q.Comments)
	if !s.Languages {
		q.NativeLanguages = ""
	}
	if !s.Age {
		q.AgeRange = ""
	}
	if !s.Gender {
		q.Gender = ""
	}
	if !s.Comments {
		q.Comments = ""
	}
	switch {
	case !utf8.ValidString(q.NativeLanguages) || utf8.RuneCountInString(q.NativeLanguages) > 200:
		return Errorf(EINVALID, "native languages: at most 200 characters")
	case q.AgeRange != "" && !slices.Contains(AgeRanges, q.AgeRange):
		return Errorf(EINVALID, "age range: choose one of the ranges")
	case q.Gender != "" && !slices.Contains(Genders, q.Gender):
		return Errorf(EINVALID, "gender: choose one of the answers")
	case !utf8.ValidString(q.Comments) || utf8.RuneCountInString(q.Comments) > 2000:
		return Errorf(EINVALID, "comments: at most 2000 characters")
	}
	return nil
}

// SaveQuestionnaire stores a completed participant's answers, once: a
// second send changes nothing.
func (db *DB) SaveQuestionnaire(ctx context.Context, studyID int64, token string, s QuestionnaireSettings, q Questionnaire) error {
	if err := q.Validate(s); err != nil {
		return err
	}
	res, err := db.write.ExecContext(ctx, `
		INSERT INTO crowd_questionnaires (participant_id, native_languages, age_range, gender, comments, answered_at)
		SELECT id, ?, ?, ?, ?, ? FROM crowd_participants WHERE study_id = ? AND token = ? AND status = 'completed'
		ON CONFLICT (participant_id) DO NOTHING`,
		q.NativeLanguages, q.AgeRange, q.Gender, q.Comments, db.now(), studyID, token)
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
func (db *DB) questionnaires(ctx context.Context, studyID int64) (map[int64]Questionnaire, error) {
	type row struct {
		id int64
		q  Questionnaire
	}
	rows, err := queryRows(ctx, db, "questionnaires", `
		SELECT q.participant_id, q.native_languages, q.age_range, q.gender, q.comments
		FROM crowd_questionnaires q JOIN crowd_participants p ON p.id = q.participant_id
		WHERE p.study_id = ?`, []any{studyID}, func(rows *sql.Rows, r *row) error {
		return rows.Scan(&r.id, &r.q.NativeLanguages, &r.q.AgeRange, &r.q.Gender, &r.q.Comments)
	})
	if err != nil {
		return nil, err
	}
	out := make(map[int64]Questionnaire, len(rows))
	for _, r := range rows {
		out[r.id] = r.q
	}
	return out, nil
}
