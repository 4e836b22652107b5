package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// CrowdSettings are the options of a crowd likelihood study
// (docs/studies.md#crowd-settings).
type CrowdSettings struct {
	BatchSize      int `json:"batch_size"`      // items per batch, checks not counted
	Quota          int `json:"quota"`           // participants per batch
	TimeoutMinutes int `json:"timeout_minutes"` // idle time after which a slot is free
	// A high check passes at a rating >= CheckHighMin, a low one at <=
	// CheckLowMax; a participant failing MaxFailedChecks or more is excluded.
	CheckHighMin    int `json:"check_high_min"`
	CheckLowMax     int `json:"check_low_max"`
	MaxFailedChecks int `json:"max_failed_checks"`
	// Conditions of the batches: trigger and cancel, and optionally
	// negation, strengthen, neutral.
	Conditions []string `json:"conditions"`
	// Training lists the training items by key; empty means the builder
	// picks the default mix (1 scalar, 2 discourse, 2 synthetic, 1 natural).
	Training       []CrowdTrainingSpec `json:"training,omitempty"`
	CompletionCode string              `json:"completion_code"`
	ScreenOutCode  string              `json:"screen_out_code"`
	// AllowPreview lets the study be opened without PROLIFIC_PID; such a
	// visit stores nothing.
	AllowPreview bool `json:"allow_preview"`
	// Participant texts; empty means the default of the study's language.
	Title   string `json:"title"`
	Intro   string `json:"intro"`
	Consent string `json:"consent"`
}

// CrowdTrainingSpec names one training item and whether it is shown with
// its cancellation.
type CrowdTrainingSpec struct {
	Key       string `json:"key"`
	Condition string `json:"condition"` // trigger | cancel
}

// DefaultCrowdSettings are the paper's: batches of 30, 5 participants each,
// 60 minutes, checks at ≥ 5 / ≤ 3, exclusion at 3 failed checks.
func DefaultCrowdSettings() CrowdSettings {
	return CrowdSettings{
		BatchSize: 30, Quota: 5, TimeoutMinutes: 60,
		CheckHighMin: 5, CheckLowMax: 3, MaxFailedChecks: 3,
		Conditions: []string{ConditionTrigger, ConditionCancel},
	}
}

var prolificCode = regexp.MustCompile(`^[A-Za-z0-9_-]{0,64}$`)

// Validate checks the settings; the message names the field.
func (s *CrowdSettings) Validate() error {
	for _, r := range []struct {
		name     string
		v        int
		min, max int
	}{
		{"batch size", s.BatchSize, 2, 1000},
		{"quota", s.Quota, 1, 1000},
		{"time-out (minutes)", s.TimeoutMinutes, 1, 7 * 24 * 60},
		{"high check threshold", s.CheckHighMin, 1, 7},
		{"low check threshold", s.CheckLowMax, 1, 7},
		{"failed checks for exclusion", s.MaxFailedChecks, 1, 1000},
	} {
		if r.v < r.min || r.v > r.max {
			return Errorf(EINVALID, "%s must be %d–%d, got %d", r.name, r.min, r.max, r.v)
		}
	}
	if len(s.Conditions) == 0 {
		s.Conditions = []string{ConditionTrigger, ConditionCancel}
	}
	seen := map[string]bool{}
	for _, c := range s.Conditions {
		if !IsCondition(c) {
			return Errorf(EINVALID, "conditions: unknown condition %q (%s)", c, strings.Join(Conditions, ", "))
		}
		if seen[c] {
			return Errorf(EINVALID, "conditions: %q given twice", c)
		}
		seen[c] = true
	}
	if !seen[ConditionTrigger] || !seen[ConditionCancel] {
		return Errorf(EINVALID, "conditions must include trigger and cancel")
	}
	if len(s.Training) > 50 {
		return Errorf(EINVALID, "training: at most 50 items")
	}
	for i, t := range s.Training {
		if t.Key == "" || utf8.RuneCountInString(t.Key) > 100 {
			return Errorf(EINVALID, "training line %d: item id must be 1–100 characters", i+1)
		}
		if t.Condition != ConditionTrigger && t.Condition != ConditionCancel {
			return Errorf(EINVALID, "training line %d (%s): condition must be trigger or cancel, got %q", i+1, t.Key, t.Condition)
		}
	}
	s.CompletionCode = strings.TrimSpace(s.CompletionCode)
	s.ScreenOutCode = strings.TrimSpace(s.ScreenOutCode)
	if !prolificCode.MatchString(s.CompletionCode) {
		return Errorf(EINVALID, "completion code must be up to 64 letters, digits, - or _")
	}
	if !prolificCode.MatchString(s.ScreenOutCode) {
		return Errorf(EINVALID, "screen-out code must be up to 64 letters, digits, - or _")
	}
	for _, f := range []struct {
		name string
		v    string
		max  int
	}{{"title", s.Title, 200}, {"intro", s.Intro, 10000}, {"consent", s.Consent, 10000}} {
		if !utf8.ValidString(f.v) || utf8.RuneCountInString(f.v) > f.max {
			return Errorf(EINVALID, "%s must be at most %d characters", f.name, f.max)
		}
	}
	return nil
}

