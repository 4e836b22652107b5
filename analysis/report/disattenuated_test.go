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
