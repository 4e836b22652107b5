package report

import (
	"math"
	"math/rand/v2"
	"pragmalab/analysis"
	"pragmalab/analysis/plan"
	"pragmalab/analysis/toplines"
	"pragmalab/domain"
	"strings"
	"testing"
)

// noisyItems draws nItems items whose population means (without and with
// cancellation) have SD 1 and correlation rho, each mean observed through
// n ratings with noise SD sigma: the reliability of either set of means is
// 1/(1 + sigma²/n).
func noisyItems(rng *rand.Rand, nItems, n int, rho, sigma float64) []toplines.ItemMeans {
	items := make([]toplines.ItemMeans, nItems)
	for i := range items {
		a, b := rng.NormFloat64(), rng.NormFloat64()
		truth := [2]float64{a, rho*a + math.Sqrt(1-rho*rho)*b}
		m := &items[i]
		m.Type = domain.TableTypes[0]
		for c := range toplines.NumConditions {
			m.MeanZ[c] = math.NaN()
		}
		for k, c := range []toplines.Condition{toplines.Trigger, toplines.Cancel} {
			var s, ss float64
			zs := make([]float64, n)
			for j := range zs {
				zs[j] = truth[k] + sigma*rng.NormFloat64()
				s += zs[j]
			}
			mean := s / float64(n)
			for _, z := range zs {
				ss += (z - mean) * (z - mean)
			}
			m.MeanZ[c], m.N[c], m.SS[c] = mean, n, ss
		}
	}
	return items
}

// TestDisattenuatedKnownReliability: on items of known reliability the
// reliabilities are recovered, and the corrected r recovers the true
// correlation that the observed r misses.
func TestDisattenuatedKnownReliability(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for _, c := range []struct {
		n          int
		rho, sigma float64
	}{{10, 0.99, 1}, {20, 0.9, 2}, {5, 0.75, 1}, {50, 0.5, 3}} {
		items := noisyItems(rng, 4000, c.n, c.rho, c.sigma)
		tt := toplines.TypeToplinesOf(items, domain.TypeAll)
		rel := 1 / (1 + c.sigma*c.sigma/float64(c.n))
		if tt.ReliabilityTrigger == nil || tt.ReliabilityCancel == nil || tt.PearsonRDisattenuated == nil {
			t.Fatalf("n=%d: reliabilities or corrected r missing: %+v", c.n, tt)
		}
		for _, got := range []float64{*tt.ReliabilityTrigger, *tt.ReliabilityCancel} {
			if math.Abs(got-rel) > 0.02 {
				t.Errorf("n=%d σ=%g: reliability %.4f, want %.4f", c.n, c.sigma, got, rel)
			}
		}
		if got := *tt.PearsonRDisattenuated; math.Abs(got-c.rho) > 0.02 {
			t.Errorf("n=%d ρ=%g: corrected r %.4f, want ρ", c.n, c.rho, got)
		}
		// The observed r is the attenuated one, ρ·rel, and stays beside it.
		if got := *tt.PearsonR; math.Abs(got-c.rho*rel) > 0.02 {
			t.Errorf("n=%d ρ=%g: observed r %.4f, want ρ·rel = %.4f", c.n, c.rho, got, c.rho*rel)
		}
	}
}

// TestDisattenuatedNoNoise: items measured without noise have reliability
// 1 and the corrected r is the observed r.
func TestDisattenuatedNoNoise(t *testing.T) {
	items := noisyItems(rand.New(rand.NewPCG(1, 2)), 50, 4, 0.8, 0)
	tt := toplines.TypeToplinesOf(items, domain.TypeAll)
	if *tt.ReliabilityTrigger != 1 || *tt.ReliabilityCancel != 1 || math.Abs(*tt.PearsonRDisattenuated-*tt.PearsonR) > 1e-12 {
		t.Fatalf("no noise: reliabilities %v %v, corrected %v, observed %v", *tt.ReliabilityTrigger, *tt.ReliabilityCancel, *tt.PearsonRDisattenuated, *tt.PearsonR)
	}
}

