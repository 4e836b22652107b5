package studies

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"pragmalab/domain"
)

// A corrected items file may leave optional fields out — a CSV without the
// negation column, a JSON line without "neutral" — or empty. Re-importing
// it keeps those fields of the study's items as they are unless the
// researcher asks to clear them (docs/items.md#correcting-items): a file
// that corrects one implicature must not silently empty every item's
// control follow-ups.

// MissingField is an optional field a re-imported file leaves out of an
// item whose current version has it.
type MissingField struct {
	Key, Field, Value string
}

// optionalFields are the fields of an item a file may leave out, with how
// to reach them.
var optionalFields = []struct {
	name string
	get  func(*domain.Item) *string
}{
	{"context", func(it *domain.Item) *string { return &it.Context }},
	{"negation", func(it *domain.Item) *string { return &it.Negation }},
	{"strengthening", func(it *domain.Item) *string { return &it.Strengthening }},
	{"neutral", func(it *domain.Item) *string { return &it.Neutral }},
	{"check", func(it *domain.Item) *string { return &it.Check }},
	{"training", func(it *domain.Item) *string { return &it.Training }},
}

// FillMissingFields compares the items of a file (next) with the study's
// (current), matched by key: each optional field empty in the file and
// not in the study is listed, and unless clear it is filled in next with
// the current text (kept); with clear it stays empty (cleared).
func FillMissingFields(current, next []domain.Item, clear bool) (kept, cleared []MissingField) {
	byKey := make(map[string]*domain.Item, len(current))
	for i := range current {
		byKey[current[i].Key] = &current[i]
	}
	for i := range next {
		old := byKey[next[i].Key]
		if old == nil {
			continue
		}
		for _, f := range optionalFields {
			was, now := f.get(old), f.get(&next[i])
			if *now != "" || *was == "" {
				continue
			}
			m := MissingField{Key: next[i].Key, Field: f.name, Value: *was}
			if clear {
				cleared = append(cleared, m)
			} else {
				*now = *was
				kept = append(kept, m)
			}
		}
	}
	return kept, cleared
}

// MissingSummary says, in one line per item, which fields a re-import
// keeps or clears: "sc1: negation, neutral".
func MissingSummary(ms []MissingField) []string {
	var out []string
	var key string
	var fields []string
	flush := func() {
		if key != "" {
			out = append(out, key+": "+strings.Join(fields, ", "))
		}
	}
	for _, m := range ms {
		if m.Key != key {
			flush()
			key, fields = m.Key, nil
		}
		fields = append(fields, m.Field)
	}
	flush()
	return out
}

// ItemFileUpdate is what re-importing a corrected items file from the
// command line did or, with a dry run, would do.
type ItemFileUpdate struct {
	Update        domain.ItemUpdate
	Kept, Cleared []MissingField
	Applied       bool
}

// UpdateItemsFromFile re-imports a corrected items file into a study, as
// the web's preview and Apply do: items matched by id get a new version,
// new ids are added, the optional fields the file leaves out are kept
// unless clear; with dryRun nothing is written. actor is who the audit log
// names.
func (v *Service) UpdateItemsFromFile(ctx context.Context, actor string, studyID int64, name string, data []byte, clear, dryRun bool, note string) (ItemFileUpdate, error) {
	var u ItemFileUpdate
	items, err := ParseItemFile(name, bytes.NewReader(data))
	if err != nil {
		return u, err
	}
	current, err := v.db.ListItems(ctx, studyID)
	if err != nil {
		return u, err
	}
	u.Kept, u.Cleared = FillMissingFields(current, items, clear)
	if u.Update, err = v.db.PreviewItemUpdate(ctx, studyID, items); err != nil || dryRun || len(u.Update.Changes) == 0 {
		return u, err
	}
	done, err := v.db.ApplyItemUpdate(ctx, studyID, items, u.Update.Digest, note)
	if err != nil {
		return u, err
	}
	u.Applied = true
	detail := fmt.Sprintf("%s applied: %d items changed, %d added", name, done.Changed(), done.Added())
	if len(u.Cleared) > 0 {
		detail += fmt.Sprintf("; %d fields the file leaves out cleared", len(u.Cleared))
	}
	return u, v.db.Audit(ctx, actor, studyID, "apply corrected items", detail)
}
