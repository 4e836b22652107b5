package plan

import (
	"math"
	"math/rand/v2"
	"pragmalab/analysis"
	"pragmalab/analysis/agreement"
	"pragmalab/analysis/contextsurvey"
	"pragmalab/analysis/modelhuman"
	"pragmalab/analysis/toplines"
	"pragmalab/domain"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// The coverage study (docs/statistics.md#interval-coverage): data sets
// drawn from a generative model with a known truth, every candidate
// interval method applied to each, and the share of data sets whose
// interval holds the truth counted.

// CoverageOptions configures one cell of the study.
type CoverageOptions struct {
	// Replicates is the number of simulated data sets.
	Replicates int
	// Bootstrap is the bootstrap replicates inside each simulated data set.
	Bootstrap int
	Seed      uint64
	// Progress, when set, is called after each simulated data set.
	Progress func(done int)
	// Stop, when set and true, ends the cell early (an interrupted run).
	Stop func() bool
	// TruthItems, when not 0, is how many items the crowd truth is
	// computed over instead of crowdTruthItems (fewer for a quick test).
	TruthItems int
}

// CoverageRow is one interval's coverage by one method in one cell.
type CoverageRow struct {
	Statistic string
	Method    string
	// InUse marks the method the analysis reports.
	InUse bool
	Truth float64
	// Covered counts the data sets whose interval held the truth, out of
	// Reported (the interval was given) out of the cell's replicates.
	Covered, Reported int
	WidthSum          float64
}

// Coverage is Covered / Reported (NaN when nothing was reported).
func (r CoverageRow) Coverage() float64 { return float64(r.Covered) / float64(r.Reported) }

// MCError is the Monte-Carlo standard error of the coverage, √(p(1−p)/R).
func (r CoverageRow) MCError() float64 {
	p := r.Coverage()
	return math.Sqrt(p * (1 - p) / float64(r.Reported))
}

// MeanWidth is the mean width of the reported intervals.
func (r CoverageRow) MeanWidth() float64 { return r.WidthSum / float64(r.Reported) }

// Approximate reports whether the coverage falls outside 0.93–0.97.
func (r CoverageRow) Approximate() bool {
	c := r.Coverage()
	return !(c >= 0.93 && c <= 0.97)
}

// CoverageCell is the study's result for one design.
type CoverageCell struct {
	Replicates int
	Bootstrap  int
	Rows       []CoverageRow
}

// coverageTally accumulates the rows of a cell; the statistics and methods
// are registered in the order the first data set reports them.
type coverageTally struct {
	mu    sync.Mutex
	index map[[2]string]int
	rows  []CoverageRow
}

// obs is one interval from one data set.
type obs struct {
	stat, method string
	inUse        bool
	truth        float64
	point        *float64
	ci           *analysis.CI
}

func (t *coverageTally) add(os []obs) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.index == nil {
		t.index = map[[2]string]int{}
	}
	for _, o := range os {
		if math.IsNaN(o.truth) {
			continue
		}
		k := [2]string{o.stat, o.method}
		i, ok := t.index[k]
		if !ok {
			i = len(t.rows)
			t.index[k] = i
			t.rows = append(t.rows, CoverageRow{Statistic: o.stat, Method: o.method, InUse: o.inUse, Truth: o.truth})
		}
		r := &t.rows[i]
		if o.ci == nil || o.point == nil {
			continue
		}
		r.Reported++
		r.WidthSum += o.ci[1] - o.ci[0]
		if o.ci[0] <= o.truth && o.truth <= o.ci[1] {
			r.Covered++
		}
	}
}

