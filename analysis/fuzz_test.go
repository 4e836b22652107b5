package analysis

// Fuzz tests of the analyze readers. `go test ./analysis` replays the seeds
// (the f.Add calls and testdata/fuzz/FuzzXxx/); docs/testing.md says how to
// fuzz further. A file is either refused with an *InputError naming one of
// its lines, or accepted with every row read — checked against the rows
// encoding/csv sees in the same file — and its analysis computes.

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// numLines is the number of lines of data: its last line need not end in a
// line break.
func numLines(data []byte) int { return bytes.Count(data, []byte("\n")) + 1 }

// checkInputError fails unless err is an *InputError naming a line of data.
func checkInputError(t *testing.T, err error, data []byte) {
	t.Helper()
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Fatalf("error %q (%T) is not an *InputError", err, err)
	}
	if ie.Line < 1 || ie.Line > numLines(data) || ie.Msg == "" {
		t.Fatalf("error %q names line %d; the file has %d lines", err, ie.Line, numLines(data))
	}
}

// fileRows reads an accepted file again with encoding/csv and returns its
// data rows as maps from the (normalised) header name to the trimmed value.
func fileRows(t *testing.T, data []byte) []map[string]string {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatalf("accepted a file encoding/csv refuses: %v", err)
	}
	var header []string
	for _, h := range recs[0] {
		header = append(header, strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\uFEFF"))))
	}
	var rows []map[string]string
	for _, rec := range recs[1:] {
		m := map[string]string{}
		for i, v := range rec {
			m[header[i]] = strings.TrimSpace(v)
		}
		rows = append(rows, m)
	}
	return rows
}

// checkShare fails unless p is nil or a number in [lo, 1].
func checkShare(t *testing.T, what string, p *float64, lo float64) {
	t.Helper()
	if p != nil && (math.IsNaN(*p) || *p < lo-1e-9 || *p > 1+1e-9) {
		t.Fatalf("%s = %v, outside [%v, 1]", what, *p, lo)
	}
}

func FuzzReadRatings(f *testing.F) {
	f.Add([]byte(toplinesFixture))
	f.Add([]byte("\uFEFFRating, Check ,condition,item_type,item_id,batch_id,participant_id\r\n" +
		"5,,trigger,scalar,s1,B,p1\r\n2,,cancel,scalar,s1,B,p1\r\n6,high,,,c1,B,p1\r\n"))
	f.Add([]byte(ratingsHeader + "p1,B,s1,scalar,trigger,5,\np1,B,s1,scalar,trigger,6,\n"))
	f.Add([]byte(ratingsHeader + "p1,B,s1,scalar,trigger,8,\n"))
	f.Add([]byte(ratingsHeader + "p1,B,s1,scalar,trigger,5,\np1,B,s1,natural,cancel,5,\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rs, err := ReadRatings(bytes.NewReader(data))
		if err != nil {
			checkInputError(t, err, data)
			return
		}
		rows := fileRows(t, data)
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
				checkShare(t, typ+" "+what, p, 0)
			}
			checkShare(t, typ+" pearson r", tt.PearsonR, -1)
		}
	})
}

func FuzzReadJudgements(f *testing.F) {
	h := strings.Join(JudgementsColumns, ",") + "\n"
	f.Add([]byte(h + "a,i1,scalar,yes,yes\nb,i1,scalar,yes,no\nc,i1,scalar,no,\na,i2,natural,Y,N\nb,i2,natural,true,false\n"))
	f.Add([]byte("\uFEFFitem_id, Annotator_ID ,item_type,cancellation_correct,plausible\r\ni1,e1,discourse,,no\r\ni1,e2,discourse,1,1\r\n"))
	f.Add([]byte(h + "a,i1,scalar,yes,yes\na,i1,scalar,no,\n"))
	f.Add([]byte(h + "a,i1,scalar,maybe,\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		js, err := ReadJudgements(bytes.NewReader(data))
		if err != nil {
			checkInputError(t, err, data)
			return
		}
		rows := fileRows(t, data)
		if len(js) != len(rows) {
			t.Fatalf("read %d judgements; the file has %d rows", len(js), len(rows))
		}
		judged := map[string]map[string]bool{}
		for i, j := range js {
			r := rows[i]
			if j.Annotator != r["annotator_id"] || j.Item != r["item_id"] || j.Type != r["item_type"] || j.HasCancellation != (r["cancellation_correct"] != "") {
				t.Fatalf("judgement %d is %+v; the file says %v", i+1, j, r)
			}
			if judged[j.Annotator] == nil {
				judged[j.Annotator] = map[string]bool{}
			}
			judged[j.Annotator][j.Item] = true
		}
		ag := ComputeAgreement(js)
		n := len(judged)
		if len(ag.Annotators) != n || !slices.IsSorted(ag.Annotators) || len(ag.Pairs) != n*(n-1)/2 {
			t.Fatalf("%d annotators %q in %d pairs; the file has %d annotators", len(ag.Annotators), ag.Annotators, len(ag.Pairs), n)
		}
		for _, p := range ag.Pairs {
			both := 0
			for it := range judged[p.A] {
				if judged[p.B][it] {
					both++
				}
			}
			if p.Plausibility.Items != both || p.Cancellation.Items > both {
				t.Fatalf("pair %s–%s: %d and %d items; they judged %d items both", p.A, p.B, p.Plausibility.Items, p.Cancellation.Items, both)
			}
		}
		for what, b := range map[string]Binary{"plausibility": ag.Plausibility.Binary, "cancellation": ag.Cancellation.Binary} {
			checkShare(t, what+" raw", b.Raw, 0)
			checkShare(t, what+" kappa", b.Kappa, math.Inf(-1))
			checkShare(t, what+" pabak", b.PABAK, -1)
			checkShare(t, what+" fleiss", b.FleissKappa, math.Inf(-1))
		}
	})
}