// Timeout is the idle time after which an active session frees its slot.
func (s CrowdSettings) Timeout() time.Duration {
	return time.Duration(s.TimeoutMinutes) * time.Minute
}

// CheckPasses tells whether a rating passes an attention check.
func (s CrowdSettings) CheckPasses(check string, rating int) bool {
	switch check {
	case "high":
		return rating >= s.CheckHighMin
	case "low":
		return rating <= s.CheckLowMax
	}
	return true
}

// TrainingPasses is the feedback rule of docs/studies.md#crowd-training: a
// rating of 1–3 on an item without cancellation, or 5–7 on one with, must be
// tried again.
func TrainingPasses(condition string, rating int) bool {
	if condition == ConditionCancel {
		return rating < 5
	}
	return rating > 3
}

// crowdStudyTTL is how long a decoded crowd study is reused: every
// participant request needs it, and a researcher's change reaches the
// participants within this time (at once for changes made through
// SaveCrowdSettings and SaveCrowdBatches).
const crowdStudyTTL = 2 * time.Second

type cachedCrowdStudy struct {
	study *Study
	s     CrowdSettings
	at    time.Time
}

// CrowdStudy returns a crowd study and its settings (defaults filled in).
// The caller gets its own copy.
func (db *DB) CrowdStudy(ctx context.Context, id int64) (*Study, CrowdSettings, error) {
	if c, ok := db.hot.studies.Load(id); ok {
		c := c.(cachedCrowdStudy)
		if time.Since(c.at) < crowdStudyTTL {
			st := *c.study
			s := c.s
			s.Conditions = append([]string(nil), c.s.Conditions...)
			s.Training = append([]CrowdTrainingSpec(nil), c.s.Training...)
			return &st, s, nil
		}
	}
	st, s, err := db.loadCrowdStudy(ctx, id)
	if err == nil {
		cp := *st
		db.hot.studies.Store(id, cachedCrowdStudy{study: &cp, s: s, at: time.Now()})
	}
	return st, s, err
}

func (db *DB) forgetCrowdStudy(id int64) { db.hot.studies.Delete(id) }

