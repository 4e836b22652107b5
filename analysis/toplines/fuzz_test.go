package toplines

import (
	"bytes"
	"encoding/json"
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
	f.Fuzz(func(t *testing.T, data []byte) {
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
		top := ComputeToplines(rs, DefaultOptions())
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
		b, _ := json.Marshal(ComputeToplines(fromRows, DefaultOptions()))
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
		}
	})
}
