package plan

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pragmalab/analysis/toplines"
	"pragmalab/domain"
)

// The planner's validation (docs/statistics.md#planner-validation) on a
// generator it does not use: a threshold (ordinal) model with logistic
// noise whose size differs from item to item, and participants who use
// the scale each with thresholds of their own — shifted, stretched, and
// for some pushed to the ends of the scale. The planner's model
// (planModel) has normal noise, one bias and scale per participant and a
// rounded linear rating; SimulateCrowd is its cousin. Neither is used
// here to make the data.

// ordinalDesign is a crossed design of the threshold generator: every
// item in all five conditions, each (item, condition) in one of Batches
// batches, every participant of a batch rating all of the batch's pairs.
type ordinalDesign struct {
	Name           string
	Items, Batches int
	CancelSD       float64 // the cancellation effect's SD: small, r near 1
	Noise          float64 // the items' median noise SD (logistic, SD scale)
}

// ordinalItems are one draw of the design's items.
type ordinalItems struct {
	loc   [][toplines.NumConditions]float64
	noise []float64
	typ   []int8
}

// uniformSD is a uniform draw with mean 0 and SD sd.
func uniformSD(rng *rand.Rand, sd float64) float64 { return (rng.Float64() - 0.5) * sd * math.Sqrt(12) }

func drawOrdinalItems(rng *rand.Rand, d ordinalDesign) ordinalItems {
	var it ordinalItems
	for i := range d.Items {
		t := int8(i % 4)
		b := []float64{1.0, 0.7, 0.8, 0.4}[t] + uniformSD(rng, 0.8)
		var l [toplines.NumConditions]float64
		l[toplines.Trigger] = b
		l[toplines.Cancel] = b - (1.1 + d.CancelSD*rng.NormFloat64())
		l[toplines.Negation] = b - (1.5 + uniformSD(rng, 0.5))
		l[toplines.Strengthen] = b + 0.3 + 0.3*rng.NormFloat64()
		l[toplines.Neutral] = b + uniformSD(rng, 0.3)
		it.loc = append(it.loc, l)
		it.noise = append(it.noise, d.Noise*math.Exp(0.45*rng.NormFloat64()))
		it.typ = append(it.typ, t)
	}
	return it
}

// ordinalThresholds are the thresholds of an average participant between
// the 7 points of the scale.
var ordinalThresholds = [6]float64{-2.3, -1.4, -0.6, 0.2, 1.0, 1.9}

// simulateOrdinal draws a study of perBatch participants per batch on the
// given items, fresh participants from rng.
func simulateOrdinal(rng *rand.Rand, d ordinalDesign, it ordinalItems, perBatch int) *toplines.Ratings {
	rs := &toplines.Ratings{}
	for i := range d.Items {
		rs.Items = append(rs.Items, "o"+strconv.Itoa(i))
		rs.ItemType = append(rs.ItemType, it.typ[i])
	}
	nc := int(toplines.NumConditions)
	batches := make([][]int32, d.Batches)
	off := max(1, d.Batches/nc)
	for pos, i := range rng.Perm(d.Items) {
		for c := range nc {
			b := (pos + c*off) % d.Batches
			batches[b] = append(batches[b], int32(i*nc+c))
		}
	}
	line := int32(0)
	for b, slots := range batches {
		for k := range perBatch {
			p := int32(len(rs.Participants))
			rs.Participants = append(rs.Participants, "q"+strconv.Itoa(b)+"_"+strconv.Itoa(k))
			shift, stretch := 0.5*rng.NormFloat64(), math.Exp(0.3*rng.NormFloat64())
			extreme := rng.Float64() < 0.15 // pushes to the ends of the scale
			var tau [6]float64
			for j, t := range ordinalThresholds {
				if extreme {
					t *= 0.45
				}
				tau[j] = shift + stretch*t
			}
			for _, slot := range slots {
				i, c := int(slot)/nc, toplines.Condition(int(slot)%nc)
				u := rng.Float64()
				e := math.Log(u/(1-u)) * math.Sqrt(3) / math.Pi // logistic, SD 1
				l := it.loc[i][c] + it.noise[i]*e
				v := 1
				for _, t := range tau {
					if l > t {
						v++
					}
				}
				line++
				rs.Add(toplines.Rating{Participant: p, Item: int32(i), Line: line, Cond: c, Value: uint8(v)})
			}
		}
	}
	return rs
}

