package report

import (
	"fmt"
	"pragmalab/analysis/toplines"
	"pragmalab/domain"
	"strings"
)

// The control conditions in the tables (docs/statistics.md#toplines): a
// study that does not declare a condition has no row for its measure.

// control is one control condition's measure as the tables show it; its
// topline and interval are TypeToplines.quantity(key).
type control struct{ cond, key, label, note string }

var controls = []control{
	{domain.ConditionNegation, toplines.MNegation, "Negation cancellation", "Negation cancellation: mean z(negation) < mean z(trigger)."},
	{domain.ConditionStrengthen, toplines.MStrengthen, "Strengthening", "Strengthening: mean z(strengthen) > mean z(trigger)."},
	{domain.ConditionNeutral, toplines.MUnchanged, "Unchanged (neutral)", "Unchanged: mean z(neutral) > 0 ⇔ mean z(trigger) > 0."},
}

// controlRows calls add for each control condition t analyses, in the
// documented order.
func controlRows(t *toplines.Toplines, add func(control)) {
	for _, c := range controls {
		if t.HasCondition(c.cond) {
			add(c)
		}
	}
}

// ControlMeasures are the keys of the control measures t analyses, in the
// documented order; Quantity gives each one's topline and interval.
func ControlMeasures(t *toplines.Toplines) []string {
	var keys []string
	controlRows(t, func(c control) { keys = append(keys, c.key) })
	return keys
}

// controlNote defines the control measures shown ("" with none).
func controlNote(t *toplines.Toplines) string {
	var parts []string
	controlRows(t, func(c control) { parts = append(parts, c.note) })
	return strings.Join(parts, " ")
}

type leftOutRow struct{ key, label string }

// leftOutRows are the "Left out" rows that leave something out: a
// measure of an analysed condition with at least one item lacking it in
// some column.
func leftOutRows(t *toplines.Toplines) []leftOutRow {
	all := []struct {
		cond string
		leftOutRow
	}{
		{domain.ConditionTrigger, leftOutRow{toplines.MImplicature, "Left out: no trigger rating"}},
		{domain.ConditionCancel, leftOutRow{toplines.MCancellation, "Left out: no trigger or cancel rating"}},
		{domain.ConditionNegation, leftOutRow{toplines.MNegation, "Left out: no negation rating"}},
		{domain.ConditionStrengthen, leftOutRow{toplines.MStrengthen, "Left out: no strengthen rating"}},
		{domain.ConditionNeutral, leftOutRow{toplines.MUnchanged, "Left out: no neutral rating"}},
	}
	var out []leftOutRow
	for _, r := range all {
		if !t.HasCondition(r.cond) {
			continue
		}
		if anyType(t, func(x *toplines.TypeToplines) bool { return x.LeftOut[r.key] > 0 }) {
			out = append(out, r.leftOutRow)
		}
	}
	return out
}

// NaturalCompare orders ids as people read them: runs of digits compare
// as numbers (s2 < s10), the rest byte by byte; equal-reading ids fall
// back to plain order so the sort is total.
func NaturalCompare(a, b string) int {
	x, y := a, b
	for x != "" && y != "" {
		dx, dy := digitRun(x), digitRun(y)
		if dx > 0 && dy > 0 {
			nx, ny := strings.TrimLeft(x[:dx], "0"), strings.TrimLeft(y[:dy], "0")
			if c := len(nx) - len(ny); c != 0 {
				return c
			}
			if c := strings.Compare(nx, ny); c != 0 {
				return c
			}
			x, y = x[dx:], y[dy:]
			continue
		}
		if x[0] != y[0] {
			return int(x[0]) - int(y[0])
		}
		x, y = x[1:], y[1:]
	}
	if c := len(x) - len(y); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

func digitRun(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// conditionsNote names the conditions analysed.
func conditionsNote(t *toplines.Toplines) string {
	if len(t.Conditions) == 0 {
		return ""
	}
	return "Conditions: " + strings.Join(t.Conditions, ", ") + "."
}

// fewItemsMark marks an r computed on fewer than MinIntervalItems items.
const fewItemsMark = "‡"

// pearsonCell is a type's observed r, marked when it rests on fewer than
// MinIntervalItems items.
func pearsonCell(x *toplines.TypeToplines) any {
	if x.PearsonFewItems {
		return Marked{x.PearsonR, fewItemsMark}
	}
	return x.PearsonR
}

// fewItemsNote explains the mark where some column has it.
func fewItemsNote(t *toplines.Toplines) string {
	if anyType(t, func(x *toplines.TypeToplines) bool { return x.PearsonFewItems }) {
		return fmt.Sprintf("%s r on fewer than %d items: read it with care.", fewItemsMark, toplines.MinIntervalItems)
	}
	return ""
}
