package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxTextLen bounds every text field of an item, in characters.
const MaxTextLen = 5000

// Item is an implicature item (docs/items.md#implicature-items). ID is the
// row id; Key is the item's own id from the imported file.
type Item struct {
	ID            int64  `json:"-"`
	Key           string `json:"id"`
	Type          string `json:"type"`
	Context       string `json:"context"`
	Utterance     string `json:"utterance"`
	Implicature   string `json:"implicature"`
	Cancellation  string `json:"cancellation"`
	Negation      string `json:"negation,omitempty"`
	Strengthening string `json:"strengthening,omitempty"`
	Neutral       string `json:"neutral,omitempty"`
	// Check is "" for a data item, "high" or "low" for an attention check
	// (the answer it expects; for experts a check is always "low").
	Check string `json:"check,omitempty"`
	// Training is "" for a data item, "high" or "low" for a crowd training
	// item and the answer it expects: "high" is shown without its
	// cancellation (rated above 3), "low" with it (rated below 5).
	Training string `json:"training,omitempty"`
	Status   string `json:"-"`
	Version  int    `json:"-"`
	// Decision is the review's decision on a flagged item: "" (none yet),
	// or one of the Review constants.
	Decision string `json:"-"`
}

// IsData reports whether the item is a data item: neither an attention
// check nor a training item.
func (it Item) IsData() bool { return it.Check == "" && it.Training == "" }

// TrainingCondition is the condition a training item is shown in.
func (it Item) TrainingCondition() string {
	if it.Training == "low" {
		return ConditionCancel
	}
	return ConditionTrigger
}

// FieldError names the field of an item that is wrong.
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return fmt.Sprintf("field %q: %s", e.Field, e.Msg) }

// Validate checks an item; the error is a *FieldError.
func (it *Item) Validate() error {
	texts := []namedValue{}
	for _, f := range it.textFields() {
		texts = append(texts, namedValue{f.name, *f.v})
	}
	if err := checkControls([]namedValue{{"id", it.Key}, {"type", it.Type}, {"check", it.Check}}, texts); err != nil {
		return err
	}
	it.Key = strings.TrimSpace(it.Key)
	it.Type = strings.ToLower(strings.TrimSpace(it.Type))
	it.Check = strings.ToLower(strings.TrimSpace(it.Check))
	it.Training = strings.ToLower(strings.TrimSpace(it.Training))
	if it.Key == "" {
		return &FieldError{"id", "is empty"}
	}
	if !utf8.ValidString(it.Key) {
		// Like the text fields: a JSON export would turn the bytes into
		// U+FFFD and the item would come back under another id.
		return &FieldError{"id", "is not valid UTF-8"}
	}
	if utf8.RuneCountInString(it.Key) > 100 || strings.ContainsAny(it.Key, "\r\n\t") {
		return &FieldError{"id", "must be at most 100 characters on one line"}
	}
	if IsPooledName(it.Type) {
		return &FieldError{"type", fmt.Sprintf("%q is reserved for the pooled row of the tables (want scalar, discourse, synthetic or natural)", it.Type)}
	}
	if !IsItemType(it.Type) {
		return &FieldError{"type", fmt.Sprintf("unknown type %q (want scalar, discourse, synthetic or natural)", it.Type)}
	}
	for _, f := range it.textFields() {
		if !utf8.ValidString(*f.v) {
			return &FieldError{f.name, "is not valid UTF-8"}
		}
		*f.v = strings.TrimSpace(lineBreaks.Replace(*f.v))
		if utf8.RuneCountInString(*f.v) > MaxTextLen {
			return &FieldError{f.name, fmt.Sprintf("is longer than %d characters", MaxTextLen)}
		}
	}
	for _, f := range []struct {
		name, v string
	}{{"utterance", it.Utterance}, {"implicature", it.Implicature}, {"cancellation", it.Cancellation}} {
		if f.v == "" {
			return &FieldError{f.name, "is empty"}
		}
	}
	switch it.Check {
	case "", "high", "low":
	default:
		return &FieldError{"check", fmt.Sprintf("unknown value %q (want empty, high or low)", it.Check)}
	}
	switch it.Training {
	case "", "high", "low":
	default:
		return &FieldError{"training", fmt.Sprintf("unknown value %q (want empty, or the answer expected: high or low)", it.Training)}
	}
	if it.Training != "" && it.Check != "" {
		return &FieldError{"training", "an item cannot be both a training item and an attention check"}
	}
	return nil
}

