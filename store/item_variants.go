package store

import (
	"encoding/json"
	"fmt"

	"pragmalab/domain"
)

// variantsCol reads and writes a judgement item's texts by condition,
// one JSON object in items.variants (migration 0400); "" for an
// implicature item, whose Variants stay nil.
type variantsCol struct{ v *map[string]domain.Variant }

// Scan implements sql.Scanner.
func (c variantsCol) Scan(src any) error {
	var b []byte
	switch s := src.(type) {
	case nil:
	case string:
		b = []byte(s)
	case []byte:
		b = s
	default:
		return fmt.Errorf("item variants: unexpected %T", src)
	}
	*c.v = nil
	if len(b) == 0 {
		return nil
	}
	if err := json.Unmarshal(b, c.v); err != nil {
		return fmt.Errorf("item variants: %w", err)
	}
	return nil
}

// variantsValue is the column's value for an item: "" without variants.
func variantsValue(v map[string]domain.Variant) string {
	if len(v) == 0 {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		// A map of strings always marshals.
		panic(err)
	}
	return string(b)
}