// validationSize is how much of the validation runs: the short one in
// every `go test`, the full one with PRAGMALAB_PLAN_VALIDATION=full (the
// table of docs/statistics.md#planner-validation).
type validationSize struct {
	pilots, realised, draws, replicates, refits int
	// covered is the fewest pilots whose realised width must fall within
	// the planned width's range, for every compared quantity: for a 90 %
	// range, fewer than 7 of 10 has a chance of 1.3 %, fewer than 4 of 6
	// of 1.6 %.
	covered int
	// shareLow and shareHigh bound the levels of the shares held to the
	// bar: near 0 or 1 a share's interval is the items' Wilson floor and
	// moves in steps of one item, which the short run's 2 simulated
	// studies of 200 replicates do not average out.
	shareLow, shareHigh float64
}

var (
	shortValidation = validationSize{pilots: 6, realised: 2, draws: 3, replicates: 200, refits: DefaultRefits, covered: 4, shareLow: 0.15, shareHigh: 0.85}
	fullValidation  = validationSize{pilots: 10, realised: 4, draws: 4, replicates: 500, refits: DefaultRefits, covered: 7, shareLow: 0.10, shareHigh: 0.90}
)

// The designs: crowd-like (40 items, the coverage study's pilot), and the
// high-r design of noisy items (120 items, each participant rating 60 of
// the 600 item × condition pairs; true r near 0.99, the observed r of
// 6 ratings an item far below).
var validationDesigns = []ordinalDesign{
	{Name: "ordinal-40", Items: 40, Batches: 10, CancelSD: 0.7, Noise: 1.0},
	{Name: "ordinal-high-r", Items: 120, Batches: 10, CancelSD: 0.1, Noise: 1.6},
}

// The bar (docs/statistics.md#planner-validation): the planned width at
// 240 participants within 0.75–1.3 × the width studies of 240 get, on
// every pilot (where it is asserted: see the test). The short run's
// widths carry more Monte-Carlo noise (2 simulated studies of 200
// replicates where the full run has 4 of 500): its bar is 0.7–1.4.
const (
	barLow, barHigh           = 0.75, 1.3
	shortBarLow, shortBarHigh = 0.70, 1.4
)