// lineBreaks turns CR LF and a lone CR into LF. Replacing CR LF alone
// left "\r\r\n" as "\r\n", which the next export and import changed again.
var lineBreaks = strings.NewReplacer("\r\n", "\n", "\r", "\n")

type namedField struct {
	name string
	v    *string
}

func (it *Item) textFields() []namedField {
	return []namedField{
		{"context", &it.Context}, {"utterance", &it.Utterance}, {"implicature", &it.Implicature},
		{"cancellation", &it.Cancellation}, {"negation", &it.Negation},
		{"strengthening", &it.Strengthening}, {"neutral", &it.Neutral},
	}
}

// ImportItems stores items in a study: all of them or, on any error, none.
func (db *DB) ImportItems(ctx context.Context, studyID int64, items []Item) error {
	if err := validateFile(items); err != nil {
		return err
	}
	return db.tx(ctx, func(tx *sql.Tx) error {
		if err := studyExists(ctx, tx, studyID); err != nil {
			return err
		}
		stmt, err := tx.PrepareContext(ctx, `
			INSERT INTO items (study_id, key, type, context, utterance, implicature, cancellation,
				negation, strengthening, neutral, check_kind, training)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (study_id, key) DO NOTHING`)
		if err != nil {
			return fmt.Errorf("import items: %w", err)
		}
		defer stmt.Close()
		for i, it := range items {
			res, err := stmt.ExecContext(ctx, studyID, it.Key, it.Type, it.Context, it.Utterance, it.Implicature,
				it.Cancellation, it.Negation, it.Strengthening, it.Neutral, it.Check, it.Training)
			if err != nil {
				return fmt.Errorf("import items: %w", err)
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return Errorf(EINVALID, "item %d: field \"id\": the study already has an item %q; nothing was imported", i+1, it.Key)
			}
		}
		return nil
	})
}

func studyExists(ctx context.Context, tx *sql.Tx, id int64) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM studies WHERE id = ?`, id).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return Errorf(ENOTFOUND, "study %d not found", id)
	}
	return nil
}

const itemColumns = `id, key, type, context, utterance, implicature, cancellation, negation, strengthening, neutral, check_kind, status, version, review_decision, training`

func scanItem(sc interface{ Scan(...any) error }) (Item, error) {
	var it Item
	err := sc.Scan(itemDest(&it)...)
	return it, err
}

// ListItems returns a study's items (dropped ones included) in import order.
func (db *DB) ListItems(ctx context.Context, studyID int64) ([]Item, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT `+itemColumns+` FROM items WHERE study_id = ? ORDER BY id`, studyID)
	if err != nil {
		return nil, fmt.Errorf("list items: %w", err)
	}
	defer rows.Close()
	var out []Item
	for rows.Next() {
		it, err := scanItem(rows)
		if err != nil {
			return nil, fmt.Errorf("list items: %w", err)
		}
		out = append(out, it)
	}
	return out, rows.Err()
}

// ItemByID returns one item of a study.
func (db *DB) ItemByID(ctx context.Context, studyID, id int64) (Item, error) {
	it, err := scanItem(db.read.QueryRowContext(ctx, `SELECT `+itemColumns+` FROM items WHERE study_id = ? AND id = ?`, studyID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return it, Errorf(ENOTFOUND, "item not found")
	}
	if err != nil {
		return it, fmt.Errorf("item: %w", err)
	}
	return it, nil
}

// SetItemCheck marks an item as an attention check ("high"/"low") or as a
// data item (""). Items already placed in batches keep their role there.
func (db *DB) SetItemCheck(ctx context.Context, studyID, itemID int64, check string) error {
	if check != "" && check != "high" && check != "low" {
		return Errorf(EINVALID, "check must be empty, high or low")
	}
	res, err := db.write.ExecContext(ctx, `UPDATE items SET check_kind = ? WHERE study_id = ? AND id = ?`, check, studyID, itemID)
	if err != nil {
		return fmt.Errorf("set check: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return Errorf(ENOTFOUND, "item not found")
	}
	return nil
}