// TestDisattenuatedUndefined: where the means vary no more than their
// noise, the corrected r is n/a with the reason, and the observed r is
// still reported; one rating per cell leaves the noise unknown.
func TestDisattenuatedUndefined(t *testing.T) {
	items := noisyItems(rand.New(rand.NewPCG(3, 4)), 200, 2, 0.5, 0)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range items { // pure noise: the means' spread is their noise
		for _, c := range []toplines.Condition{toplines.Trigger, toplines.Cancel} {
			a, b := rng.NormFloat64(), rng.NormFloat64()
			items[i].MeanZ[c], items[i].SS[c] = (a+b)/2, (a-b)*(a-b)/2
		}
	}
	var tt *toplines.TypeToplines
	for seed := range 20 { // a draw with a reliability ≤ 0
		rng = rand.New(rand.NewPCG(uint64(seed), 9))
		for i := range items {
			for _, c := range []toplines.Condition{toplines.Trigger, toplines.Cancel} {
				a, b := rng.NormFloat64(), rng.NormFloat64()
				items[i].MeanZ[c], items[i].SS[c] = (a+b)/2, (a-b)*(a-b)/2
			}
		}
		if tt = toplines.TypeToplinesOf(items, domain.TypeAll); tt.PearsonRDisattenuated == nil {
			break
		}
	}
	if tt.PearsonRDisattenuated != nil || !strings.Contains(tt.PearsonRDisattenuatedNA, "reliability is 0 or less") || tt.PearsonR == nil {
		t.Fatalf("pure noise: corrected %v, reason %q, observed %v", tt.PearsonRDisattenuated, tt.PearsonRDisattenuatedNA, tt.PearsonR)
	}
	for i := range items {
		items[i].N = [toplines.NumConditions]int{toplines.Trigger: 1, toplines.Cancel: 1}
		items[i].SS = [toplines.NumConditions]float64{}
	}
	tt = toplines.TypeToplinesOf(items, domain.TypeAll)
	if tt.PearsonRDisattenuated != nil || !strings.Contains(tt.PearsonRDisattenuatedNA, "two ratings") || tt.PearsonR == nil {
		t.Fatalf("one rating per cell: corrected %v, reason %q", tt.PearsonRDisattenuated, tt.PearsonRDisattenuatedNA)
	}
}

// TestDisattenuatedCoverage is the coverage study's check on a small cell
// with a high true r (about 0.99): 10 ratings per item and condition,
// where the observed r's interval almost never holds the truth. The
// corrected r's interval must cover at least 0.95 − 3 Monte-Carlo errors
// (√(0.95·0.05/200) = 0.015, so 0.905) of 200 data sets, pooled.
func TestDisattenuatedCoverage(t *testing.T) {
	if testing.Short() {
		t.Skip("coverage study")
	}
	const reps = 200
	d := plan.CrowdDesign{Items: 60, Batches: 10, PerBatch: 10, CancelMean: 1.2, CancelSD: 0.114}
	cell := plan.CoverageCrowd(d, plan.CoverageOptions{Replicates: reps, Bootstrap: 100, Seed: 5, TruthItems: 20_000})
	var dis, obs *plan.CoverageRow
	for i, r := range cell.Rows {
		if r.InUse && r.Statistic == "toplines all/pearson_r_disattenuated" {
			dis = &cell.Rows[i]
		}
		if r.InUse && r.Statistic == "toplines all/pearson_r" {
			obs = &cell.Rows[i]
		}
	}
	if dis == nil || obs == nil {
		t.Fatal("no pooled r rows in the coverage cell")
	}
	if dis.Truth < 0.98 {
		t.Fatalf("truth %.4f: the cell is not the high-r cell it means to be", dis.Truth)
	}
	threshold := 0.95 - 3*math.Sqrt(0.95*0.05/reps)
	if dis.Reported < reps*9/10 || dis.Coverage() < threshold {
		t.Errorf("corrected r: %d of %d given, coverage %.3f < %.3f", dis.Reported, reps, dis.Coverage(), threshold)
	}
	if obs.Coverage() > 0.5 {
		t.Errorf("observed r covers %.3f: the cell no longer shows the attenuation it is meant to", obs.Coverage())
	}
	t.Logf("truth %.4f; corrected r covers %.3f (width %.3f), observed %.3f", dis.Truth, dis.Coverage(), dis.MeanWidth(), obs.Coverage())
}

