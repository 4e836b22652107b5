package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"pragmalab/domain"
)

// Design versions (docs/studies.md#design-versions): a crowd or judgement
// study that has opened keeps its frozen settings, or starts a new
// version of its design with changed ones. Each version is a row of
// study_design_versions; a batch belongs to the version it was built
// for (batches.design_version), so a rating carries its version through
// its participant's batch — a rating row never needs a column of its
// own, and a participant, whose screens are one batch's, is of one
// version. The batches of earlier versions are retired: kept with
// their participants and ratings, given to no newcomer.

// DesignVersion is one kept version of a study's design.
type DesignVersion struct {
	Version   int
	Lang      string
	Settings  json.RawMessage
	Design    []byte
	CreatedAt string
	// Batches and Participants count the version's batches and the
	// participants (pilots not counted) who were given one.
	Batches, Participants int
}

// DesignVersions lists the kept versions of study id's design, oldest
// first; none for a study that has not opened since versions were kept.
func (db *DB) DesignVersions(ctx context.Context, id int64) ([]DesignVersion, error) {
	return queryRows(ctx, db, "design versions", `
		SELECT v.version, v.lang, v.settings, v.design, v.created_at,
			(SELECT COUNT(*) FROM batches b WHERE b.study_id = v.study_id AND b.design_version = v.version),
			(SELECT COUNT(*) FROM crowd_participants p JOIN batches b ON b.id = p.batch_id
				WHERE p.study_id = v.study_id AND b.design_version = v.version AND p.pilot = 0)
		FROM study_design_versions v WHERE v.study_id = ? ORDER BY v.version`, []any{id},
		func(rows *sql.Rows, v *DesignVersion) error {
			var set, design string
			if err := rows.Scan(&v.Version, &v.Lang, &set, &design, &v.CreatedAt, &v.Batches, &v.Participants); err != nil {
				return err
			}
			v.Settings, v.Design = json.RawMessage(set), []byte(design)
			return nil
		})
}

// DesignVersionFile returns the design file of version k of study id, as
// it was kept; ENOTFOUND naming the versions there are.
func (db *DB) DesignVersionFile(ctx context.Context, id int64, k int) ([]byte, error) {
	var design string
	err := db.q(nil).QueryRowContext(ctx, `SELECT design FROM study_design_versions WHERE study_id = ? AND version = ?`, id, k).Scan(&design)
	if errors.Is(err, sql.ErrNoRows) {
		var n int
		if err := db.q(nil).QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM study_design_versions WHERE study_id = ?`, id).Scan(&n); err != nil {
			return nil, fmt.Errorf("design version: %w", err)
		}
		if n == 0 {
			return nil, domain.Errorf(domain.ENOTFOUND, "study %d has no design version kept: it has not opened since pragmalab kept them", id)
		}
		return nil, domain.Errorf(domain.ENOTFOUND, "study %d has no design version %d: its versions are 1 to %d", id, k, n)
	}
	if err != nil {
		return nil, fmt.Errorf("design version: %w", err)
	}
	return []byte(design), nil
}

// CurrentDesignVersion is the version of study id's design newcomers are
// given: the highest kept, 1 when none is.
func (db *DB) CurrentDesignVersion(ctx context.Context, id int64) (int, error) {
	var n int
	if err := db.q(nil).QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 1) FROM study_design_versions WHERE study_id = ?`, id).Scan(&n); err != nil {
		return 0, fmt.Errorf("design version: %w", err)
	}
	return n, nil
}

// NewDesignVersion is what StartDesignVersion stores: the new version's
// language, settings and design file, its training (or practice) items
// and batches as planned from the study's items and seed, and the design
// file of the version it follows, kept as version 1 when the study has
// none kept.
type NewDesignVersion struct {
	Lang     string
	Settings domain.CrowdSettings
	Design   []byte
	Previous []byte
	Training []CrowdSlot
	Batches  [][]CrowdSlot
}

