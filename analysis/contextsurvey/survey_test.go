package contextsurvey

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

const (
	p46 = "1946–1972"
	p73 = "1973–1993"
	p94 = "1994–2023"
)

// makePassages builds n passages per cell, keys "Kind-period-i".
func makePassages(counts map[[2]string]int) []SurveyPassage {
	var ps []SurveyPassage
	for c, n := range counts {
		for i := range n {
			ps = append(ps, SurveyPassage{Key: fmt.Sprintf("%s-%s-%02d", c[0], c[1][:4], i), Kind: c[0], Period: c[1]})
		}
	}
	slices.SortFunc(ps, func(a, b SurveyPassage) int { return strings.Compare(a.Key, b.Key) })
	return ps
}

// sampleCounts are the kind × period counts of the 130-row IMPAQTS-PID sample.
var sampleCounts = map[[2]string]int{
	{"Impl", p46}: 1, {"Impl", p73}: 16, {"Impl", p94}: 43,
	{"Ppp", p46}: 7, {"Ppp", p73}: 14, {"Ppp", p94}: 49,
}

func cellOf(ps []SurveyPassage) map[string][2]string {
	m := map[string][2]string{}
	for _, p := range ps {
		m[p.Key] = [2]string{p.Kind, p.Period}
	}
	return m
}

func checkNoRepeats(t *testing.T, plan SurveyPlan) {
	t.Helper()
	seen := map[string]int{}
	for _, s := range plan.Surveys {
		for _, k := range s.Keys {
			if prev, ok := seen[k]; ok {
				t.Errorf("passage %s in survey %d and %d", k, prev, s.Number)
			}
			seen[k] = s.Number
		}
	}
}

func TestBuildContextSurveysBalanced(t *testing.T) {
	ps := makePassages(map[[2]string]int{
		{"Impl", p46}: 30, {"Impl", p73}: 25, {"Impl", p94}: 40,
		{"Ppp", p46}: 22, {"Ppp", p73}: 30, {"Ppp", p94}: 30,
	})
	plan, err := BuildContextSurveys(ps, 3, 42, 7)
	if err != nil {
		t.Fatal(err)
	}
	if !plan.Balanced() {
		t.Errorf("shortfall with ample data: %q", plan.Shortfall)
	}
	cells := cellOf(ps)
	for _, s := range plan.Surveys {
		if len(s.Keys) != 42 {
			t.Errorf("survey %d has %d passages", s.Number, len(s.Keys))
		}
		per := map[[2]string]int{}
		for _, k := range s.Keys {
			per[cells[k]]++
		}
		for c, n := range per {
			if n != 7 {
				t.Errorf("survey %d: %v has %d passages, want 7", s.Number, c, n)
			}
		}
		if len(per) != 6 {
			t.Errorf("survey %d covers %d cells, want 6", s.Number, len(per))
		}
	}
	checkNoRepeats(t, plan)
}

func TestBuildContextSurveysSampleShortfall(t *testing.T) {
	ps := makePassages(sampleCounts)
	plan, err := BuildContextSurveys(ps, 3, 42, 1)
	if err != nil {
		t.Fatal(err)
	}
	checkNoRepeats(t, plan)
	cells := cellOf(ps)
	kinds := map[string]int{}
	for _, s := range plan.Surveys {
		if len(s.Keys) != 42 {
			t.Errorf("survey %d has %d passages, want 42 (130 passages are enough)", s.Number, len(s.Keys))
		}
		for _, k := range s.Keys {
			kinds[cells[k][0]]++
		}
	}
	// Impl has only 60 passages: all of them, Ppp makes up the rest.
	if kinds["Impl"] != 60 || kinds["Ppp"] != 66 {
		t.Errorf("kinds = %v, want Impl 60, Ppp 66", kinds)
	}
	got := map[string]int{}
	for _, c := range plan.Cells {
		got[c.Kind+" "+c.Period] = c.Taken
		if slices.Max(c.PerSurvey)-slices.Min(c.PerSurvey) > 1 {
			t.Errorf("%s %s spread unevenly over the surveys: %v", c.Kind, c.Period, c.PerSurvey)
		}
		if c.Wanted != 21 {
			t.Errorf("%s %s: wanted %d, want 21", c.Kind, c.Period, c.Wanted)
		}
	}
	want := map[string]int{"Impl " + p46: 1, "Impl " + p73: 16, "Impl " + p94: 43, "Ppp " + p46: 7, "Ppp " + p73: 14, "Ppp " + p94: 45}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("taken per cell = %v\nwant %v", got, want)
	}
	if plan.Balanced() {
		t.Fatal("no shortfall reported for a single 1946–1972 implicature")
	}
	report := strings.Join(plan.Shortfall, "\n")
	for _, s := range []string{"Impl 1946–1972: a balanced design wants 21, the data has 1", "Ppp 1994–2023: 24 more than balanced"} {
		if !strings.Contains(report, s) {
			t.Errorf("shortfall report lacks %q:\n%s", s, report)
		}
	}
}