// TestDisattenuatedInTables: the tables, methods text and LaTeX show the
// corrected r beside the observed one, the mark on an approximate interval
// and "n/a" with the reason where the correction is undefined.
func TestDisattenuatedInTables(t *testing.T) {
	rs := plan.SimulateCrowd(rand.New(rand.NewPCG(2, 3)), plan.CrowdDesign{Items: 60, Batches: 10, PerBatch: 10, CancelMean: 1.2, CancelSD: 0.114})
	opt := toplines.DefaultOptions()
	opt.Bootstrap = analysis.Bootstrap{Replicates: 100, Seed: 1}
	top := toplines.ComputeToplines(rs, opt)
	all := top.ByType[domain.TypeAll]
	if all.PearsonRDisattenuated == nil || all.PearsonRDisattenuatedCI == nil || *all.PearsonRDisattenuated <= *all.PearsonR {
		t.Fatalf("corrected r %v %v not above the observed %v", all.PearsonRDisattenuated, all.PearsonRDisattenuatedCI, *all.PearsonR)
	}
	if a := all.Approximate["pearson_r_ci95"]; a == nil || !a.Approximate || !strings.Contains(a.Reason, "attenuated") {
		t.Fatalf("observed r's interval not flagged: %+v", all.Approximate)
	}
	var b strings.Builder
	tb := ToplinesIntervalsTable(top)
	tb.WriteText(&b)
	txt := b.String()
	for _, want := range []string{"Pearson r, observed †", "Pearson r corrected for attenuation", "† Approximate interval of the observed r in", Text(analysis.Est{V: all.PearsonRDisattenuated, CI: all.PearsonRDisattenuatedCI})} {
		if !strings.Contains(txt, want) {
			t.Errorf("intervals table lacks %q:\n%s", want, txt)
		}
	}
	b.Reset()
	tb.WriteLaTeX(&b)
	if !strings.Contains(b.String(), `\dag{}`) {
		t.Errorf("LaTeX lacks the mark:\n%s", b.String())
	}
	m := ToplinesMethods(top, 3000, English)
	if !strings.Contains(strings.Join(m.Paragraphs, " "), "Corrected for attenuation") || !strings.Contains(strings.Join(m.Paragraphs, " "), "approximate") {
		t.Errorf("methods text lacks the corrected r or the warning: %v", m.Paragraphs)
	}

	// One rating per item and condition: n/a with the reason.
	rs = plan.SimulateCrowd(rand.New(rand.NewPCG(2, 3)), plan.CrowdDesign{Items: 60, Batches: 10, PerBatch: 1})
	top = toplines.ComputeToplines(rs, opt)
	all = top.ByType[domain.TypeAll]
	if all.PearsonR == nil || all.PearsonRDisattenuated != nil || all.PearsonRDisattenuatedNA == "" {
		t.Fatalf("one rating per cell: observed %v, corrected %v (%q)", all.PearsonR, all.PearsonRDisattenuated, all.PearsonRDisattenuatedNA)
	}
	b.Reset()
	ToplinesTable(top).WriteText(&b)
	if !strings.Contains(b.String(), "n/a") || !strings.Contains(b.String(), "two ratings") {
		t.Errorf("point table lacks n/a and its reason:\n%s", b.String())
	}
	if p := strings.Join(ToplinesMethods(top, 3000, English).Paragraphs, " "); !strings.Contains(p, "could not be applied") {
		t.Errorf("methods text lacks why the correction is n/a: %s", p)
	}
}

// TestApproximateShares: with 10 ratings per item and condition the
// strengthening and unchanged intervals, which the coverage study found
// short there, are flagged in the JSON and marked in the table.
func TestApproximateShares(t *testing.T) {
	rs := plan.SimulateCrowd(rand.New(rand.NewPCG(4, 5)), plan.CrowdDesign{Items: 60, Batches: 10, PerBatch: 10})
	opt := toplines.DefaultOptions()
	opt.Bootstrap = analysis.Bootstrap{Replicates: 50, Seed: 1}
	top := toplines.ComputeToplines(rs, opt)
	for _, typ := range []string{domain.TypeAll, domain.TypeSynthetic} {
		for _, key := range []string{"strengthening_ci95", "unchanged_ci95"} {
			if a := top.ByType[typ].Approximate[key]; a == nil || !strings.Contains(a.Reason, "10 ratings per item and condition") {
				t.Errorf("%s %s not flagged: %+v", typ, key, a)
			}
		}
	}
	var b strings.Builder
	ToplinesIntervalsTable(top).WriteText(&b)
	if !strings.Contains(b.String(), "Strengthening †") || !strings.Contains(b.String(), "Approximate intervals of strengthening and unchanged") {
		t.Errorf("table lacks the marks:\n%s", b.String())
	}
	// 50 ratings per item and condition: not flagged.
	rs = plan.SimulateCrowd(rand.New(rand.NewPCG(4, 5)), plan.CrowdDesign{Items: 20, Batches: 10, PerBatch: 50})
	top = toplines.ComputeToplines(rs, opt)
	if a := top.ByType[domain.TypeAll].Approximate["strengthening_ci95"]; a != nil {
		t.Errorf("50 ratings flagged: %+v", a)
	}
}

