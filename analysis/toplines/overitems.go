package toplines

import (
	"gonum.org/v1/gonum/stat/distuv"
	"math"
	"pragmalab/analysis"
	"pragmalab/domain"
	"slices"
)

// OverItems returns the toplines of t over only the items keep accepts,
// from the item means t has: each participant's ratings are z-scored over
// all of that participant's non-check ratings, exactly as the crowd
// study's Analysis page does, and only then are items left out (a model
// job scored fewer items). It returns nil when no kept item has ratings.
func (t *Toplines) OverItems(keep func(itemKey string) bool) *Toplines {
	out := &Toplines{Participants: t.Participants, Settings: t.Settings, ByType: map[string]*TypeToplines{}, Conditions: t.Conditions}
	for _, m := range t.Items {
		if keep(m.ID) {
			out.Items = append(out.Items, m)
		}
	}
	if len(out.Items) == 0 {
		return nil
	}
	for _, typ := range append(slices.Clone(domain.TableTypes), domain.TypeAll) {
		out.ByType[typ] = TypeToplinesOf(out.Items, typ)
	}
	return out
}

// Correlation is Pearson's r over N pairs with its two-sided p-value and a
// 95% confidence interval from Fisher's z-transform (r ± 1.96/√(N−3) on
// the atanh scale). Fields are nil when r is undefined; the interval also
// needs N ≥ 4.
type Correlation struct {
	N      int        `json:"n"`
	R      *float64   `json:"r"`
	P      *float64   `json:"p"`
	Lo, Hi *float64   `json:"-"`
	CI     []*float64 `json:"ci95"`
}

// Correlate computes a Correlation between x and y.
func Correlate(x, y []float64) Correlation {
	c := Correlation{N: len(x)}
	r, p, ok := Pearson(x, y)
	if !ok {
		return c
	}
	c.R, c.P = analysis.Num(r), analysis.Num(p)
	if c.N >= 4 && math.Abs(r) < 1 {
		z, se := math.Atanh(r), 1/math.Sqrt(float64(c.N-3))
		q := distuv.UnitNormal.Quantile(0.975)
		c.Lo, c.Hi = analysis.Num(math.Tanh(z-q*se)), analysis.Num(math.Tanh(z+q*se))
		c.CI = []*float64{c.Lo, c.Hi}
	}
	return c
}
