package toplines

import (
	"bytes"
	"encoding/json"
	"fmt"
	"pragmalab/analysis"
	"pragmalab/analysis/internal/atest"
	"slices"
	"testing"
)

func FuzzReadRatings(f *testing.F) {
	f.Add([]byte(atest.ToplinesFixture))
	f.Add([]byte("\uFEFFRating, Check ,condition,item_type,item_id,batch_id,participant_id\r\n" +
		"5,,trigger,scalar,s1,B,p1\r\n2,,cancel,scalar,s1,B,p1\r\n6,high,,,c1,B,p1\r\n"))
	f.Add([]byte(atest.RatingsHeader + "p1,B,s1,scalar,trigger,5,\np1,B,s1,scalar,trigger,6,\n"))
	f.Add([]byte(atest.RatingsHeader + "p1,B,s1,scalar,trigger,8,\n"))
	f.Add([]byte(atest.RatingsHeader + "p1,B,s1,scalar,trigger,5,\np1,B,s1,natural,cancel,5,\n"))
	// The reader is fuzzed with the toplines' cheap options: no bootstrap,
	// so an input costs microseconds, not the 2,000 replicates' seconds;
	// TestToplinesProperties checks the same on full options.
	cheap := DefaultOptions()
	cheap.Bootstrap = analysis.Bootstrap{}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkReadAndToplines(t, data, cheap)
	})
}

// toplinesPropertyInputs are the property test's inputs: ratings files
// drawn at random — participants, batches, items in
// either condition, checks passed or failed, now and then a constant rater.
func toplinesPropertyInputs() [][]byte {
	var out [][]byte
	rng := analysis.NewRand(46)
	types := []string{"scalar", "natural", "discourse"}
	for range 12 {
		var b bytes.Buffer
		b.WriteString(atest.RatingsHeader)
		people, items := 2+rng.IntN(12), 1+rng.IntN(8)
		for p := range people {
			constant := rng.IntN(6) == 0
			for i := range items {
				if rng.IntN(5) == 0 {
					continue
				}
				// Each participant rates an item in one condition.
				c := (p + i) % 2
				r := 1 + rng.IntN(7)
				if constant {
					r = 4
				} else if c == 0 {
					r = min(7, r+2)
				}
				fmt.Fprintf(&b, "p%d,B%d,i%d,%s,%s,%d,\n", p, p%3, i, types[i%len(types)], []string{"trigger", "cancel"}[c], r)
			}
			for k := range 2 {
				fmt.Fprintf(&b, "p%d,B%d,c%d,,,%d,%s\n", p, p%3, k, 1+rng.IntN(7), []string{"high", "low"}[k])
			}
		}
		out = append(out, b.Bytes())
	}
	return out
}

// TestToplinesProperties checks on the full options (2,000 bootstrap
// replicates) what FuzzReadRatings checks on cheap ones: the participants
// counted once, the file and its rows giving the same toplines, every
// share in [0, 1] and r in [−1, 1], each interval holding its estimate.
func TestToplinesProperties(t *testing.T) {
	for i, data := range toplinesPropertyInputs() {
		t.Run(analysis.Itoa(i), func(t *testing.T) {
			if _, err := ReadRatings(bytes.NewReader(data)); err != nil {
				t.Fatalf("a property input is refused: %v\n%s", err, data)
			}
			checkReadAndToplines(t, data, DefaultOptions())
		})
	}
}