func TestBuildContextSurveysSeeded(t *testing.T) {
	ps := makePassages(map[[2]string]int{{"Impl", p46}: 40, {"Ppp", p46}: 40, {"Impl", p94}: 40, {"Ppp", p94}: 40})
	a, _ := BuildContextSurveys(ps, 3, 42, 11)
	rev := slices.Clone(ps)
	slices.Reverse(rev)
	b, _ := BuildContextSurveys(rev, 3, 42, 11)
	if !reflect.DeepEqual(a.Surveys, b.Surveys) {
		t.Error("same passages in another order and the same seed gave other surveys")
	}
	c, _ := BuildContextSurveys(ps, 3, 42, 12)
	if reflect.DeepEqual(a.Surveys, c.Surveys) {
		t.Error("another seed gave the same surveys")
	}
}

func TestBuildContextSurveysTooFewPassages(t *testing.T) {
	ps := makePassages(map[[2]string]int{{"Impl", p46}: 20, {"Ppp", p46}: 30})
	ps = append(ps, SurveyPassage{Key: "no-period", Kind: "Impl"})
	plan, err := BuildContextSurveys(ps, 3, 42, 3)
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int
	for _, s := range plan.Surveys {
		sizes = append(sizes, len(s.Keys))
	}
	slices.Sort(sizes)
	if !reflect.DeepEqual(sizes, []int{16, 17, 17}) {
		t.Errorf("survey sizes %v, want 16, 17, 17", sizes)
	}
	report := strings.Join(plan.Shortfall, "\n")
	if !strings.Contains(report, "only 50 passages") || !strings.Contains(report, "no-period") {
		t.Errorf("report = %s", report)
	}
	if !reflect.DeepEqual(plan.Unplaced, []string{"no-period"}) {
		t.Errorf("unplaced = %v", plan.Unplaced)
	}
}

func TestBuildContextSurveysErrors(t *testing.T) {
	ps := []SurveyPassage{{Key: "a", Kind: "Impl", Period: p46}}
	if _, err := BuildContextSurveys(ps, 0, 42, 1); err == nil {
		t.Error("0 surveys accepted")
	}
	if _, err := BuildContextSurveys(append(ps, ps[0]), 3, 42, 1); err == nil || !strings.Contains(err.Error(), `"a" given twice`) {
		t.Errorf("duplicate key: err = %v", err)
	}
	if _, err := BuildContextSurveys([]SurveyPassage{{Key: "x"}}, 3, 42, 1); err == nil {
		t.Error("no placeable passage accepted")
	}
}

func TestFill(t *testing.T) {
	tests := []struct {
		caps  []int
		total int
		want  []int
	}{
		{[]int{100, 100, 100}, 63, []int{21, 21, 21}},
		{[]int{1, 16, 43}, 60, []int{1, 16, 43}},
		{[]int{7, 14, 49}, 66, []int{7, 14, 45}},
		{[]int{60, 70}, 126, []int{60, 66}},
		{[]int{5, 5}, 20, []int{5, 5}},
		{[]int{10, 10, 10}, 2, []int{1, 1, 0}},
	}
	for _, tt := range tests {
		if got := fill(tt.caps, tt.total); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("fill(%v, %d) = %v, want %v", tt.caps, tt.total, got, tt.want)
		}
	}
}
