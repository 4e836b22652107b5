package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Study kinds (docs/studies.md#common-rules).
const (
	KindExpert  = "expert"
	KindCrowd   = "crowd"
	KindContext = "context"
	KindExplain = "explain"
)

// Study is one study of any kind; Settings hold the kind's own options as
// JSON, decoded by the code of that kind.
type Study struct {
	ID        int64
	Kind      string
	Name      string
	Lang      string
	Settings  json.RawMessage
	Seed      int64
	CreatedAt time.Time
	// ArchivedAt is zero while the study is in use; an archived study is
	// hidden from the dashboard and read-only until restored.
	ArchivedAt time.Time
	// ExportedAt is when a file of its responses was last downloaded.
	ExportedAt time.Time
}

// Archived reports whether the study is archived.
func (s *Study) Archived() bool { return !s.ArchivedAt.IsZero() }

// Validate checks the fields a researcher types.
func (s *Study) Validate() error {
	switch s.Kind {
	case KindExpert, KindCrowd, KindContext, KindExplain:
	default:
		return Errorf(EINVALID, "kind must be expert, crowd, context or explain")
	}
	s.Name = strings.TrimSpace(s.Name)
	if s.Name == "" || utf8.RuneCountInString(s.Name) > 200 {
		return Errorf(EINVALID, "name must be 1–200 characters")
	}
	if s.Lang != "en" && s.Lang != "it" {
		return Errorf(EINVALID, "language must be en or it")
	}
	if len(s.Settings) == 0 {
		s.Settings = json.RawMessage(`{}`)
	}
	if !json.Valid(s.Settings) {
		return Errorf(EINVALID, "settings are not valid JSON")
	}
	return nil
}

// DecodeSettings fills v from the study's settings JSON; fields absent from
// the JSON keep the defaults v already holds.
func (s *Study) DecodeSettings(v any) error {
	if len(s.Settings) == 0 {
		return nil
	}
	if err := json.Unmarshal(s.Settings, v); err != nil {
		return fmt.Errorf("study %d settings: %w", s.ID, err)
	}
	return nil
}

// CreateStudy stores a new study and sets its ID.
func (db *DB) CreateStudy(ctx context.Context, s *Study) error {
	if err := s.Validate(); err != nil {
		return err
	}
	if s.Seed == 0 {
		s.Seed = db.Now().UnixNano()%1_000_000 + 1
	}
	s.CreatedAt = db.Now()
	res, err := db.write.ExecContext(ctx, `
		INSERT INTO studies (kind, name, lang, settings, seed, created_at)
		VALUES (?, ?, ?, ?, ?, ?)`, s.Kind, s.Name, s.Lang, string(s.Settings), s.Seed, s.CreatedAt.Format(time.RFC3339Nano))
	if err != nil {
		return fmt.Errorf("create study: %w", err)
	}
	s.ID, err = res.LastInsertId()
	return err
}

// UpdateStudy saves a study's name, language, settings and seed.
func (db *DB) UpdateStudy(ctx context.Context, s *Study) error {
	if err := s.Validate(); err != nil {
		return err
	}
	res, err := db.write.ExecContext(ctx, `
		UPDATE studies SET name = ?, lang = ?, settings = ?, seed = ? WHERE id = ?`,
		s.Name, s.Lang, string(s.Settings), s.Seed, s.ID)
	if err != nil {
		return fmt.Errorf("update study: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return Errorf(ENOTFOUND, "study %d not found", s.ID)
	}
	return nil
}

// SetStudySettings encodes v as the study's settings.
func (db *DB) SetStudySettings(ctx context.Context, id int64, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("study settings: %w", err)
	}
	res, err := db.write.ExecContext(ctx, `UPDATE studies SET settings = ? WHERE id = ?`, string(b), id)
	if err != nil {
		return fmt.Errorf("study settings: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return Errorf(ENOTFOUND, "study %d not found", id)
	}
	return nil
}

const studyColumns = `id, kind, name, lang, settings, seed, created_at, archived_at, exported_at`

func scanStudy(sc interface{ Scan(...any) error }) (*Study, error) {
	var s Study
	var settings, created, archived, exported string
	if err := sc.Scan(&s.ID, &s.Kind, &s.Name, &s.Lang, &settings, &s.Seed, &created, &archived, &exported); err != nil {
		return nil, err
	}
	s.Settings = json.RawMessage(settings)
	s.CreatedAt = parseTime(created)
	s.ArchivedAt = parseTime(archived)
	s.ExportedAt = parseTime(exported)
	return &s, nil
}

// Study returns the study with the given id.
func (db *DB) Study(ctx context.Context, id int64) (*Study, error) {
	s, err := scanStudy(db.read.QueryRowContext(ctx, `SELECT `+studyColumns+` FROM studies WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, Errorf(ENOTFOUND, "study %d not found", id)
	}
	if err != nil {
		return nil, fmt.Errorf("study: %w", err)
	}
	return s, nil
}

// Studies lists every study, newest first.
func (db *DB) Studies(ctx context.Context) ([]*Study, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT `+studyColumns+` FROM studies ORDER BY id DESC`)
	if err != nil {
		return nil, fmt.Errorf("studies: %w", err)
	}
	defer rows.Close()
	var out []*Study
	for rows.Next() {
		s, err := scanStudy(rows)
		if err != nil {
			return nil, fmt.Errorf("studies: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
