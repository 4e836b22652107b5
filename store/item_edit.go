package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"pragmalab/domain"
	"strconv"
	"strings"
)

// Correcting items (docs/items.md#correcting-items): every change makes a
// new version of the item, the old text kept as a revision, and every
// answer names the version it was given on.

// reviseTx stores old as a revision and next's text as the item's new
// version. next must be valid.
func (db *DB) reviseTx(ctx context.Context, tx *sql.Tx, old, next domain.Item, note string) error {
	if _, err := tx.ExecContext(ctx, `
		INSERT INTO item_revisions (item_id, version, type, context, utterance, implicature, cancellation,
			negation, strengthening, neutral, note, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, old.ID, old.Version, old.Type, old.Context, old.Utterance,
		old.Implicature, old.Cancellation, old.Negation, old.Strengthening, old.Neutral, note, db.now()); err != nil {
		return fmt.Errorf("revise item: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `
		UPDATE items SET type = ?, context = ?, utterance = ?, implicature = ?, cancellation = ?,
			negation = ?, strengthening = ?, neutral = ?, check_kind = ?, version = version + 1
		WHERE id = ?`, next.Type, next.Context, next.Utterance, next.Implicature, next.Cancellation,
		next.Negation, next.Strengthening, next.Neutral, next.Check, old.ID); err != nil {
		return fmt.Errorf("revise item: %w", err)
	}
	return nil
}

func itemTx(ctx context.Context, tx *sql.Tx, studyID, itemID int64) (domain.Item, error) {
	it, err := scanItem(tx.QueryRowContext(ctx, `SELECT `+itemColumns+` FROM items WHERE study_id = ? AND id = ?`, studyID, itemID))
	if errors.Is(err, sql.ErrNoRows) {
		return it, domain.Errorf(domain.ENOTFOUND, "item not found")
	}
	return it, err
}

// EditItem corrects one item in place: next holds every text field, its
// type and role (its ID, key, status and version are ignored). Nothing
// changed is not an error and makes no new version. It reports whether the
// item changed.
func (db *DB) EditItem(ctx context.Context, studyID, itemID int64, next domain.Item, note string) (bool, error) {
	changed := false
	err := db.tx(ctx, func(tx *sql.Tx) error {
		if err := judgementItemsFrozen(ctx, tx, studyID); err != nil {
			return err
		}
		it, err := itemTx(ctx, tx, studyID, itemID)
		if err != nil {
			return err
		}
		next.ID, next.Key, next.Status, next.Version = it.ID, it.Key, it.Status, it.Version
		if err := next.Validate(); err != nil {
			return domain.Errorf(domain.EINVALID, "%v", err)
		}
		if len(itemFieldChanges(it, next)) == 0 {
			return nil
		}
		changed = true
		return db.reviseTx(ctx, tx, it, next, strings.TrimSpace(note))
	})
	return changed, err
}

// ItemRevisions lists an item's earlier versions, newest first.
func (db *DB) ItemRevisions(ctx context.Context, itemID int64) ([]domain.Revision, error) {
	return queryRows(ctx, db, "item revisions", `
		SELECT version, type IS NULL, COALESCE(type, ''), COALESCE(context, ''), COALESCE(utterance, ''),
			implicature, cancellation, COALESCE(negation, ''), COALESCE(strengthening, ''), COALESCE(neutral, ''),
			note, created_at
		FROM item_revisions WHERE item_id = ? ORDER BY version DESC`, []any{itemID}, func(rows *sql.Rows, r *domain.Revision) error {
		it := &r.Item
		return rows.Scan(&r.Version, &r.Partial, &it.Type, &it.Context, &it.Utterance, &it.Implicature, &it.Cancellation,
			&it.Negation, &it.Strengthening, &it.Neutral, &r.Note, &r.At)
	})
}

// itemFieldChanges lists the fields in which b differs from a.
func itemFieldChanges(a, b domain.Item) []domain.FieldChange {
	var out []domain.FieldChange
	add := func(name, x, y string) {
		if x != y {
			out = append(out, domain.FieldChange{Field: name, Old: x, New: y})
		}
	}
	add("type", a.Type, b.Type)
	af, bf := a.TextFields(), b.TextFields()
	for i := range af {
		add(af[i].Name, *af[i].V, *bf[i].V)
	}
	add("check", a.Check, b.Check)
	return out
}

// diffItems compares a file's items with the study's, by key. Items of the
// study the file leaves out stay as they are.
func diffItems(current, file []domain.Item) domain.ItemUpdate {
	byKey := make(map[string]*domain.Item, len(current))
	for i := range current {
		byKey[current[i].Key] = &current[i]
	}
	var u domain.ItemUpdate
	h := sha256.New()
	for _, it := range file {
		old := byKey[it.Key]
		c := domain.ItemChange{Key: it.Key, New: it}
		if old != nil {
			c.Old = old
			c.Fields = itemFieldChanges(*old, it)
			if len(c.Fields) == 0 {
				u.Unchanged++
				continue
			}
			fmt.Fprintf(h, "%d@%d\x00", old.ID, old.Version)
		}
		for _, f := range it.TextFields() {
			fmt.Fprintf(h, "%s\x00", *f.V)
		}
		fmt.Fprintf(h, "%s\x00%s\x00%s\x01", it.Key, it.Type, it.Check)
		u.Changes = append(u.Changes, c)
	}
	u.Digest = hex.EncodeToString(h.Sum(nil))[:32]
	return u
}

// validateFile checks every item of a file, all or nothing.
func validateFile(items []domain.Item) error {
	if len(items) == 0 {
		return domain.Errorf(domain.EINVALID, "the file holds no items")
	}
	seen := make(map[string]int, len(items))
	for i := range items {
		if err := items[i].Validate(); err != nil {
			return domain.Errorf(domain.EINVALID, "item %d: %v", i+1, err)
		}
		if j, dup := seen[items[i].Key]; dup {
			return domain.Errorf(domain.EINVALID, "item %d: field \"id\": %q repeats item %d", i+1, items[i].Key, j)
		}
		seen[items[i].Key] = i + 1
	}
	return nil
}

// PreviewItemUpdate validates a re-imported items file and returns what
// applying it would change, without changing anything.
func (db *DB) PreviewItemUpdate(ctx context.Context, studyID int64, items []domain.Item) (domain.ItemUpdate, error) {
	if err := validateFile(items); err != nil {
		return domain.ItemUpdate{}, err
	}
	current, err := db.ListItems(ctx, studyID)
	if err != nil {
		return domain.ItemUpdate{}, err
	}
	return diffItems(current, items), nil
}

// ApplyItemUpdate applies a re-imported file in one transaction: changed
// items get a new version (the old text kept as a revision), new ids are
// added. digest must be the preview's: if the study's items changed in
// between, nothing is applied (domain.ECONFLICT).
func (db *DB) ApplyItemUpdate(ctx context.Context, studyID int64, items []domain.Item, digest, note string) (domain.ItemUpdate, error) {
	if err := validateFile(items); err != nil {
		return domain.ItemUpdate{}, err
	}
	var u domain.ItemUpdate
	err := db.tx(ctx, func(tx *sql.Tx) error {
		if err := studyExists(ctx, tx, studyID); err != nil {
			return err
		}
		if err := judgementItemsFrozen(ctx, tx, studyID); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT `+itemColumns+` FROM items WHERE study_id = ? ORDER BY id`, studyID)
		if err != nil {
			return err
		}
		var current []domain.Item
		for rows.Next() {
			it, err := scanItem(rows)
			if err != nil {
				rows.Close()
				return err
			}
			current = append(current, it)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		u = diffItems(current, items)
		if u.Digest != digest {
			return domain.Errorf(domain.ECONFLICT, "the study's items changed since the preview: nothing was applied; look at the changes again")
		}
		for _, c := range u.Changes {
			if c.Old != nil {
				if err := db.reviseTx(ctx, tx, *c.Old, c.New, note); err != nil {
					return err
				}
				continue
			}
			it := c.New
			if _, err := tx.ExecContext(ctx, `
				INSERT INTO items (study_id, key, type, context, utterance, implicature, cancellation,
					negation, strengthening, neutral, check_kind, training, variants)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, studyID, it.Key, it.Type, it.Context, it.Utterance,
				it.Implicature, it.Cancellation, it.Negation, it.Strengthening, it.Neutral, it.Check, it.Training, variantsValue(it.Variants)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil && domain.ErrorCode(err) == domain.EINTERNAL {
		err = fmt.Errorf("apply item update: %w", err)
	}
	return u, err
}

// SavePendingImport keeps an uploaded items file until the researcher has
// looked at its changes, and returns its id. Files left for more than a
// day are forgotten.
func (db *DB) SavePendingImport(ctx context.Context, studyID int64, filename string, data []byte) (int64, error) {
	var id int64
	err := db.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM item_reimports WHERE julianday(created_at) < julianday(?) - 1`, db.now()); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO item_reimports (study_id, filename, data, created_at) VALUES (?, ?, ?, ?)`,
			studyID, filename, data, db.now())
		if err != nil {
			return err
		}
		id, err = res.LastInsertId()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("save pending import: %w", err)
	}
	return id, nil
}

// PendingImport returns a file kept by SavePendingImport.
func (db *DB) PendingImport(ctx context.Context, studyID, id int64) (string, []byte, error) {
	var name string
	var data []byte
	err := db.read.QueryRowContext(ctx, `SELECT filename, data FROM item_reimports WHERE study_id = ? AND id = ?`, studyID, id).Scan(&name, &data)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil, domain.Errorf(domain.ENOTFOUND, "this upload is no longer kept: upload the file again")
	}
	if err != nil {
		return "", nil, fmt.Errorf("pending import: %w", err)
	}
	return name, data, nil
}

// DropPendingImport forgets a kept file once applied or cancelled.
func (db *DB) DropPendingImport(ctx context.Context, studyID, id int64) error {
	if _, err := db.exec(ctx, `DELETE FROM item_reimports WHERE study_id = ? AND id = ?`, studyID, id); err != nil {
		return fmt.Errorf("drop pending import: %w", err)
	}
	return nil
}

// DecideReview records the review's decision on an item. For accepted and
// own, implicature and cancellation (either may be empty: kept) become the
// item's new version. A decided item must be undone before deciding again.
func (db *DB) DecideReview(ctx context.Context, studyID, itemID int64, decision, implicature, cancellation, note string) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		it, err := itemTx(ctx, tx, studyID, itemID)
		if err != nil {
			return err
		}
		if it.Decision != "" {
			return domain.Errorf(domain.ECONFLICT, "item %s is already decided (%s): undo that first", it.Key, it.Decision)
		}
		status := it.Status
		switch decision {
		case domain.ReviewAccepted, domain.ReviewOwn:
			next := it
			if s := strings.TrimSpace(implicature); s != "" {
				next.Implicature = s
			}
			if s := strings.TrimSpace(cancellation); s != "" {
				next.Cancellation = s
			}
			if err := next.Validate(); err != nil {
				return domain.Errorf(domain.EINVALID, "%v", err)
			}
			if len(itemFieldChanges(it, next)) == 0 {
				return domain.Errorf(domain.EINVALID, "the replacement is the same as the current text: choose “keep as is” instead")
			}
			if err := db.reviseTx(ctx, tx, it, next, note); err != nil {
				return err
			}
			status = domain.ItemActive
		case domain.ReviewKept:
		case domain.ReviewDropped:
			status = domain.ItemDropped
		default:
			return domain.Errorf(domain.EINVALID, "unknown review decision %q", decision)
		}
		_, err = tx.ExecContext(ctx, `
			UPDATE items SET review_decision = ?, reviewed_at = ?, review_version = ?, status = ? WHERE id = ?`,
			decision, db.now(), it.Version, status, it.ID)
		return err
	})
}

// UndoReview takes back the decision on an item: a replaced text comes
// back as a new version (the replacement kept as a revision), a dropped
// item is active again. Refused once the study is archived.
func (db *DB) UndoReview(ctx context.Context, studyID, itemID int64) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		var archived string
		if err := tx.QueryRowContext(ctx, `SELECT archived_at FROM studies WHERE id = ?`, studyID).Scan(&archived); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return domain.Errorf(domain.ENOTFOUND, "study %d not found", studyID)
			}
			return err
		}
		if archived != "" {
			return domain.Errorf(domain.ECONFLICT, "the study is archived: restore it to undo a decision")
		}
		it, err := itemTx(ctx, tx, studyID, itemID)
		if err != nil {
			return err
		}
		var before int
		if err := tx.QueryRowContext(ctx, `SELECT review_version FROM items WHERE id = ?`, it.ID).Scan(&before); err != nil {
			return err
		}
		status := it.Status
		switch it.Decision {
		case "":
			return domain.Errorf(domain.ECONFLICT, "item %s has no decision to undo", it.Key)
		case domain.ReviewAccepted, domain.ReviewOwn:
			var impl, canc string
			err := tx.QueryRowContext(ctx, `SELECT implicature, cancellation FROM item_revisions WHERE item_id = ? AND version = ?`,
				it.ID, before).Scan(&impl, &canc)
			if err != nil {
				return fmt.Errorf("undo review: version %d of item %s: %w", before, it.Key, err)
			}
			prev := it
			prev.Implicature, prev.Cancellation = impl, canc
			if err := db.reviseTx(ctx, tx, it, prev, "undo of the review's replacement"); err != nil {
				return err
			}
		case domain.ReviewDropped:
			status = domain.ItemActive
		}
		_, err = tx.ExecContext(ctx, `UPDATE items SET review_decision = '', reviewed_at = '', review_version = 0, status = ? WHERE id = ?`, status, it.ID)
		return err
	})
}

// AlternativesHeader is the header of alternatives.csv
// (docs/formats.md#alternatives-export).
var AlternativesHeader = []string{"annotator_id", "item_id", "item_type", "item_version", "plausible",
	"cancellation_correct", "alt_implicature", "alt_cancellation", "review_decision"}

// AlternativeRow is one expert's alternative text for an item.
type AlternativeRow struct {
	Annotator, Item, Type                     string
	Version                                   int
	Plausible, CancellationCorrect            string
	AltImplicature, AltCancellation, Decision string
}

// AlternativeRows lists every answer of a study's experts that typed an
// alternative implicature or cancellation, by item and expert.
func (db *DB) AlternativeRows(ctx context.Context, studyID int64) ([]AlternativeRow, error) {
	return queryRows(ctx, db, "alternatives", `
		SELECT n.name, i.key, i.type, j.item_version, j.plausible, j.cancellation_correct,
			j.alt_implicature, j.alt_cancellation, i.review_decision
		FROM judgements j
		JOIN assignments a ON a.id = j.assignment_id
		JOIN annotators n ON n.id = a.annotator_id
		JOIN items i ON i.id = j.item_id
		WHERE n.study_id = ? AND (j.alt_implicature != '' OR j.alt_cancellation != '')
		ORDER BY i.id, n.name`, []any{studyID}, func(rows *sql.Rows, r *AlternativeRow) error {
		return rows.Scan(&r.Annotator, &r.Item, &r.Type, &r.Version, &r.Plausible, &r.CancellationCorrect,
			&r.AltImplicature, &r.AltCancellation, &r.Decision)
	})
}

// ExportAlternatives writes alternatives.csv.
func (db *DB) ExportAlternatives(ctx context.Context, studyID int64, w io.Writer) error {
	rows, err := db.AlternativeRows(ctx, studyID)
	if err != nil {
		return err
	}
	return writeCSV(w, AlternativesHeader, rows, func(r AlternativeRow) []string {
		return []string{r.Annotator, r.Item, r.Type, strconv.Itoa(r.Version), r.Plausible, r.CancellationCorrect,
			r.AltImplicature, r.AltCancellation, r.Decision}
	})
}
