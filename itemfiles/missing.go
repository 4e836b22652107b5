package itemfiles

import (
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