// runCoverage calls one(rep, rng) for each simulated data set, spread over
// the cores, and tallies what it returns.
func runCoverage(opt CoverageOptions, one func(rep int, rng *rand.Rand) []obs) CoverageCell {
	var t coverageTally
	workers := max(1, min(runtime.GOMAXPROCS(0), opt.Replicates))
	next := make(chan int, opt.Replicates)
	for r := range opt.Replicates {
		next <- r
	}
	close(next)
	var wg sync.WaitGroup
	var done sync.Mutex
	n := 0
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for rep := range next {
				if opt.Stop != nil && opt.Stop() {
					return
				}
				t.add(one(rep, rand.New(rand.NewPCG(opt.Seed, 0xda3e39cb94b95bdb^uint64(rep)))))
				if opt.Progress != nil {
					done.Lock()
					n++
					opt.Progress(n)
					done.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return CoverageCell{Replicates: opt.Replicates, Bootstrap: opt.Bootstrap, Rows: t.rows}
}

// crowdTruthItems is how many items the crowd truth is computed over:
// enough that its own Monte-Carlo error (≤ 0.0016 for a share) stays well
// under the large design's standard errors.
const crowdTruthItems = 100_000

// CoverageCrowd runs the study on the crowd design d: every toplines share
// and r, per type and pooled, by every candidate method.
func CoverageCrowd(d CrowdDesign, opt CoverageOptions) CoverageCell {
	nTruth := crowdTruthItems
	if opt.TruthItems > 0 {
		nTruth = opt.TruthItems
	}
	truth := crowdTruth(opt.Seed, d, nTruth)
	groups := append(append([]string{}, domain.TableTypes...), domain.TypeAll)
	return runCoverage(opt, func(rep int, rng *rand.Rand) []obs {
		rs := SimulateCrowd(rng, d)
		o := toplines.DefaultOptions()
		o.Bootstrap = analysis.Bootstrap{}
		t := toplines.ComputeToplines(rs, o)
		tr := toplines.Replicates(rs, toplines.ParticipantStats(rs, o), t, analysis.Bootstrap{Replicates: opt.Bootstrap, Seed: uint64(rep) + 1}, toplines.IntervalCandidates)
		var out []obs
		for g, name := range groups {
			tt, want := t.ByType[name], truth[name]
			truths := []*float64{want.ImplicatureRecognition, want.CancellationRecognition, want.BeliefUpdate,
				want.NegationCancellation, want.Strengthening, want.Unchanged, want.PearsonR, want.PearsonR}
			for s, stat := range toplines.Stats {
				label := "toplines " + name + "/" + stat
				tv := analysis.NanIfNil(truths[s])
				for _, m := range toplines.IntervalCandidates {
					if m.Corrected() != (s == toplines.StatRDis) {
						continue
					}
					out = append(out, obs{label, m.String(), m == toplines.IntervalMethods[s], tv, tr.Points[g][s], tr.CI(m, g, s)})
				}
				if stat == "pearson_r" { // Fisher's z over the items, as the replicates' floor has it
					out = append(out, obs{label, "Fisher z", false, tv, tt.PearsonR, analysis.WithPoint(tr.ItemsCI[g][s], tt.PearsonR)})
				}
			}
		}
		return out
	})
}

// coverageTruthItems is how many items the expert studies' truths are
// computed over.
const coverageTruthItems = 200_000

// ciCandidates are the methods compared for the expert studies' bootstrap
// intervals.
var ciCandidates = []analysis.CIMethod{analysis.CIPercentile, analysis.CIBCa}

// CoverageAgreement runs the study on the agreement design d: raw
// agreement, κ, PABAK, Fleiss' κ, Light's κ and α of both questions,
// pooled and for the smallest item type (discourse), by percentile and
// BCa bootstrap, and for two annotators Wilson's interval of raw
// agreement (PABAK = 2·raw − 1 likewise).
func CoverageAgreement(d AgreementDesign, opt CoverageOptions) CoverageCell {
	truth := agreementTruth(opt.Seed, d, coverageTruthItems)
	return runCoverage(opt, func(rep int, rng *rand.Rand) []obs {
		ag, reps := agreement.ComputeAgreementOn(simulateAgreement(rng, d), analysis.Bootstrap{Replicates: opt.Bootstrap, Seed: uint64(rep) + 1})
		var out []obs
		for _, g := range []string{domain.TypeAll, domain.TypeDiscourse} {
			a := ag.ByType[g]
			for qi, q := range []string{"plausibility", "cancellation"} {
				est, want := a.Plausibility, truth.Plausibility
				if qi == 1 {
					est, want = a.Cancellation, truth.Cancellation
				}
				key := g + "/" + q[:1]
				stats := []covStat{
					{"raw", key + "/raw", est.Raw, want.Raw},
					{"pabak", key + "/pabak", est.PABAK, want.PABAK},
					{"kappa", key + "/kappa", est.Kappa, want.Kappa},
					{"fleiss_kappa", key + "/fleiss", est.FleissKappa, want.FleissKappa},
					{"lights_kappa", key + "/light", est.LightsKappa, want.LightsKappa},
					{"krippendorff_alpha", key + "/alpha", est.KrippendorffAlpha, want.KrippendorffAlpha},
				}
				if d.Annotators > 2 {
					stats = append(stats, covStat{"pair a0–a1 kappa", key + "/0/kappa", pairBinary(a, qi).Kappa, pairBinary(truth, qi).Kappa})
				}
				for _, s := range stats {
					label := "agreement " + g + "/" + q + "/" + s.name
					raw := s.name == "raw" || s.name == "pabak"
					for _, m := range ciCandidates {
						out = append(out, obs{label, m.String(), m == agreement.AgreementInUse && !raw, analysis.NanIfNil(s.tru), s.point, reps.CIWith(m, s.key, s.point)})
					}
					if raw {
						ci := est.RawCI
						if s.name == "pabak" {
							ci = est.PABAKCI
						}
						out = append(out, obs{label, "Wilson", true, analysis.NanIfNil(s.tru), s.point, ci})
					}
				}
			}
		}
		return out
	})
}

// covStat is one statistic of the agreement and context cells: its
// label, its replicates' key, the estimate and the truth.
type covStat struct {
	name, key  string
	point, tru *float64
}

// isShareKey reports whether a context statistic is a share (its interval
// Wilson's) rather than a coefficient.
func isShareKey(key string) bool {
	return !strings.Contains(key, "fleiss") && !strings.Contains(key, "alpha")
}

func pairBinary(a *agreement.Agreement, question int) agreement.Binary {
	if question == 0 {
		return a.Pairs[0].Plausibility
	}
	return a.Pairs[0].Cancellation
}

// CoverageContext runs the study on the context design d: Fleiss' κ, both
// α, the consensus shares and the cumulative shares at 0, 3 and 5 added
// sentences, overall and for one survey.
func CoverageContext(d ContextDesign, opt CoverageOptions) CoverageCell {
	truth := contextTruth(opt.Seed, d.Annotators, coverageTruthItems)
	return runCoverage(opt, func(rep int, rng *rand.Rand) []obs {
		c, reps := contextsurvey.ComputeContextOn(simulateContext(rng, d), analysis.Bootstrap{Replicates: opt.Bootstrap, Seed: uint64(rep) + 1})
		var out []obs
		for _, g := range []string{"overall", "survey/s1"} {
			s := c.Overall
			if g != "overall" {
				s = c.Surveys["s1"]
			}
			stats := []covStat{
				{"fleiss_kappa", "/fleiss", s.FleissKappa, truth.FleissKappa},
				{"krippendorff_alpha_nominal", "/alpha_n", s.KrippendorffAlphaNominal, truth.KrippendorffAlphaNominal},
				{"krippendorff_alpha_ordinal", "/alpha_o", s.KrippendorffAlphaOrdinal, truth.KrippendorffAlphaOrdinal},
				{"full_consensus", "/full", s.FullConsensus, truth.FullConsensus},
				{"majority_consensus", "/major", s.MajorityConsensus, truth.MajorityConsensus},
			}
			for _, k := range []int{0, 3, 5} {
				ks := strconv.Itoa(k)
				stats = append(stats, covStat{"cumulative_judgements[" + ks + "]", "/cj" + ks, s.CumulativeJudgements[k], truth.CumulativeJudgements[k]},
					covStat{"cumulative_items[" + ks + "]", "/ci" + ks, s.CumulativeItems[k], truth.CumulativeItems[k]})
			}
			for _, st := range stats {
				label := "context " + strings.TrimPrefix(g, "survey/") + "/" + st.name
				for _, m := range ciCandidates {
					out = append(out, obs{label, m.String(), m == contextsurvey.ContextInUse && !isShareKey(st.key), analysis.NanIfNil(st.tru), st.point, reps.CIWith(m, g+st.key, st.point)})
				}
				if isShareKey(st.key) {
					out = append(out, obs{label, "Wilson", true, analysis.NanIfNil(st.tru), st.point, s.Clusters.Interval(st.key)})
				}
			}
		}
		return out
	})
}

// CoverageExplanations runs the study on the explanation design d: each
// judgment's share and the acceptable share in one kind × strategy cell,
// in a kind's pooled strategy and in the pooled table, by the Wilson
// interval the analysis reports.
func CoverageExplanations(d ExplanationDesign, opt CoverageOptions) CoverageCell {
	truth := explanationsTruth(opt.Seed, d, coverageTruthItems)
	cells := [][2]string{{"kind1", "s1"}, {"kind1", domain.TypeAll}, {domain.TypeAll, domain.TypeAll}}
	return runCoverage(opt, func(rep int, rng *rand.Rand) []obs {
		e := modelhuman.ComputeExplanations(simulateExplanations(rng, d))
		var out []obs
		for _, c := range cells {
			got, want := e.Table[c[0]][c[1]], truth[c]
			if got == nil || want == nil {
				continue
			}
			label := "explanations " + c[0] + "/" + c[1] + "/"
			out = append(out, obs{label + "acceptable", "Wilson", true, analysis.NanIfNil(want.Acceptable()), got.Acceptable(), got.AcceptableCI()})
			for j, name := range modelhuman.Judgments {
				out = append(out, obs{label + name, "Wilson", true, analysis.NanIfNil(want.Share(j)), got.Share(j), got.ShareCI(j)})
			}
		}
		return out
	})
}
