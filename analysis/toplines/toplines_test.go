package toplines

import (
	"encoding/json"
	"errors"
	"math"
	"pragmalab/analysis"
	"pragmalab/analysis/internal/atest"
	"pragmalab/domain"
	"strings"
	"testing"
)

func mustToplines(t *testing.T, csv string, opt Options) *Toplines {
	t.Helper()
	rs, err := ReadRatingsWith(strings.NewReader(csv), ReadOptions{WithinParticipant: true}) // the fixtures rate items in several conditions per participant
	if err != nil {
		t.Fatal(err)
	}
	return ComputeToplines(rs, opt)
}

func TestToplinesFixture(t *testing.T) {
	top := mustToplines(t, atest.ToplinesFixture, DefaultOptions())
	ps := top.Participants
	if ps.Total != 5 || strings.Join(ps.Excluded, ",") != "pX" || strings.Join(ps.ZeroVariance, ",") != "pK" || ps.Analysed != 3 {
		t.Fatalf("participants = %+v", ps)
	}
	a := (2 + math.Sqrt(3)) / 3 // mean z of s1 trigger: (1 + 1 + √3) / 3
	means := map[string]map[Condition]float64{
		"s1": {Trigger: a, Cancel: -a},
		"s2": {Trigger: 2.0 / 3},
		"d1": {Trigger: -2.0 / 3, Cancel: 2.0 / 3},
		"y1": {Trigger: -2.0 / 3, Cancel: 1, Strengthen: 1, Neutral: -1, Negation: -1},
	}
	for _, m := range top.Items {
		want := means[m.ID]
		for c := range NumConditions {
			w, has := want[c]
			if has != m.Has(c) || (has && math.Abs(m.MeanZ[c]-w) > 1e-9) {
				t.Errorf("item %s %s: mean z %v (n %d), want %v (present %v)", m.ID, c, m.MeanZ[c], m.N[c], w, has)
			}
		}
	}
	type row struct {
		items                  int
		impl, canc, upd        string
		neg, str, unch, r      string
		leftCanc, leftStrength int
	}
	r := -0.9904822481686418
	tval := r * math.Sqrt(1/(1-r*r))
	pOneDF := 1 - 2*math.Atan(math.Abs(tval))/math.Pi // Student's t with 1 df is Cauchy
	want := map[string]row{
		"scalar":    {2, "1", "1", "1", "null", "null", "null", "null", 1, 2},
		"discourse": {1, "0", "0", "0", "null", "null", "null", "null", 0, 1},
		"synthetic": {1, "0", "0", "0", "1", "1", "1", "null", 0, 0},
		"natural":   {0, "null", "null", "null", "null", "null", "null", "null", 0, 0},
	}
	for typ, w := range want {
		g := top.ByType[typ]
		got := row{g.Items, atest.FmtPtr(g.ImplicatureRecognition), atest.FmtPtr(g.CancellationRecognition), atest.FmtPtr(g.BeliefUpdate),
			atest.FmtPtr(g.NegationCancellation), atest.FmtPtr(g.Strengthening), atest.FmtPtr(g.Unchanged), atest.FmtPtr(g.PearsonR),
			g.LeftOut[MCancellation], g.LeftOut[MStrengthen]}
		if got != w {
			t.Errorf("%s: got %+v, want %+v", typ, got, w)
		}
	}
	all := top.ByType[domain.TypeAll]
	if all.Items != 4 || !atest.Near(all.ImplicatureRecognition, 0.5) || !atest.Near(all.CancellationRecognition, 1.0/3) ||
		!atest.Near(all.BeliefUpdate, 1.0/3) || all.LeftOut[MCancellation] != 1 || all.PearsonN != 3 {
		t.Errorf("all: %+v", all)
	}
	if !atest.Near(all.PearsonR, r) || math.Abs(*all.PearsonP-pOneDF) > 1e-9 {
		t.Errorf("all: r %s p %s, want %v %v", atest.FmtPtr(all.PearsonR), atest.FmtPtr(all.PearsonP), r, pOneDF)
	}
}

