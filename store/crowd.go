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

// crowdStudyTTL is how long a decoded crowd study is reused: every
// participant request needs it. Any admin write empties the cache when it
// commits (DB.tx), so a researcher's change reaches the participants at
// once, and so does a write by another process once the writer sees it
// (within a second: DB.checkDataVersion); the time is a bound should that
// look ever fail.
const crowdStudyTTL = 30 * time.Second

type cachedCrowdStudy struct {
	study *domain.Study
	s     domain.CrowdSettings
	at    time.Time
}

// CrowdStudy returns a crowd study and its settings (defaults filled in).
// The caller gets its own copy.
func (db *DB) CrowdStudy(ctx context.Context, id int64) (*domain.Study, domain.CrowdSettings, error) {
	if c, ok := db.hot.studies.Load(id); ok {
		c := c.(cachedCrowdStudy)
		if time.Since(c.at) < crowdStudyTTL {
			st := *c.study
			s := c.s
			s.Conditions = append([]string(nil), c.s.Conditions...)
			s.Training = append([]domain.CrowdTrainingSpec(nil), c.s.Training...)
			return &st, s, nil
		}
	}
	gen := db.hot.kept.Load()
	st, s, err := db.loadCrowdStudy(ctx, id)
	if err == nil {
		cp := *st
		db.keep(&db.hot.studies, id, cachedCrowdStudy{study: &cp, s: s, at: time.Now()}, gen)
	}
	return st, s, err
}

func (db *DB) loadCrowdStudy(ctx context.Context, id int64) (*domain.Study, domain.CrowdSettings, error) {
	// The study is read on every participant request: prepared.
	st, err := scanStudy(db.q(nil).QueryRowContext(ctx, `SELECT `+studyColumns+` FROM studies WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, domain.CrowdSettings{}, domain.Errorf(domain.ENOTFOUND, "study %d not found", id)
	}
	if err != nil {
		return nil, domain.CrowdSettings{}, fmt.Errorf("crowd study: %w", err)
	}
	if !domain.IsCrowdKind(st.Kind) {
		return nil, domain.CrowdSettings{}, domain.Errorf(domain.ENOTFOUND, "study %d is not a crowd study", id)
	}
	s := domain.SettingsFor(st.Kind)
	if err := json.Unmarshal(st.Settings, &s); err != nil {
		return nil, domain.CrowdSettings{}, fmt.Errorf("crowd study %d settings: %w", id, err)
	}
	return st, s, nil
}

// SaveCrowdSettings validates and stores a crowd study's settings; once
// the study has opened, a change of a frozen setting is refused
// (docs/studies.md#frozen-design).
func (db *DB) SaveCrowdSettings(ctx context.Context, id int64, s domain.CrowdSettings) error {
	if err := s.Validate(); err != nil {
		return err
	}
	if _, _, err := db.loadCrowdStudy(ctx, id); err != nil {
		return err
	}
	b, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("crowd settings: %w", err)
	}
	return db.tx(ctx, func(tx *sql.Tx) error {
		if err := checkCrowdFrozen(ctx, tx, id, "", s); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE studies SET settings = ? WHERE id = ?`, string(b), id); err != nil {
			return fmt.Errorf("crowd settings: %w", err)
		}
		return nil
	})
}

// SaveCrowdStudy stores a crowd study's settings and its language together,
// in one transaction: a refused language leaves the settings as they were,
// and the other way round. Once the study has opened, a change of the
// language or of a frozen setting is refused (docs/studies.md#frozen-design).
func (db *DB) SaveCrowdStudy(ctx context.Context, id int64, lang string, s domain.CrowdSettings) error {
	if err := s.Validate(); err != nil {
		return err
	}
	st, _, err := db.loadCrowdStudy(ctx, id)
	if err != nil {
		return err
	}
	b, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("crowd settings: %w", err)
	}
	next := *st
	next.Lang, next.Settings = lang, b
	if err := next.Validate(); err != nil {
		return err
	}
	return db.tx(ctx, func(tx *sql.Tx) error {
		if err := checkCrowdFrozen(ctx, tx, id, lang, s); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE studies SET lang = ?, settings = ? WHERE id = ?`, lang, string(b), id)
		if err != nil {
			return fmt.Errorf("crowd settings: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return domain.Errorf(domain.ENOTFOUND, "study %d not found", id)
		}
		return nil
	})
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
		return domain.Errorf(domain.EINVALID, "no batches to save")
	}
	return db.tx(ctx, func(tx *sql.Tx) error {
		if err := crowdBatchesRebuildable(ctx, tx, studyID); err != nil {
			return err
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
			// A study that started a design version before its first
			// participant builds that version's batches
			// (docs/studies.md#design-versions).
			res, err := tx.ExecContext(ctx, `INSERT INTO batches (study_id, number, design_version)
				VALUES (?, ?, (SELECT COALESCE(MAX(version), 1) FROM study_design_versions WHERE study_id = ?))`, studyID, i+1, studyID)
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

// crowdBatchesRebuildable refuses a study that is not a crowd study, or
// whose participants have started.
func crowdBatchesRebuildable(ctx context.Context, tx *sql.Tx, studyID int64) error {
	var kind string
	err := tx.QueryRowContext(ctx, `SELECT kind FROM studies WHERE id = ?`, studyID).Scan(&kind)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !domain.IsCrowdKind(kind)) {
		return domain.Errorf(domain.ENOTFOUND, "crowd study %d not found", studyID)
	}
	if err != nil {
		return fmt.Errorf("save crowd batches: %w", err)
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM crowd_participants WHERE study_id = ?`, studyID).Scan(&n); err != nil {
		return fmt.Errorf("save crowd batches: %w", err)
	}
	if n > 0 {
		return domain.Errorf(domain.ECONFLICT, "%d participants have already started: the batches cannot be rebuilt", n)
	}
	return nil
}

// insertCrowdSlot runs an INSERT … SELECT for one slot and fails when the
// item is not one of the study's.
func insertCrowdSlot(ctx context.Context, tx *sql.Tx, q string, studyID, owner int64, pos int, sl CrowdSlot) error {
	res, err := tx.ExecContext(ctx, q, owner, pos, sl.Condition, sl.ItemID, studyID)
	if err != nil {
		return fmt.Errorf("save crowd batches: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return domain.Errorf(domain.EINVALID, "item %d is not in the study", sl.ItemID)
	}
	return nil
}
