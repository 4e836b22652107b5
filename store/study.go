package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"pragmalab/domain"
	"time"
)

// CreateStudy stores a new study and sets its ID.
func (db *DB) CreateStudy(ctx context.Context, s *domain.Study) error {
	if err := s.Validate(); err != nil {
		return err
	}
	if s.Seed == 0 {
		s.Seed = db.Now().UnixNano()%1_000_000 + 1
	}
	s.CreatedAt = db.Now()
	// A new study is a draft: nobody answers before the researcher opens
	// it, whatever the caller put in State.
	s.State = domain.StateDraft
	res, err := db.exec(ctx, `
		INSERT INTO studies (kind, name, lang, settings, seed, state, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, s.Kind, s.Name, s.Lang, string(s.Settings), s.Seed, s.State, s.CreatedAt.Format(time.RFC3339Nano))
	if err != nil {
		return fmt.Errorf("create study: %w", err)
	}
	s.ID, err = res.LastInsertId()
	return err
}

// UpdateStudy saves a study's name, language, settings and seed.
func (db *DB) UpdateStudy(ctx context.Context, s *domain.Study) error {
	if err := s.Validate(); err != nil {
		return err
	}
	res, err := db.exec(ctx, `
		UPDATE studies SET name = ?, lang = ?, settings = ?, seed = ? WHERE id = ?`,
		s.Name, s.Lang, string(s.Settings), s.Seed, s.ID)
	if err != nil {
		return fmt.Errorf("update study: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return domain.Errorf(domain.ENOTFOUND, "study %d not found", s.ID)
	}
	return nil
}

// SetStudySettings encodes v as the study's settings.
func (db *DB) SetStudySettings(ctx context.Context, id int64, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("study settings: %w", err)
	}
	res, err := db.exec(ctx, `UPDATE studies SET settings = ? WHERE id = ?`, string(b), id)
	if err != nil {
		return fmt.Errorf("study settings: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return domain.Errorf(domain.ENOTFOUND, "study %d not found", id)
	}
	return nil
}

const studyColumns = `id, kind, name, lang, settings, seed, state, created_at, archived_at, exported_at`

func scanStudy(sc interface{ Scan(...any) error }) (*domain.Study, error) {
	var s domain.Study
	var settings, created, archived, exported string
	if err := sc.Scan(&s.ID, &s.Kind, &s.Name, &s.Lang, &settings, &s.Seed, &s.State, &created, &archived, &exported); err != nil {
		return nil, err
	}
	s.Settings = json.RawMessage(settings)
	s.CreatedAt = parseTime(created)
	s.ArchivedAt = parseTime(archived)
	s.ExportedAt = parseTime(exported)
	return &s, nil
}

// domain.Study returns the study with the given id.
func (db *DB) Study(ctx context.Context, id int64) (*domain.Study, error) {
	s, err := scanStudy(db.read.QueryRowContext(ctx, `SELECT `+studyColumns+` FROM studies WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, domain.Errorf(domain.ENOTFOUND, "study %d not found", id)
	}
	if err != nil {
		return nil, fmt.Errorf("study: %w", err)
	}
	return s, nil
}

// Studies lists every study, newest first.
func (db *DB) Studies(ctx context.Context) ([]*domain.Study, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT `+studyColumns+` FROM studies ORDER BY id DESC`)
	if err != nil {
		return nil, fmt.Errorf("studies: %w", err)
	}
	defer rows.Close()
	var out []*domain.Study
	for rows.Next() {
		s, err := scanStudy(rows)
		if err != nil {
			return nil, fmt.Errorf("studies: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// SetStudyState moves a study to state and records who did it. It checks
// nothing else: the go-live checklist is studies.OpenStudy's, which every
// caller opening a study for real goes through.
func (db *DB) SetStudyState(ctx context.Context, id int64, state, by string) error {
	if !domain.IsStudyState(state) {
		return domain.Errorf(domain.EINVALID, "state must be draft, open, paused or closed, got %q", state)
	}
	return db.tx(ctx, func(tx *sql.Tx) error { return setStudyState(ctx, tx, id, state, by, db.now()) })
}

// setStudyState is SetStudyState inside tx, at time at.
func setStudyState(ctx context.Context, tx *sql.Tx, id int64, state, by, at string) error {
	res, err := tx.ExecContext(ctx, `UPDATE studies SET state = ? WHERE id = ?`, state, id)
	if err != nil {
		return fmt.Errorf("set study state: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return domain.Errorf(domain.ENOTFOUND, "study %d not found", id)
	}
	if _, err := tx.ExecContext(ctx, `
		INSERT INTO study_state_changes (study_id, state, changed_by, changed_at) VALUES (?, ?, ?, ?)`,
		id, state, by, at); err != nil {
		return fmt.Errorf("set study state: %w", err)
	}
	return nil
}

// StudyStateChanges lists a study's changes of state, newest first.
func (db *DB) StudyStateChanges(ctx context.Context, id int64) ([]domain.StateChange, error) {
	return queryRows(ctx, db, "study state changes", `
		SELECT state, changed_by, changed_at FROM study_state_changes WHERE study_id = ? ORDER BY id DESC`,
		[]any{id}, func(rows *sql.Rows, c *domain.StateChange) error {
			var at string
			err := rows.Scan(&c.State, &c.By, &at)
			c.ChangedAt = parseTime(at)
			return err
		})
}

// dataItemSQL selects the items counted as data items — active, neither
// attention check nor training item — by the dashboard and the go-live
// checklist, as domain.IsCountedData does for the pages and the command
// line.
const dataItemSQL = `status = 'active' AND check_kind = '' AND training = ''`

// StudyCounts are the counts the go-live checklist and the study pages
// read: what has been imported and built.
type StudyCounts struct {
	Items       int // active data items
	Checks      int // active attention-check items
	Batches     int
	BatchChecks int // attention checks placed in the batches
	Training    int // crowd training screens
	Passages    int
	Surveys     int
	Outputs     int // model explanations to rate
}

// StudyCounts counts a study's items, batches, passages and outputs.
func (db *DB) StudyCounts(ctx context.Context, id int64) (StudyCounts, error) {
	var c StudyCounts
	err := db.read.QueryRowContext(ctx, `
		SELECT
			(SELECT COUNT(*) FROM items WHERE study_id = ?1 AND `+dataItemSQL+`),
			(SELECT COUNT(*) FROM items WHERE study_id = ?1 AND status = 'active' AND check_kind != ''),
			(SELECT COUNT(*) FROM batches WHERE study_id = ?1 AND retired = 0),
			(SELECT COUNT(*) FROM batch_items bi JOIN batches b ON b.id = bi.batch_id JOIN items i ON i.id = bi.item_id
				WHERE b.study_id = ?1 AND b.retired = 0 AND i.check_kind != ''),
			(SELECT COUNT(*) FROM crowd_training WHERE study_id = ?1),
			(SELECT COUNT(*) FROM passages WHERE study_id = ?1),
			(SELECT COUNT(*) FROM context_surveys WHERE study_id = ?1),
			(SELECT COUNT(*) FROM explain_outputs WHERE study_id = ?1)`, id).
		Scan(&c.Items, &c.Checks, &c.Batches, &c.BatchChecks, &c.Training, &c.Passages, &c.Surveys, &c.Outputs)
	if err != nil {
		return c, fmt.Errorf("study counts: %w", err)
	}
	return c, nil
}
