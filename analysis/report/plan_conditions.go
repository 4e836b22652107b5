package report

import (
	"fmt"

	"pragmalab/analysis"
	"pragmalab/analysis/plan"
)

// ConditionsPlanTable has a row per planned number of participants and
// difference between conditions: the pilot's difference with the 95 %
// interval predicted at that size, on the scale and in z, its width and
// the items' share of it (docs/statistics.md#planning-a-judgement-study).
func ConditionsPlanTable(p *plan.ConditionsPlan) *Table {
	t := &Table{Name: "condition_plan", Title: "Planning: the differences between conditions with N participants (predicted 95% intervals)",
		Columns: []string{"Participants", "Items", "Difference", "Difference in mean rating", "Width", "Difference in mean z", "Width in z", "Items' share"}}
	for _, pl := range p.Plans {
		for _, d := range pl.Differences {
			share := analysis.Missing
			if d.ItemsShare != nil {
				share = analysis.Percent(*d.ItemsShare) + " %"
			}
			t.Rows = append(t.Rows, []any{pl.Participants, pl.Items, d.String(),
				analysis.Est{V: d.MeanRating, CI: d.MeanRatingCI}, d.RatingWidth, analysis.Est{V: d.MeanZ, CI: d.MeanZCI}, d.ZWidth, share})
		}
	}
	t.Notes = []string{
		fmt.Sprintf("From the pilot: %d participants (%d analysed), %d items, %d rated by each; %d simulated studies per row.", p.Pilot.Participants, p.Pilot.Analysed, p.Pilot.Items, p.Pilot.ItemsEach, p.Draws),
		p.Note,
	}
	return t
}