// StartDesignVersion starts the next version of crowd study id's design
// in one transaction (docs/studies.md#design-versions): it keeps the
// version, retires the batches of the current one, saves the new
// batches, training and settings, and moves on the sessions left in the
// retired batches that hold a place but rate nothing now (not consented,
// or idle past the time-out), and the pilot sessions there, which would
// otherwise rate a retired batch on the new version's settings. It refuses, changing nothing, a study that
// has not opened (a draft saves its settings), a change of no frozen
// setting, and a study with participants rating under the current
// version now. It returns the new version's number.
func (db *DB) StartDesignVersion(ctx context.Context, id int64, v NewDesignVersion) (int, error) {
	if err := v.Settings.Validate(); err != nil {
		return 0, err
	}
	if len(v.Batches) == 0 {
		return 0, domain.Errorf(domain.EINVALID, "no batches to save")
	}
	b, err := json.Marshal(v.Settings)
	if err != nil {
		return 0, fmt.Errorf("design version: %w", err)
	}
	st, old, err := db.loadCrowdStudy(ctx, id)
	if err != nil {
		return 0, err
	}
	next := *st
	next.Lang, next.Settings = v.Lang, b
	if err := next.Validate(); err != nil {
		return 0, err
	}
	var version int
	err = db.tx(ctx, func(tx *sql.Tx) error {
		state, frozen, err := designFrozen(ctx, tx, id)
		if err != nil {
			return err
		}
		if !frozen {
			return domain.Errorf(domain.ECONFLICT, "study %d has not opened (it is %s): its design is not frozen, so save the settings instead; design versions start only once a study has opened", id, state)
		}
		changed, lang, raw, err := frozenChanges(ctx, tx, id, v.Lang, v.Settings)
		if err != nil {
			return err
		}
		// The time-out below is the stored design's, read in this
		// transaction.
		old = domain.SettingsFor(st.Kind)
		if err := json.Unmarshal([]byte(raw), &old); err != nil {
			return fmt.Errorf("crowd study %d settings: %w", id, err)
		}
		if len(changed) == 0 {
			return domain.Errorf(domain.EINVALID, "these settings change no frozen setting of study %d: save them as settings; a new design version is for a change of %s", id, strings.Join(domain.FrozenCrowdSettingNames(), ", "))
		}
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM study_design_versions WHERE study_id = ?`, id).Scan(&version); err != nil {
			return fmt.Errorf("design version: %w", err)
		}
		cur := max(version, 1)
		_, idle := db.cutoffs(old)
		var rating int
		if err := tx.QueryRowContext(ctx, `
			SELECT COUNT(*) FROM crowd_participants p JOIN batches b ON b.id = p.batch_id
			WHERE p.study_id = ? AND b.retired = 0 AND p.pilot = 0 AND p.status = 'active'
				AND p.consented_at IS NOT NULL AND p.last_seen_at >= ?`, id, idle).Scan(&rating); err != nil {
			return fmt.Errorf("design version: %w", err)
		}
		if rating > 0 {
			return domain.Errorf(domain.ECONFLICT, "%d participant(s) of study %d are rating under design version %d now (consented, not finished, not timed out): "+
				"a new version would change the design under them, so nothing was changed. Pause the study (`pragmalab study pause --study %d`, or Pause on its page) and let them finish, "+
				"or time out after %d minutes without an answer; then start design version %d again",
				rating, id, cur, id, int(old.Timeout().Minutes()), cur+1)
		}
		now := db.now()
		if version == 0 {
			// The study opened before versions were kept: what it ran
			// until now is version 1.
			if _, err := tx.ExecContext(ctx, `
				INSERT INTO study_design_versions (study_id, version, lang, settings, design, created_at)
				VALUES (?, 1, ?, ?, ?, COALESCE((SELECT opened_at FROM study_opening_designs WHERE study_id = ?), ?))`,
				id, lang, raw, string(v.Previous), id, now); err != nil {
				return fmt.Errorf("keep design version 1: %w", err)
			}
			version = 1
		}
		version++
		if _, err := tx.ExecContext(ctx, `
			INSERT INTO study_design_versions (study_id, version, lang, settings, design, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
			id, version, v.Lang, string(b), string(v.Design), now); err != nil {
			return fmt.Errorf("keep design version %d: %w", version, err)
		}
		if _, err := tx.ExecContext(ctx, `
			UPDATE crowd_participants SET status = 'moved_on'
			WHERE study_id = ? AND status = 'active'
				AND batch_id IN (SELECT id FROM batches WHERE study_id = ? AND retired = 0)`, id, id); err != nil {
			return fmt.Errorf("design version: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE batches SET retired = 1 WHERE study_id = ? AND retired = 0`, id); err != nil {
			return fmt.Errorf("retire the batches of design version %d: %w", cur, err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM crowd_training WHERE study_id = ?`, id); err != nil {
			return fmt.Errorf("design version: %w", err)
		}
		for i, sl := range v.Training {
			if err := insertCrowdSlot(ctx, tx, `INSERT INTO crowd_training (study_id, position, item_id, condition)
				SELECT ?, ?, id, ? FROM items WHERE id = ? AND study_id = ?`, id, id, i+1, sl); err != nil {
				return err
			}
		}
		var first int
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(number), 0) FROM batches WHERE study_id = ?`, id).Scan(&first); err != nil {
			return fmt.Errorf("design version: %w", err)
		}
		for i, slots := range v.Batches {
			res, err := tx.ExecContext(ctx, `INSERT INTO batches (study_id, number, design_version) VALUES (?, ?, ?)`, id, first+i+1, version)
			if err != nil {
				return fmt.Errorf("design version %d batches: %w", version, err)
			}
			bid, _ := res.LastInsertId()
			for pos, sl := range slots {
				if err := insertCrowdSlot(ctx, tx, `INSERT INTO batch_items (batch_id, position, condition, item_id)
					SELECT ?, ?, ?, id FROM items WHERE id = ? AND study_id = ?`, id, bid, pos+1, sl); err != nil {
					return err
				}
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE studies SET lang = ?, settings = ? WHERE id = ?`, v.Lang, string(b), id); err != nil {
			return fmt.Errorf("design version %d settings: %w", version, err)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return version, nil
}

// keepDesignVersionOne keeps, inside tx, the design study id opened with
// as its version 1 (nothing when one is kept).
func keepDesignVersionOne(ctx context.Context, tx *sql.Tx, id int64, at string, design []byte) error {
	if _, err := tx.ExecContext(ctx, `
		INSERT INTO study_design_versions (study_id, version, lang, settings, design, created_at)
		SELECT id, 1, lang, settings, ?, ? FROM studies WHERE id = ?
		ON CONFLICT (study_id, version) DO NOTHING`, string(design), at, id); err != nil {
		return fmt.Errorf("keep design version 1: %w", err)
	}
	return nil
}