func TestToplinesOptions(t *testing.T) {
	tests := []struct {
		name         string
		opt          Options
		excluded     string
		analysed     int
		s1Implicated bool
	}{
		{"stricter count excludes pB", Options{HighPass: 5, LowPass: 3, MaxFailed: 2}, "pB,pX", 2, true},
		{"include overrides checks", Options{HighPass: 5, LowPass: 3, MaxFailed: 3, Include: []string{"pX"}}, "", 4, true},
		{"exclude override", Options{HighPass: 5, LowPass: 3, MaxFailed: 3, Exclude: []string{"pA"}}, "pA,pX", 2, true},
		{"lenient thresholds keep pX", Options{HighPass: 1, LowPass: 7, MaxFailed: 3}, "", 4, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			top := mustToplines(t, atest.ToplinesFixture, tc.opt)
			if got := strings.Join(top.Participants.Excluded, ","); got != tc.excluded || top.Participants.Analysed != tc.analysed {
				t.Errorf("excluded %q analysed %d, want %q %d", got, top.Participants.Analysed, tc.excluded, tc.analysed)
			}
		})
	}
}

func TestToplinesJSONKeysAndNulls(t *testing.T) {
	top := mustToplines(t, atest.ToplinesFixture, DefaultOptions())
	b, err := json.Marshal(top)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	parts := m["participants"].(map[string]any)
	for _, k := range []string{"total", "excluded", "zero_variance"} {
		if _, ok := parts[k]; !ok {
			t.Errorf("participants lacks %q", k)
		}
	}
	byType := m["by_type"].(map[string]any)
	for _, typ := range []string{"scalar", "discourse", "synthetic", "natural", "all"} {
		tt, ok := byType[typ].(map[string]any)
		if !ok {
			t.Fatalf("by_type lacks %q", typ)
		}
		for _, k := range []string{"items", "implicature_recognition", "cancellation_recognition", "belief_update", "pearson_r", "pearson_p", "strengthening", "unchanged"} {
			if _, ok := tt[k]; !ok {
				t.Errorf("by_type.%s lacks %q", typ, k)
			}
		}
	}
	if nat := byType["natural"].(map[string]any); nat["implicature_recognition"] != nil || nat["pearson_r"] != nil {
		t.Errorf("natural has no items: measures must be null, got %v", nat)
	}
}

func TestToplinesOnlyConstantRater(t *testing.T) {
	top := mustToplines(t, atest.RatingsHeader+"p1,B,s1,scalar,trigger,3,\np1,B,s1,scalar,cancel,3,\n", DefaultOptions())
	if strings.Join(top.Participants.ZeroVariance, ",") != "p1" || top.Participants.Analysed != 0 {
		t.Fatalf("participants = %+v", top.Participants)
	}
	s := top.ByType["scalar"]
	// The item exists but no z-score reaches it: every measure lacks its conditions.
	if s.Items != 1 || s.ImplicatureRecognition != nil || s.LeftOut[MImplicature] != 1 {
		t.Errorf("scalar = %+v", s)
	}
	if _, err := json.Marshal(top); err != nil {
		t.Errorf("NaN must not reach JSON: %v", err)
	}
}

func TestPearson(t *testing.T) {
	// df = 3 has a closed-form CDF: F(t) = 1/2 + (θ + sinθcosθ)/π with θ = atan(t/√3).
	x, y := []float64{1, 2, 3, 4, 5}, []float64{2, 4, 5, 4, 5}
	r, p, ok := Pearson(x, y)
	wantR := 0.7745966692414834 // 3/√15
	tv := wantR * math.Sqrt(3/(1-wantR*wantR))
	th := math.Atan(tv / math.Sqrt(3))
	wantP := 2 * (1 - (0.5 + (th+math.Sin(th)*math.Cos(th))/math.Pi))
	if !ok || math.Abs(r-wantR) > 1e-12 || math.Abs(p-wantP) > 1e-9 {
		t.Errorf("Pearson = %v %v %v, want %v %v", r, p, ok, wantR, wantP)
	}
	if math.Abs(wantP-0.1240) > 5e-4 {
		t.Errorf("oracle p = %v, want about 0.124", wantP)
	}
	for name, xy := range map[string][2][]float64{
		"two points":   {{1, 2}, {2, 1}},
		"constant x":   {{1, 1, 1}, {1, 2, 3}},
		"constant y":   {{1, 2, 3}, {5, 5, 5}},
		"empty inputs": {{}, {}},
	} {
		if _, _, ok := Pearson(xy[0], xy[1]); ok {
			t.Errorf("%s: Pearson should be undefined", name)
		}
	}
	if r, p, ok := Pearson([]float64{1, 2, 3}, []float64{3, 2, 1}); !ok || r != -1 || p != 0 {
		t.Errorf("perfect negative: %v %v %v", r, p, ok)
	}
}

