package toplines

import (
	"fmt"
	"os"
	"pragmalab/analysis"
	"pragmalab/analysis/internal/atest"
	"strings"
	"testing"
)

// TestToplinesBootstrapReference checks the toplines intervals against
// analysis/toplines/testdata/toplines_ref.py, which rebuilds every replicate of
// toplines_boot_draws.txt as a literal data set (participants and items
// copied; the second level's participants drawn from the first's) and
// computes item means, shares and r from scratch, then the basic and the
// extrapolated intervals (Python 3.11 stdlib: statistics.correlation,
// statistics.quantiles).
func TestToplinesBootstrapReference(t *testing.T) {
	b, err := os.ReadFile("testdata/toplines_boot.csv")
	if err != nil {
		t.Fatal(err)
	}
	rs, err := ReadRatings(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	const seed, reps = 3, 200
	opt := DefaultOptions()
	opt.Bootstrap = analysis.Bootstrap{Replicates: reps, Seed: seed}
	top := ComputeToplines(rs, opt)

	// The draws, as the Python reference reads them.
	ps := ParticipantStats(rs, opt)
	cells := newBootCells(rs, ps)
	var pnames []string
	for i, p := range ps {
		if !p.Excluded && !p.ZeroVar {
			pnames = append(pnames, rs.Participants[i])
		}
	}
	strata := itemStrata(rs)
	wp, wi, wp2 := make([]int32, cells.nP), make([]int32, len(rs.Items)), make([]int32, cells.nP)
	var sb strings.Builder
	for r := range reps {
		rng := replicateRand(seed, r)
		drawToplines(rng, cells.nP, strata, wp, wi)
		// The second level, as toplinesReplicator.run draws it: nP draws
		// from the list of the participants drawn, in index order.
		var pool []int
		for i, n := range wp {
			for range n {
				pool = append(pool, i)
			}
		}
		clear(wp2)
		for range cells.nP {
			wp2[pool[rng.IntN(len(pool))]]++
		}
		sb.WriteString("P")
		for i, n := range wp {
			if n > 0 {
				fmt.Fprintf(&sb, " %s:%d", pnames[i], n)
			}
		}
		sb.WriteString(" | I")
		for i, n := range wi {
			if n > 0 {
				fmt.Fprintf(&sb, " %s:%d", rs.Items[i], n)
			}
		}
		sb.WriteString(" | Q")
		for i, n := range wp2 {
			if n > 0 {
				fmt.Fprintf(&sb, " %s:%d", pnames[i], n)
			}
		}
		sb.WriteString("\n")
	}
	atest.CheckDraws(t, "testdata/toplines_boot_draws.txt", sb.String())

	for key, w := range toplinesRef() {
		typ, stat, _ := strings.Cut(key, "/")
		tt := top.ByType[typ]
		v, ci := map[string]*float64{MImplicature: tt.ImplicatureRecognition, MCancellation: tt.CancellationRecognition,
			MBeliefUpdate: tt.BeliefUpdate, MNegation: tt.NegationCancellation, MStrengthen: tt.Strengthening,
			MUnchanged: tt.Unchanged, "pearson_r": tt.PearsonR}[stat], map[string]*analysis.CI{MImplicature: tt.ImplicatureRecognitionCI,
			MCancellation: tt.CancellationRecognitionCI, MBeliefUpdate: tt.BeliefUpdateCI, MNegation: tt.NegationCancellationCI,
			MStrengthen: tt.StrengtheningCI, MUnchanged: tt.UnchangedCI, "pearson_r": tt.PearsonRCI}[stat]
		if w.noPoint {
			if v != nil || ci != nil {
				t.Errorf("%s = %s %v, want null", key, atest.FmtPtr(v), ci)
			}
			continue
		}
		if !atest.Near(v, w.point) || (w.noCI && ci != nil) || (!w.noCI && !atest.NearCI(ci, w.lo, w.hi)) {
			t.Errorf("%s = %s %v, want %v [%v, %v] (no CI %v)", key, atest.FmtPtr(v), ci, w.point, w.lo, w.hi, w.noCI)
		}
	}
	if top.Bootstrap == nil || top.Bootstrap.Replicates != reps {
		t.Errorf("bootstrap echo = %+v", top.Bootstrap)
	}
}
