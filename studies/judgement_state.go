package studies

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"pragmalab/domain"
	"pragmalab/store"
)

// judgementChecklist is what a judgement study lacks before it may open
// (docs/studies.md#judgement-settings): its own conditions and both end
// labels — which a new study has none of, and which nothing fills in —
// items in every condition, attention checks, practice ranges on the
// scale, batches and a completion code. Each names what to fix and where.
func judgementChecklist(ctx context.Context, db *store.DB, st *domain.Study, c store.StudyCounts) ([]string, error) {
	s, err := CrowdSettings(st)
	if err != nil {
		return nil, err
	}
	var missing []string
	need := func(ok bool, what string) {
		if !ok {
			missing = append(missing, what)
		}
	}
	need(len(s.Conditions) > 0, "the study's conditions, named in the settings (Conditions: your own names, as the items file's condition column writes them)")
	n := s.Points()
	for _, end := range []struct {
		point int
		name  string
	}{{1, "low"}, {n, "high"}} {
		need(strings.TrimSpace(s.ScaleLabels[strconv.Itoa(end.point)]) != "",
			fmt.Sprintf("a label for the %s end of the %d-point scale (point %d) in the settings' Rating scale labels", end.name, n, end.point))
	}
	need(c.Items > 0, "items imported")
	need(c.Checks > 0, "attention checks imported (rows with check high or low)")
	need(c.Batches > 0, "batches built")
	need(c.Batches == 0 || c.BatchChecks > 0, "attention checks in the batches (rebuild the batches after importing the checks)")
	need(s.CompletionCode != "", "a completion code set in the settings")
	need(s.PracticeScreenOut == 0 || s.ScreenOutCode != "",
		fmt.Sprintf("a screen-out code set in the settings, for those the practice screen-out ends (after %d answers outside the range)", s.PracticeScreenOut))
	if len(s.Conditions) == 0 {
		return missing, nil
	}
	items, err := db.ListItems(ctx, st.ID)
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		if it.Status != domain.ItemActive {
			continue
		}
		if err := it.ValidateJudgementItem(s.Conditions); err != nil {
			missing = append(missing, "items that fit the study's conditions: "+err.Error())
			break
		}
		if it.Training != "" {
			if _, err := s.PracticeRangeOf(it.Training); err != nil {
				missing = append(missing, fmt.Sprintf("practice item %q with a range on the scale: %s", it.Key, domain.ErrorMessage(err)))
			}
		}
	}
	return missing, nil
}