func TestReadRatingsErrors(t *testing.T) {
	h := atest.RatingsHeader
	tests := []struct {
		name, csv string
		line      int
		column    string
	}{
		{"empty file", "", 1, ""},
		{"header only", h, 1, ""}, // the header's line: a file of one line has no line 2
		{"unknown column", "participant_id,batch_id,item_id,item_type,condition,rating,check,age\n", 1, "age"},
		{"missing column", "participant_id,batch_id,item_id,item_type,condition,check\n", 1, "rating"},
		{"twice in header", "participant_id,batch_id,item_id,item_type,condition,rating,rating\n", 1, "rating"},
		// A study's scale has 2–11 points (docs/studies.md#rating-scale): 12 is off every scale.
		{"rating 12", h + "p1,B,s1,scalar,trigger,6,\np1,B,s2,scalar,trigger,12,\n", 3, "rating"},
		{"rating 05", h + "p1,B,s1,scalar,trigger,05,\n", 2, "rating"},
		{"rating 0", h + "p1,B,s1,scalar,trigger,0,\n", 2, "rating"},
		{"non-integer", h + "p1,B,s1,scalar,trigger,5.5,\n", 2, "rating"},
		{"empty rating", h + "p1,B,s1,scalar,trigger,,\n", 2, "rating"},
		{"bad condition", h + "p1,B,s1,scalar,cancelled,5,\n", 2, "condition"},
		{"bad type", h + "p1,B,s1,Scalar-ish,trigger,5,\n", 2, "item_type"},
		{"conflicting type", h + "p1,B,s1,scalar,trigger,5,\np2,B,s1,natural,trigger,5,\n", 3, "item_type"},
		{"bad check", h + "p1,B,c1,,trigger,5,maybe\n", 2, "check"},
		{"empty participant", h + ",B,s1,scalar,trigger,5,\n", 2, "participant_id"},
		{"duplicate", h + "p1,B,s1,scalar,trigger,5,\np1,B,s1,scalar,cancel,2,\np2,B,s1,scalar,trigger,5,\np1,B,s1,scalar,trigger,6,\n", 5, "item_id"},
		{"duplicate check", h + "p1,B,c1,,trigger,5,high\np1,B,c1,,trigger,6,high\n", 3, "item_id"},
		{"field count", h + "p1,B,s1,scalar,trigger,5\n", 2, ""},
		{"bad quote", h + "p1,B,\"s1,scalar,trigger,5,\n", 2, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadRatings(strings.NewReader(tc.csv))
			var ie *analysis.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("err = %v, want an InputError", err)
			}
			if ie.Line != tc.line || ie.Column != tc.column {
				t.Errorf("error at line %d column %q, want line %d column %q: %v", ie.Line, ie.Column, tc.line, tc.column, ie)
			}
			if !strings.Contains(ie.Error(), "line ") {
				t.Errorf("message %q does not name the line", ie.Error())
			}
		})
	}
}

func TestReadRatingsTolerance(t *testing.T) {
	// Column order is free; a BOM, capitalised headers, spaces, CRLF and a
	// check row without condition are accepted.
	csv := "\uFEFFRating, Check ,condition,item_type,item_id,batch_id,participant_id\r\n" +
		"5,,trigger,scalar,s1,B,p1\r\n2,,cancel,scalar,s1,B,p1\r\n6,high,,,c1,B,p1\r\n"
	rs, err := ReadRatingsWith(strings.NewReader(csv), ReadOptions{WithinParticipant: true})
	if err != nil {
		t.Fatal(err)
	}
	top := ComputeToplines(rs, DefaultOptions())
	if top.ByType["scalar"].Items != 1 || !atest.Near(top.ByType["scalar"].CancellationRecognition, 1) {
		t.Errorf("scalar = %+v", top.ByType["scalar"])
	}
}
