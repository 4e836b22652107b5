package domain

// ItemCounts are a study's items counted the one way every page, the
// dashboard and the command line count them: Data are the active items
// that are neither attention checks nor training items ("16 items"), the
// checks by the answer they expect, the training items marked in the item
// file, and the items dropped by the review.
type ItemCounts struct {
	Data, High, Low, Training, Dropped int
}

// Checks counts the active attention checks.
func (c ItemCounts) Checks() int { return c.High + c.Low }

// IsCountedData reports whether an item counts as a data item: active,
// not an attention check, not a training item. The store's dashboard query
// counts with the same rule (store.dataItemSQL). An item not yet stored
// (no status) counts as active.
func IsCountedData(it Item) bool {
	return (it.Status == ItemActive || it.Status == "") && it.Check == "" && it.Training == ""
}

// CountItems counts items as ItemCounts says; an item read from a file
// and not yet stored (no status) counts as active.
func CountItems(items []Item) ItemCounts {
	var c ItemCounts
	for _, it := range items {
		switch {
		case it.Status != ItemActive && it.Status != "":
			c.Dropped++
		case it.Training != "":
			c.Training++
		case it.Check == "high":
			c.High++
		case it.Check != "":
			c.Low++
		default:
			c.Data++
		}
	}
	return c
}