func FuzzReadContextAnswers(f *testing.F) {
	h := strings.Join(ContextColumns, ",") + "\n"
	f.Add([]byte(h + "e1,S1,22185,Impl,1994–2023,0,yes\ne2,S1,22185,Impl,1994–2023,2,yes\ne3,S1,22185,Impl,1994–2023,4,no\ne1,S2,41290,Ppp,1973–1993,5,no\n"))
	f.Add([]byte("\uFEFFSufficient,sentences,period,kind,item_id,survey_id,annotator_id\r\nY,1,,Ppp,7,S,a\r\n"))
	f.Add([]byte(h + "e1,S1,1,Impl,,6,yes\n"))
	f.Add([]byte(h + "e1,S1,1,Impl,,1,yes\ne1,S1,1,Impl,,2,no\n"))
	// A passage of four preceding sentences: "no" at 4 is final there.
	f.Add([]byte(strings.TrimSuffix(h, "\n") + "," + ContextMaxColumn + "\ne1,S1,22185,Impl,1994–2023,4,no,4\ne2,S1,22185,Impl,1994–2023,1,yes,4\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		as, err := ReadContextAnswers(bytes.NewReader(data))
		if err != nil {
			checkInputError(t, err, data)
			return
		}
		rows := fileRows(t, data)
		if len(as) != len(rows) {
			t.Fatalf("read %d answers; the file has %d rows", len(as), len(rows))
		}
		items := map[[2]string]bool{}
		perSurvey := map[string]int{}
		for i, a := range as {
			r := rows[i]
			if a.Annotator != r["annotator_id"] || a.Survey != r["survey_id"] || a.Item != r["item_id"] || a.Kind != r["kind"] || a.Period != r["period"] {
				t.Fatalf("answer %d is %+v; the file says %v", i+1, a, r)
			}
			if c := a.Category(); c < 0 || c > MaxAddedSentences+1 {
				t.Fatalf("answer %d: category %d", i+1, c)
			}
			items[[2]string{a.Survey, a.Item}] = true
			perSurvey[a.Survey]++
		}
		c := ComputeContext(as)
		if c.Overall.Judgements != len(as) || c.Overall.Items != len(items) || len(c.Surveys) != len(perSurvey) {
			t.Fatalf("overall %d judgements of %d items in %d surveys; the file has %d, %d, %d",
				c.Overall.Judgements, c.Overall.Items, len(c.Surveys), len(as), len(items), len(perSurvey))
		}
		for s, n := range perSurvey {
			if c.Surveys[s].Judgements != n {
				t.Fatalf("survey %q: %d judgements, the file has %d", s, c.Surveys[s].Judgements, n)
			}
		}
		for k, p := range c.Overall.CumulativeJudgements {
			checkShare(t, "cumulative judgements", p, 0)
			if k > 0 && p != nil && *p < *c.Overall.CumulativeJudgements[k-1]-1e-9 {
				t.Fatalf("cumulative judgements fall at %d: %v", k, *p)
			}
		}
		checkShare(t, "fleiss", c.Overall.FleissKappa, math.Inf(-1))
	})
}

func FuzzReadExplanationRatings(f *testing.F) {
	h := strings.Join(ExplanationColumns, ",") + "\n"
	f.Add([]byte(h + "e1,i1,Impl,zero-shot,totally_correct\ne1,i2,Impl,zero-shot,Partially correct\ne2,i3,Impl,zero-shot,totally_wrong\n" +
		"e2,i4,Impl,zero-shot,Answer not given\ne1,i1,Impl,few-shot,Correct among various options\ne1,i5,Ppp,zero-shot,totally_wrong\n"))
	f.Add([]byte("\uFEFFModel,judgment,strategy,kind,item_id,annotator_id\r\ngemma,totally-correct,cot,Ppp,1,ann\r\nllama,NO ANSWER,cot,Ppp,1,ann\r\n"))
	f.Add([]byte(h + "e1,i1,Impl,zs,great\n"))
	f.Add([]byte(h + "e1,i1,Impl,zs,totally_correct\ne1,i1,Impl,zs,totally_wrong\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rs, err := ReadExplanationRatings(bytes.NewReader(data))
		if err != nil {
			checkInputError(t, err, data)
			return
		}
		rows := fileRows(t, data)
		if len(rs) != len(rows) {
			t.Fatalf("read %d ratings; the file has %d rows", len(rs), len(rows))
		}
		type cell struct{ kind, strategy string }
		want := map[cell]int{}
		for i, e := range rs {
			r := rows[i]
			if e.Annotator != r["annotator_id"] || e.Item != r["item_id"] || e.Kind != r["kind"] || e.Strategy != r["strategy"] || e.Judgment < 0 || e.Judgment >= len(Judgments) {
				t.Fatalf("rating %d is %+v; the file says %v", i+1, e, r)
			}
			want[cell{e.Kind, e.Strategy}]++
		}
		ex := ComputeExplanations(rs)
		for c, n := range want {
			got := ex.Table[c.kind][c.strategy]
			if got == nil || got.N != n {
				t.Fatalf("cell %s × %s holds %+v; the file has %d ratings there", c.kind, c.strategy, got, n)
			}
			sum := 0
			for _, k := range got.Counts {
				sum += k
			}
			if sum != n {
				t.Fatalf("cell %s × %s: counts %v do not add up to %d", c.kind, c.strategy, got.Counts, n)
			}
			checkShare(t, "acceptable", got.Acceptable(), 0)
		}
	})
}
