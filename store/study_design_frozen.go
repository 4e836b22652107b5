package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"pragmalab/domain"
)

// The frozen design (docs/studies.md#frozen-design): once a study has
// opened, the settings a participant sees while rating or that change what
// a rating means stay as they were, and the design file it opened with is
// kept.

// designFrozen says whether study id's design is frozen — it is not a
// draft, or it has opened once — and gives its state; tx is the
// transaction of the save that asks.
func designFrozen(ctx context.Context, tx *sql.Tx, id int64) (state string, frozen bool, err error) {
	var opened int
	err = tx.QueryRowContext(ctx, `
		SELECT state, EXISTS (SELECT 1 FROM study_state_changes WHERE study_id = studies.id AND state = 'open')
		FROM studies WHERE id = ?`, id).Scan(&state, &opened)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, domain.Errorf(domain.ENOTFOUND, "study %d not found", id)
	}
	if err != nil {
		return "", false, fmt.Errorf("study state: %w", err)
	}
	return state, state != domain.StateDraft || opened == 1, nil
}

// checkCrowdFrozen refuses, inside tx, a save of crowd study id's settings
// next (and language lang, "" for the one it has) that changes a frozen
// setting of a study that has opened (domain.ErrFrozenDesign).
func checkCrowdFrozen(ctx context.Context, tx *sql.Tx, id int64, lang string, next domain.CrowdSettings) error {
	state, frozen, err := designFrozen(ctx, tx, id)
	if err != nil || !frozen {
		return err
	}
	changed, _, _, err := frozenChanges(ctx, tx, id, lang, next)
	if err != nil {
		return err
	}
	if len(changed) > 0 {
		return domain.ErrFrozenDesign(id, state, changed)
	}
	return nil
}

// frozenChanges names, inside tx, the frozen settings that next (and
// language lang, "" for the one it has) would change of crowd study id's
// stored design, with the stored language and settings JSON.
func frozenChanges(ctx context.Context, tx *sql.Tx, id int64, lang string, next domain.CrowdSettings) (changed []string, oldLang, raw string, err error) {
	var kind string
	if err := tx.QueryRowContext(ctx, `SELECT kind, lang, settings FROM studies WHERE id = ?`, id).Scan(&kind, &oldLang, &raw); err != nil {
		return nil, "", "", fmt.Errorf("crowd settings: %w", err)
	}
	old := domain.SettingsFor(kind)
	if err := json.Unmarshal([]byte(raw), &old); err != nil {
		return nil, "", "", fmt.Errorf("crowd study %d settings: %w", id, err)
	}
	if lang != "" && lang != oldLang {
		changed = append(changed, "lang")
	}
	return append(changed, domain.FrozenCrowdChanges(old, next)...), oldLang, raw, nil
}

// OpenStudyWithDesign moves study id to open (by whom), keeping design as
// the design file it opened with (nil: it has one kept already, which a
// design never replaces): the state, its change and the kept design are
// one transaction.
func (db *DB) OpenStudyWithDesign(ctx context.Context, id int64, by string, design []byte) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		if err := setStudyState(ctx, tx, id, domain.StateOpen, by, db.now()); err != nil {
			return err
		}
		if design == nil {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `
			INSERT INTO study_opening_designs (study_id, opened_at, design) VALUES (?, ?, ?)
			ON CONFLICT (study_id) DO NOTHING`, id, db.now(), string(design)); err != nil {
			return fmt.Errorf("keep the opening design: %w", err)
		}
		return keepDesignVersionOne(ctx, tx, id, db.now(), design)
	})
}

// HasOpeningDesign says whether study id has kept the design it opened
// with.
func (db *DB) HasOpeningDesign(ctx context.Context, id int64) (bool, error) {
	var n int
	if err := db.q(nil).QueryRowContext(ctx, `SELECT COUNT(*) FROM study_opening_designs WHERE study_id = ?`, id).Scan(&n); err != nil {
		return false, fmt.Errorf("opening design: %w", err)
	}
	return n > 0, nil
}

// OpeningDesign returns the design file study id opened with, byte for
// byte, and when it first opened; ENOTFOUND when it has not opened since
// designs were kept.
func (db *DB) OpeningDesign(ctx context.Context, id int64) ([]byte, string, error) {
	var design, at string
	err := db.q(nil).QueryRowContext(ctx, `SELECT design, opened_at FROM study_opening_designs WHERE study_id = ?`, id).Scan(&design, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, "", domain.Errorf(domain.ENOTFOUND, "study %d has no design kept from its opening: it has not opened since pragmalab kept them", id)
	}
	if err != nil {
		return nil, "", fmt.Errorf("opening design: %w", err)
	}
	return []byte(design), at, nil
}