// checkReadAndToplines reads data and, when the reader accepts it, checks
// the toplines computed with opt against the file's rows.
func checkReadAndToplines(t *testing.T, data []byte, opt Options) {
	{
		rs, err := ReadRatings(bytes.NewReader(data))
		if err != nil {
			atest.CheckInputError(t, err, data)
			return
		}
		rows := atest.FileRows(t, data)
		if rs.NumRows() != len(rows) {
			t.Fatalf("read %d ratings; the file has %d rows", rs.NumRows(), len(rows))
		}
		// Per participant, in first-seen order: ratings and checks.
		type count struct{ ratings, checks int }
		var ids []string
		want := map[string]*count{}
		for _, r := range rows {
			p := r["participant_id"]
			if want[p] == nil {
				ids = append(ids, p)
				want[p] = &count{}
			}
			if r["check"] == "" {
				want[p].ratings++
			} else {
				want[p].checks++
			}
		}
		top := ComputeToplines(rs, opt)
		ps := top.Participants
		if ps.Total != len(ids) || len(ps.Details) != len(ids) {
			t.Fatalf("%d participants (%d details); the file has %d", ps.Total, len(ps.Details), len(ids))
		}
		for i, d := range ps.Details {
			if w := want[ids[i]]; d.ID != ids[i] || d.Ratings != w.ratings || d.Checks != w.checks {
				t.Fatalf("participant %d is %+v; the file has %q with %d ratings and %d checks", i+1, d, ids[i], w.ratings, w.checks)
			}
		}
		// The same rows held in memory (the Analysis pages' path) give the
		// same toplines as the file.
		var mem []RatingRow
		for _, r := range rows {
			mem = append(mem, RatingRow{Participant: r["participant_id"], Batch: r["batch_id"], Item: r["item_id"], Type: r["item_type"],
				Condition: r["condition"], Rating: int(r["rating"][0] - '0'), Check: r["check"]})
		}
		fromRows, err := NewRatings(mem)
		if err != nil {
			t.Fatalf("NewRatings refuses the rows ReadRatings accepted: %v", err)
		}
		a, _ := json.Marshal(top)
		b, _ := json.Marshal(ComputeToplines(fromRows, opt))
		if !bytes.Equal(a, b) {
			t.Fatalf("toplines from the file and from its rows differ:\n%s\n%s", a, b)
		}
		// Every participant is counted once: analysed, excluded, constant
		// ratings or attention checks only (docs/statistics.md#participants-summary),
		// and is listed as their details say.
		if ps.Analysed+len(ps.Excluded)+len(ps.ZeroVariance)+len(ps.ChecksOnly) != ps.Total {
			t.Fatalf("participants %+v do not add up", ps)
		}
		for _, d := range ps.Details {
			in := map[string]bool{"excluded": slices.Contains(ps.Excluded, d.ID), "zero variance": slices.Contains(ps.ZeroVariance, d.ID), "checks only": slices.Contains(ps.ChecksOnly, d.ID)}
			want := map[string]bool{"excluded": d.Excluded, "zero variance": !d.Excluded && d.ZeroVariance, "checks only": !d.Excluded && d.ChecksOnly}
			for k := range in {
				if in[k] != want[k] {
					t.Fatalf("participant %+v: listed as %s %v, details say %v", d, k, in[k], want[k])
				}
			}
			if !d.Excluded && d.ChecksOnly != (d.Ratings == 0) {
				t.Fatalf("participant %+v: checks only %v with %d ratings", d, d.ChecksOnly, d.Ratings)
			}
		}
		for typ, tt := range top.ByType {
			for what, p := range map[string]*float64{"implicature": tt.ImplicatureRecognition, "cancellation": tt.CancellationRecognition,
				"belief update": tt.BeliefUpdate, "negation": tt.NegationCancellation, "strengthening": tt.Strengthening, "unchanged": tt.Unchanged} {
				atest.CheckShare(t, typ+" "+what, p, 0)
			}
			atest.CheckShare(t, typ+" pearson r", tt.PearsonR, -1)
			for what, e := range map[string][2]any{"implicature": {tt.ImplicatureRecognition, tt.ImplicatureRecognitionCI},
				"cancellation": {tt.CancellationRecognition, tt.CancellationRecognitionCI}, "pearson r": {tt.PearsonR, tt.PearsonRCI}} {
				x, ci := e[0].(*float64), e[1].(*analysis.CI)
				if opt.Bootstrap.Replicates == 0 && ci != nil {
					t.Fatalf("%s %s: an interval %v without a bootstrap", typ, what, *ci)
				}
				if ci != nil && (x == nil || *x < ci[0] || *x > ci[1]) {
					t.Fatalf("%s %s: the interval %v does not hold its estimate %v", typ, what, *ci, x)
				}
			}
		}
	}
}
