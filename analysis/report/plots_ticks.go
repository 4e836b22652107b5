package report

import (
	"gonum.org/v1/plot"
	"strings"
)

// Journals' figure rules (docs/statistics.md#figures): a negative tick is
// set with the true minus sign (U+2212), not a hyphen, and the scatter's
// axes are ticked every 0.5 so 0 and 1 are among the ticks.

// minusTicks sets the labels of the ticks m makes with a true minus sign.
type minusTicks struct{ m plot.Ticker }

func (t minusTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := t.m.Ticks(lo, hi)
	for i := range ts {
		if strings.HasPrefix(ts[i].Label, "-") {
			ts[i].Label = "−" + ts[i].Label[1:]
		}
	}
	return ts
}

// trueMinus wraps p's tick markers in minusTicks (once).
func trueMinus(p *plot.Plot) {
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		if _, ok := ax.Tick.Marker.(minusTicks); !ok && ax.Tick.Marker != nil {
			ax.Tick.Marker = minusTicks{ax.Tick.Marker}
		}
	}
}
