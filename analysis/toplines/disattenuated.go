package toplines

import (
	"fmt"
	"math"
	"pragmalab/analysis"
	"pragmalab/domain"
)

// The correlation corrected for attenuation
// (docs/statistics.md#disattenuated-correlation). Each item's mean z in a
// condition is its population mean plus rating noise, so the observed r
// between the trigger and cancel means underestimates the correlation of
// the population means. Spearman's correction divides the observed r by
// the square root of the two sets of means' reliabilities, the share of
// their variance across items that is not noise:
//
//	rel_c = 1 − ē_c / v_c,   ē_c = s²_c · mean_i(1/n_ic),
//
// v_c the sample variance of the items' means in condition c, s²_c the
// within-cell variance of the z-scores pooled over the items, n_ic the
// ratings of item i in c. ē_c is the mean squared standard error of a
// mean, so v_c − ē_c estimates the variance of the population means
// without bias, and the corrected r is
//
//	r_dis = cov / √((v_T − ē_T)(v_C − ē_C)).
//
// It is undefined when a reliability is 0 or less (the spread of the means
// is no more than their noise) and capped at ±1 when the noise in the
// reliabilities takes it beyond.

// cellNoise is one item's rating count and within-cell sum of squares of
// the z-scores without (0) and with (1) cancellation.
type cellNoise struct{ n, ss [2]float64 }

// itemNoise is m's cellNoise.
func itemNoise(m *ItemMeans) *cellNoise {
	return &cellNoise{n: [2]float64{float64(m.N[Trigger]), float64(m.N[Cancel])}, ss: [2]float64{m.SS[Trigger], m.SS[Cancel]}}
}

// addNoise adds one item's rating noise, with weight w, to the group's.
func (a *groupAcc) addNoise(e *cellNoise, w float64) {
	if e == nil {
		return
	}
	for k := range 2 {
		if e.n[k] > 0 {
			a.invN[k] += w / e.n[k]
			a.ss[k] += w * e.ss[k]
			a.df[k] += w * (e.n[k] - 1)
		}
	}
}

// disattenuated returns the corrected r (not capped) and both
// reliabilities, or NaN and why not.
func disattenuated(a *groupAcc) (r, relT, relC float64, why string) {
	nan := math.NaN()
	if a.sw < 3 {
		return nan, nan, nan, "fewer than 3 items rated in both conditions"
	}
	d := a.sw * (a.sw - 1)
	vx := (a.sw*a.sxx - a.sx*a.sx) / d
	vy := (a.sw*a.syy - a.sy*a.sy) / d
	cov := (a.sw*a.sxy - a.sx*a.sy) / d
	if vx <= 1e-12*a.sxx/a.sw || vy <= 1e-12*a.syy/a.sw {
		return nan, nan, nan, "the item means do not vary"
	}
	if a.df[0] <= 0 || a.df[1] <= 0 {
		return nan, nan, nan, "no item has two ratings in a condition, so the rating noise cannot be estimated"
	}
	relT = 1 - a.ss[0]/a.df[0]*a.invN[0]/a.sw/vx
	relC = 1 - a.ss[1]/a.df[1]*a.invN[1]/a.sw/vy
	if relT <= 0 || relC <= 0 {
		return nan, relT, relC, fmt.Sprintf("a reliability is 0 or less (%.2f without, %.2f with cancellation): the item means vary no more than their rating noise", relT, relC)
	}
	return cov / math.Sqrt((vx*relT)*(vy*relC)), relT, relC, ""
}

// setDisattenuated fills tt's corrected r and reliabilities from a, the
// items having both conditions.
func setDisattenuated(tt *TypeToplines, a *groupAcc) {
	r, relT, relC, why := disattenuated(a)
	tt.ReliabilityTrigger, tt.ReliabilityCancel = analysis.Num(relT), analysis.Num(relC)
	if tt.PearsonR == nil {
		return // Pearson's own "could not be computed" says why
	}
	if math.IsNaN(r) {
		tt.PearsonRDisattenuatedNA = why
		return
	}
	tt.PearsonRDisattenuated = analysis.Num(analysis.Clamp(r, -1, 1))
}

// Approximation marks an interval known to cover less than 0.90 in the
// coverage study, with the reason.
type Approximation struct {
	Approximate bool   `json:"approximate"`
	Reason      string `json:"reason"`
}

// disattenuatedCI is the basic bootstrap interval of the corrected r:
// in the bootstrap the truth is the observed r (the replicates' item
// means scatter around the estimated ones, whose correlation is the
// observed r), so r_dis* − r_obs stands for r_dis − ρ, and ρ lies in
// [r_dis − q97.5(r_dis* − r_obs), r_dis − q2.5(r_dis* − r_obs)]; on the
// atanh scale when fisher.
func disattenuatedCI(point, observed *float64, vals []float64, fisher bool) *analysis.CI {
	if point == nil || observed == nil {
		return nil
	}
	f, g := func(x float64) float64 { return x }, func(x float64) float64 { return x }
	if fisher {
		f, g = analysis.AtanhSafe, math.Tanh
	}
	d := analysis.DefinedSorted(vals)
	if d == nil {
		return nil
	}
	t := make([]float64, len(d))
	for i, v := range d {
		t[i] = f(v) - f(*observed)
	}
	c := f(*point)
	return analysis.WithPoint(&analysis.CI{analysis.Clamp(g(c-analysis.Quantile7(t, 0.975)), -1, 1), analysis.Clamp(g(c-analysis.Quantile7(t, 0.025)), -1, 1)}, point)
}