// TestFigureTicks: tick labels carry the true minus sign, and the
// scatter's ticks include 0 and 1.
func TestFigureTicks(t *testing.T) {
	rs := plan.SimulateCrowd(rand.New(rand.NewPCG(2, 3)), plan.CrowdDesign{Items: 60, Batches: 10, PerBatch: 10})
	top := toplines.ComputeToplines(rs, toplines.DefaultOptions())
	p, err := ScatterPlot(top.Items, domain.TypeAll, top.ByType[domain.TypeAll])
	if err != nil {
		t.Fatal(err)
	}
	trueMinus(p)
	labels := map[string]bool{}
	for _, tk := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
		labels[tk.Label] = true
		if strings.HasPrefix(tk.Label, "-") {
			t.Errorf("hyphen for minus: %q", tk.Label)
		}
	}
	if !labels["0.0"] || !labels["1.0"] || !labels["−1.0"] {
		t.Errorf("scatter ticks %v lack 0, 1 or −1 (axis %.2f…%.2f)", labels, p.X.Min, p.X.Max)
	}
}

// TestApproximateNearThreshold: where the cancellation effects are near 0
// (the coverage study's crowd-r99-shares cell) the cancellation
// recognition and belief update intervals are flagged; with the default
// effects they are not.
func TestApproximateNearThreshold(t *testing.T) {
	opt := toplines.DefaultOptions()
	opt.Bootstrap = analysis.Bootstrap{Replicates: 50, Seed: 1}
	rs := plan.SimulateCrowd(rand.New(rand.NewPCG(6, 7)), plan.CrowdDesign{Items: 120, Batches: 10, PerBatch: 20, CancelMean: 0.1, CancelSD: 0.114})
	all := toplines.ComputeToplines(rs, opt).ByType[domain.TypeAll]
	for _, key := range []string{"cancellation_recognition_ci95", "belief_update_ci95"} {
		if a := all.Approximate[key]; a == nil || !strings.Contains(a.Reason, "within one standard error") {
			t.Errorf("%s not flagged: %+v", key, a)
		}
	}
	rs = plan.SimulateCrowd(rand.New(rand.NewPCG(6, 7)), plan.CrowdDesign{Items: 120, Batches: 10, PerBatch: 20})
	all = toplines.ComputeToplines(rs, opt).ByType[domain.TypeAll]
	if a := all.Approximate["cancellation_recognition_ci95"]; a != nil {
		t.Errorf("default effects flagged: %+v", a)
	}
	// The ImplicatureX design (5 ratings), where these intervals cover.
	rs = plan.SimulateCrowd(rand.New(rand.NewPCG(6, 7)), plan.CrowdDesign{Items: 271, Batches: 18, PerBatch: 5})
	top := toplines.ComputeToplines(rs, opt)
	if a := top.ByType[domain.TypeAll].Approximate["cancellation_recognition_ci95"]; a != nil {
		t.Errorf("crowd-small flagged: %+v", a)
	}
	var b strings.Builder
	rs = plan.SimulateCrowd(rand.New(rand.NewPCG(6, 7)), plan.CrowdDesign{Items: 120, Batches: 10, PerBatch: 20, CancelMean: 0.1, CancelSD: 0.114})
	top = toplines.ComputeToplines(rs, opt)
	ToplinesIntervalsTable(top).WriteText(&b)
	if !strings.Contains(b.String(), "Cancellation recognition †") {
		t.Errorf("table lacks the mark:\n%s", b.String())
	}
	if m := strings.Join(ToplinesMethods(top, 12000, English).Paragraphs, " "); !strings.Contains(m, "approximate") || !strings.Contains(m, "within one standard error") {
		t.Errorf("methods lack the warning: %s", m)
	}
}