// TestPlanValidatedOnAnotherGenerator: pilots of 60 participants from the
// threshold generator; the planner's widths at 240 against the widths of
// simulated 240-participant studies of the same items; and a target of
// that realised width, which 240 participants reach, is not called out of
// reach.
func TestPlanValidatedOnAnotherGenerator(t *testing.T) {
	size, lo, hi := shortValidation, shortBarLow, shortBarHigh
	full := os.Getenv("PRAGMALAB_PLAN_VALIDATION") == "full"
	if full {
		size, lo, hi = fullValidation, barLow, barHigh
	}
	var table strings.Builder
	table.WriteString("| design | quantity | level at 240 | realised width at 240 | planned ÷ realised: median | min | max | pilots within the bar | realised within the planned range | target = realised r width: participants planned |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for di, d := range validationDesigns {
		ratios := map[string][]float64{}
		covered, ranged, inBar, outside := map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}
		realised, level := map[string]float64{}, map[string]float64{}
		var answers []string
		for k := range size.pilots {
			seed := uint64(1000*di + k + 1)
			items := drawOrdinalItems(rand.New(rand.NewPCG(seed, 1)), d)
			pilot := simulateOrdinal(rand.New(rand.NewPCG(seed, 2)), d, items, 6)
			opt := PlanOptions{Participants: []int{240}, Draws: size.draws, Refits: size.refits, Options: toplines.DefaultOptions()}
			opt.Options.Bootstrap.Replicates = size.replicates
			opt.Options.Bootstrap.Seed = seed
			rep, err := PlanToplines(context.Background(), pilot, opt)
			if err != nil {
				t.Fatal(err)
			}
			planned := rep.Plans[0].ByType[domain.TypeAll]
			real, lv := map[string]float64{}, map[string]float64{}
			for j := range size.realised {
				big := simulateOrdinal(rand.New(rand.NewPCG(seed, uint64(10+j))), d, items, 24)
				o := opt.Options
				o.Bootstrap.Seed = seed + uint64(100+j)
				bt := toplines.ComputeToplines(big, o).ByType[domain.TypeAll]
				for _, q := range PlanQuantities {
					if v, ci := Quantity(bt, q); v != nil && ci != nil {
						real[q] += (ci[1] - ci[0]) / float64(size.realised)
						lv[q] += *v / float64(size.realised)
					}
				}
			}
			pr, _ := Quantity(rep.Pilot.ByType[domain.TypeAll], "pearson_r")
			pd, _ := Quantity(rep.Pilot.ByType[domain.TypeAll], QDisattenuated)
			at, rci := Quantity(planned, "pearson_r")
			if pr != nil && pd != nil && at != nil {
				t.Logf("%s pilot %d: r %.2f, disattenuated %.2f; planned r at 240 %.2f (width %.3f), realised %.2f (width %.3f)", d.Name, k, *pr, *pd, *at, rci[1]-rci[0], lv["pearson_r"], real["pearson_r"])
			}
			for _, q := range PlanQuantities {
				_, ci := Quantity(planned, q)
				if ci == nil || real[q] == 0 {
					continue
				}
				ratios[q] = append(ratios[q], (ci[1]-ci[0])/real[q])
				if r := (ci[1] - ci[0]) / real[q]; r >= lo && r <= hi {
					inBar[q]++
				}
				if wr := rep.Plans[0].WidthRange[domain.TypeAll][q]; wr != nil {
					inRange := wr.Low <= real[q] && real[q] <= wr.High
					covered[q] += b2i(inRange)
					if r := (ci[1] - ci[0]) / real[q]; (r < lo || r > hi) && !inRange {
						outside[q]++ // outside the bar and outside the range
					}
					ranged[q]++
					if strings.HasPrefix(q, "pearson_r") {
						t.Logf("%s pilot %d %s: planned width %.3f, range %.3f–%.3f, realised %.3f", d.Name, k, q, ci[1]-ci[0], wr.Low, wr.High, real[q])
					}
				}
				realised[q] += real[q] / float64(size.pilots)
				level[q] += lv[q] / float64(size.pilots)
			}
			// A target the design reaches at 240 participants: on the
			// high-r design, where participants carry the width, planned
			// within the bar's participants (width ∝ 1/√N: 0.75–1.3 in
			// width is 0.59–1.78 in participants); on any design, out of
			// reach only when the studies simulated at the cap miss it.
			if k == 0 || full {
				wopt := opt
				wopt.Participants = nil
				wp, err := PlanWidth(context.Background(), pilot, wopt, domain.TypeAll, "pearson_r", real["pearson_r"])
				if err != nil {
					t.Fatal(err)
				}
				if wp.Reachable {
					answers = append(answers, strconv.Itoa(wp.Participants))
				} else {
					answers = append(answers, "out of reach")
					if !wp.has(wp.Cap) || wp.point(wp.Cap).Width <= wp.Target {
						t.Errorf("%s pilot %d: out of reach without a simulated study at the cap %d missing the target: %+v", d.Name, k, wp.Cap, wp.Points)
					}
					// 240 participants reach this target: out of reach comes
					// with the width's range at the cap, which says whether
					// the pilot may be wrong about it
					// (docs/statistics.md#how-sure-is-a-planned-width)
					r := wp.WidthRange
					if r == nil {
						t.Fatalf("%s pilot %d: out of reach without the width's range at the cap", d.Name, k)
					}
					may := "may be reached"
					if r.Low > wp.Target {
						may = "not reached"
					}
					answers[len(answers)-1] += fmt.Sprintf(" (at the cap %.2f–%.2f: %s)", r.Low, r.High, may)
				}
				if d.CancelSD < 0.2 && (!wp.Reachable || float64(wp.Participants) < 240/(hi*hi) || float64(wp.Participants) > 240/(lo*lo)) {
					t.Errorf("%s pilot %d: target %.3f, the r width 240 participants get: planned %+v", d.Name, k, real["pearson_r"], wp)
				}
			}
		}
		for _, q := range PlanQuantities {
			rs := ratios[q]
			if len(rs) == 0 {
				continue
			}
			slices.Sort(rs)
			med := rs[len(rs)/2]
			if len(rs)%2 == 0 {
				med = (rs[len(rs)/2-1] + rs[len(rs)/2]) / 2
			}
			ans := ""
			if q == "pearson_r" {
				ans = strings.Join(answers, ", ")
			}
			share := !strings.HasPrefix(q, "pearson_r")
			if share && (level[q] < 0.05 || level[q] > 0.95) {
				fmt.Fprintf(&table, "| %s | %s | %.2f | %.3f | not compared: a share at the boundary | | | | | |\n", d.Name, q, level[q], realised[q])
				continue
			}
			// The bar is asserted on every pilot for the shares between
			// 0.10 and 0.90 (0.15 and 0.85 in the short run). For r on the
			// high-r design with noisy items, the planned widths must be
			// unbiased (median planned ÷ realised within 0.9–1.1), and a
			// pilot outside the bar must say so: its realised width within
			// its planned range. Elsewhere (r and the disattenuated r on 40
			// items, the disattenuated r near 1, a share near 0 or 1) the
			// pilot estimates the items too loosely for any planner
			// (docs/statistics.md#how-sure-is-a-planned-width), and what is
			// asserted is that the planner says so: the realised width falls
			// within the planned range on most pilots.
			held := share && level[q] >= size.shareLow && level[q] <= size.shareHigh
			highR := q == "pearson_r" && d.CancelSD < 0.2
			mark := fmt.Sprintf("%d of %d", inBar[q], len(rs))
			switch {
			case held:
				mark += " (asserted: all)"
			case highR:
				mark += " (asserted: median 0.9–1.1, the rest within their range)"
			}
			fmt.Fprintf(&table, "| %s | %s | %.2f | %.3f | %.2f | %.2f | %.2f | %s | %d of %d | %s |\n", d.Name, q, level[q], realised[q], med, rs[0], rs[len(rs)-1], mark, covered[q], ranged[q], ans)
			if held && inBar[q] < len(rs) {
				t.Errorf("%s %s: planned ÷ realised width from %.2f to %.2f over %d pilots (bar %.2f–%.2f)", d.Name, q, rs[0], rs[len(rs)-1], len(rs), lo, hi)
			}
			if highR && (med < 0.9 || med > 1.1 || outside[q] > 0) {
				t.Errorf("%s %s: median planned ÷ realised %.2f (want 0.9–1.1); %d pilots outside the bar %.2f–%.2f with the realised width outside their planned range", d.Name, q, med, outside[q], lo, hi)
			}
			if ranged[q] != len(rs) || covered[q] < size.covered {
				t.Errorf("%s %s: the realised width within the planned range on %d of %d pilots (%d with a range); want at least %d", d.Name, q, covered[q], len(rs), ranged[q], size.covered)
			}
		}
	}
	t.Logf("pilots %d, realised studies %d per pilot, %d draws of %d replicates\n%s", size.pilots, size.realised, size.draws, size.replicates, table.String())
	if full {
		fmt.Print(table.String())
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