// MinReliability is the reliability of both sets of item means from which
// the observed r's interval is not flagged: below it, rating noise pulls
// the observed r far enough below the correlation of the population means
// for its interval to miss (docs/statistics.md#disattenuated-correlation).
const MinReliability = 0.99

// MinRatingsPerCell is the mean number of ratings per item and condition
// below which the strengthening and unchanged intervals are flagged: the
// coverage study measured them at 0.72–0.97 with 10 and 20 ratings (and
// 0.39–0.92 with 5), at 0.918–0.964 with 50
// (docs/statistics.md#the-hard-cells-of-r).
const MinRatingsPerCell = 50

// shareFlags are the share intervals flagged with few ratings per cell.
var shareFlags = []struct {
	key string
	ci  func(*TypeToplines) *analysis.CI
}{
	{MStrengthen + "_ci95", func(tt *TypeToplines) *analysis.CI { return tt.StrengtheningCI }},
	{MUnchanged + "_ci95", func(tt *TypeToplines) *analysis.CI { return tt.UnchangedCI }},
}

// ratingsPerCell is the mean number of ratings per (item, condition) over
// the items of typ (or all) and the conditions they were rated in.
func ratingsPerCell(items []ItemMeans, typ string) float64 {
	var n, cells int
	for i := range items {
		if typ != domain.TypeAll && items[i].Type != typ {
			continue
		}
		for _, k := range items[i].N {
			if k > 0 {
				n += k
				cells++
			}
		}
	}
	if cells == 0 {
		return 0
	}
	return float64(n) / float64(cells)
}

func (tt *TypeToplines) flag(key, why string) {
	if tt.Approximate == nil {
		tt.Approximate = map[string]*Approximation{}
	}
	tt.Approximate[key] = &Approximation{Approximate: true, Reason: why}
}

// flagApproximate marks the intervals of typ's toplines that the coverage
// study found short for data like these: strengthening and unchanged with
// few ratings per item and condition, and the observed r when the item
// means are noisy enough to attenuate it.
func flagApproximate(tt *TypeToplines, items []ItemMeans, typ string) {
	if per := ratingsPerCell(items, typ); per < MinRatingsPerCell {
		for _, f := range shareFlags {
			if f.ci(tt) != nil {
				tt.flag(f.key, fmt.Sprintf("%.0f ratings per item and condition on average, fewer than %d: with 10–20 the coverage study measured this interval at 0.72–0.97 (below 0.90 in several cells), with 5 at 0.39–0.92", per, MinRatingsPerCell))
			}
		}
	}
	if share := nearThreshold(items, typ); share > maxNearThreshold {
		for _, k := range []struct {
			key string
			ci  *analysis.CI
		}{{MCancellation + "_ci95", tt.CancellationRecognitionCI}, {MBeliefUpdate + "_ci95", tt.BeliefUpdateCI}} {
			if k.ci != nil {
				tt.flag(k.key, fmt.Sprintf("%.0f %% of the items' differences between the mean z without and with cancellation are within one standard error of 0, where the rating noise decides the comparison: in the coverage study's cell with cancellation effects near 0 this interval covered 0.27–0.91", 100*share))
			}
		}
	}
	if tt.PearsonRCI == nil {
		return
	}
	var why string
	switch {
	case tt.ReliabilityTrigger == nil || tt.ReliabilityCancel == nil:
		why = "the observed r is attenuated by the rating noise of the item means, which could not be estimated here; its interval is for the correlation of the observed means, not of the items' population means"
	case *tt.ReliabilityTrigger < MinReliability || *tt.ReliabilityCancel < MinReliability:
		why = fmt.Sprintf("the observed r is attenuated by the rating noise of the item means (reliabilities %.2f without and %.2f with cancellation), so its interval can miss the correlation of the items' population means (in the coverage study, down to 0 %% of data sets at a true r of 0.99); pearson_r_disattenuated and its interval estimate that correlation", *tt.ReliabilityTrigger, *tt.ReliabilityCancel)
	default:
		return
	}
	tt.flag("pearson_r_ci95", why)
}

// maxNearThreshold is the share of items whose trigger − cancel difference
// is within one standard error of 0 above which the cancellation
// recognition and belief update intervals are flagged: 0.65 in the
// coverage study's crowd-r99-shares cell (covered 0.27–0.91), about 0.37
// in crowd-small (covered 0.94–0.96).
const maxNearThreshold = 0.5

// nearThreshold is the share of typ's items with both means whose
// |mean zT − mean zC| is below its standard error, from the within-cell
// variances pooled per condition.
func nearThreshold(items []ItemMeans, typ string) float64 {
	var ss, df [2]float64
	for i := range items {
		m := &items[i]
		if (typ != domain.TypeAll && m.Type != typ) || !m.Has(Trigger) || !m.Has(Cancel) {
			continue
		}
		for k, c := range []Condition{Trigger, Cancel} {
			ss[k] += m.SS[c]
			df[k] += float64(m.N[c] - 1)
		}
	}
	if df[0] <= 0 || df[1] <= 0 {
		return 0
	}
	near, n := 0, 0
	for i := range items {
		m := &items[i]
		if (typ != domain.TypeAll && m.Type != typ) || !m.Has(Trigger) || !m.Has(Cancel) {
			continue
		}
		n++
		se := math.Sqrt(ss[0]/df[0]/float64(m.N[Trigger]) + ss[1]/df[1]/float64(m.N[Cancel]))
		if math.Abs(m.MeanZ[Trigger]-m.MeanZ[Cancel]) < se {
			near++
		}
	}
	if n == 0 {
		return 0
	}
	return float64(near) / float64(n)
}
