package conditions

import (
	"fmt"
	"math"
	"math/rand/v2"
	"pragmalab/analysis"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// simStudy draws one Latin-square study: participant p rates item i in
// condition (p+i) mod 2, the latent rating mu[c] + u_p + w_i + e rounded
// to the nearest point of a 7-point scale (the ends taking the tails).
func simStudy(rng *rand.Rand, nP, nI int, mu [2]float64, su, sw, se float64) *Ratings {
	rs := &Ratings{ScalePoints: 7, ScaleFrom: "default", Conditions: []string{"a", "b"}}
	u := make([]float64, nP)
	for p := range u {
		u[p] = su * rng.NormFloat64()
	}
	w := make([]float64, nI)
	for i := range w {
		w[i] = sw * rng.NormFloat64()
	}
	line := 2
	for p := range nP {
		for i := range nI {
			c := (p + i) % 2
			x := math.Round(mu[c] + u[p] + w[i] + se*rng.NormFloat64())
			rs.Rows = append(rs.Rows, Rating{Line: line, Participant: fmt.Sprint("p", p), Item: fmt.Sprint("i", i),
				Condition: rs.Conditions[c], Value: int(min(7, max(1, x)))})
			line++
		}
	}
	return rs
}

// trueMean is the population mean of a rating of latent mean mu and SD s,
// rounded and clipped to 1–7: Σ k·P(point k).
func trueMean(mu, s float64) float64 {
	n := distuv.Normal{Mu: mu, Sigma: s}
	m := 0.0
	for k := 1; k <= 7; k++ {
		lo, hi := n.CDF(float64(k)-0.5), n.CDF(float64(k)+0.5)
		if k == 1 {
			lo = 0
		}
		if k == 7 {
			hi = 1
		}
		m += float64(k) * (hi - lo)
	}
	return m
}

// TestTwoWayCoverage checks by simulation that the two-way intervals of a
// condition's mean rating and of the difference between two conditions
// cover the population value about 95 % of the time when participants
// and items both vary (docs/statistics.md#the-two-way-interval), and that
// an interval clustered by participant only, which forgets the items'
// variation, covers clearly less: what the two-way interval is for.
func TestTwoWayCoverage(t *testing.T) {
	const reps = 400
	mu := [2]float64{3.6, 4.4}
	su, sw, se := 0.8, 0.7, 1.1
	s := math.Sqrt(su*su + sw*sw + se*se)
	truth := [2]float64{trueMean(mu[0], s), trueMean(mu[1], s)}
	rng := analysis.NewRand(20261206)
	var hitMean, hitDiff, hitOneWay int
	for range reps {
		rs := simStudy(rng, 40, 24, mu, su, sw, se)
		res, err := Compute(rs, Options{HighPass: 5, LowPass: 3, MaxFailed: 3})
		if err != nil {
			t.Fatal(err)
		}
		a := res.Conditions[0]
		if ci := a.MeanRatingCI; ci != nil && ci[0] <= truth[0] && truth[0] <= ci[1] {
			hitMean++
		}
		d := res.Differences[0] // b − a
		if ci := d.MeanRatingCI; ci != nil && ci[0] <= truth[1]-truth[0] && truth[1]-truth[0] <= ci[1] {
			hitDiff++
		}
		// The same mean's interval clustered by participant only.
		var os []obs
		pi, ii := map[string]int32{}, map[string]int32{}
		for _, rt := range rs.Rows {
			if rt.Condition != "a" {
				continue
			}
			if _, ok := pi[rt.Participant]; !ok {
				pi[rt.Participant] = int32(len(pi))
			}
			if _, ok := ii[rt.Item]; !ok {
				ii[rt.Item] = int32(len(ii))
			}
			os = append(os, obs{pi[rt.Participant], ii[rt.Item], (float64(rt.Value) - *a.MeanRating) / float64(a.Ratings)})
		}
		tw := twoWay(os)
		half := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(tw.Participants - 1)}.Quantile(0.975) * math.Sqrt(tw.VP)
		if math.Abs(*a.MeanRating-truth[0]) <= half {
			hitOneWay++
		}
	}
	cover := func(h int) float64 { return float64(h) / reps }
	t.Logf("coverage over %d studies: mean %.3f, difference %.3f, participants-only mean %.3f", reps, cover(hitMean), cover(hitDiff), cover(hitOneWay))
	// 400 replicates: a standard error of 0.011 around 0.95.
	for _, c := range []struct {
		name string
		h    int
	}{{"mean rating", hitMean}, {"difference", hitDiff}} {
		if got := cover(c.h); got < 0.92 || got > 0.985 {
			t.Errorf("the two-way interval of the %s covered %.3f of %d studies, want about 0.95", c.name, got, reps)
		}
	}
	if got := cover(hitOneWay); got > 0.88 {
		t.Errorf("the participants-only interval covered %.3f: the simulation does not show what the items' variation does", got)
	}
}