func (db *DB) loadCrowdStudy(ctx context.Context, id int64) (*Study, CrowdSettings, error) {
	// The study is read on every participant request: prepared.
	st, err := scanStudy(db.q(nil).QueryRowContext(ctx, `SELECT `+studyColumns+` FROM studies WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, CrowdSettings{}, Errorf(ENOTFOUND, "study %d not found", id)
	}
	if err != nil {
		return nil, CrowdSettings{}, fmt.Errorf("crowd study: %w", err)
	}
	if st.Kind != KindCrowd {
		return nil, CrowdSettings{}, Errorf(ENOTFOUND, "study %d is not a crowd study", id)
	}
	s := DefaultCrowdSettings()
	if err := json.Unmarshal(st.Settings, &s); err != nil {
		return nil, CrowdSettings{}, fmt.Errorf("crowd study %d settings: %w", id, err)
	}
	return st, s, nil
}

// SaveCrowdSettings validates and stores a crowd study's settings.
func (db *DB) SaveCrowdSettings(ctx context.Context, id int64, s CrowdSettings) error {
	if err := s.Validate(); err != nil {
		return err
	}
	if _, _, err := db.loadCrowdStudy(ctx, id); err != nil {
		return err
	}
	defer db.forgetCrowdStudy(id)
	return db.SetStudySettings(ctx, id, s)
}

// CrowdSlot is one screen of a crowd batch or of the training, as stored.
type CrowdSlot struct {
	ItemID    int64
	Condition string
}

// SaveCrowdBatches replaces a crowd study's training items and batches and
// stores the seed they were built with. Refused once a participant has
// arrived, since their ratings point at the batch positions.
func (db *DB) SaveCrowdBatches(ctx context.Context, studyID, seed int64, training []CrowdSlot, batches [][]CrowdSlot) error {
	if len(batches) == 0 {
		return Errorf(EINVALID, "no batches to save")
	}
	defer db.forgetCrowdStudy(studyID) // the seed changes
	return db.tx(ctx, func(tx *sql.Tx) error {
		var kind string
		err := tx.QueryRowContext(ctx, `SELECT kind FROM studies WHERE id = ?`, studyID).Scan(&kind)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && kind != KindCrowd) {
			return Errorf(ENOTFOUND, "crowd study %d not found", studyID)
		}
		if err != nil {
			return fmt.Errorf("save crowd batches: %w", err)
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM crowd_participants WHERE study_id = ?`, studyID).Scan(&n); err != nil {
			return fmt.Errorf("save crowd batches: %w", err)
		}
		if n > 0 {
			return Errorf(ECONFLICT, "%d participants have already started: the batches cannot be rebuilt", n)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM crowd_training WHERE study_id = ?`, studyID); err != nil {
			return fmt.Errorf("save crowd batches: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM batches WHERE study_id = ?`, studyID); err != nil {
			return fmt.Errorf("save crowd batches: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE studies SET seed = ? WHERE id = ?`, seed, studyID); err != nil {
			return fmt.Errorf("save crowd batches: %w", err)
		}
		for i, sl := range training {
			if err := insertCrowdSlot(ctx, tx, `INSERT INTO crowd_training (study_id, position, item_id, condition)
				SELECT ?, ?, id, ? FROM items WHERE id = ? AND study_id = ?`, studyID, studyID, i+1, sl); err != nil {
				return err
			}
		}
		for i, slots := range batches {
			res, err := tx.ExecContext(ctx, `INSERT INTO batches (study_id, number) VALUES (?, ?)`, studyID, i+1)
			if err != nil {
				return fmt.Errorf("save crowd batches: %w", err)
			}
			bid, _ := res.LastInsertId()
			for pos, sl := range slots {
				if err := insertCrowdSlot(ctx, tx, `INSERT INTO batch_items (batch_id, position, condition, item_id)
					SELECT ?, ?, ?, id FROM items WHERE id = ? AND study_id = ?`, studyID, bid, pos+1, sl); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// insertCrowdSlot runs an INSERT … SELECT for one slot and fails when the
// item is not one of the study's.
func insertCrowdSlot(ctx context.Context, tx *sql.Tx, q string, studyID, owner int64, pos int, sl CrowdSlot) error {
	res, err := tx.ExecContext(ctx, q, owner, pos, sl.Condition, sl.ItemID, studyID)
	if err != nil {
		return fmt.Errorf("save crowd batches: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return Errorf(EINVALID, "item %d is not in the study", sl.ItemID)
	}
	return nil
}
