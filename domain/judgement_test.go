package domain

import (
	"strings"
	"testing"
)

func judgementSettings() CrowdSettings {
	s := DefaultJudgementSettings()
	s.Conditions = []string{"kontrolle", "zielsatz"}
	s.ScalePoints = 5
	s.CheckHighMin, s.CheckLowMax = 4, 2
	s.ScaleLabels = map[string]string{"1": "völlig unnatürlich", "5": "völlig natürlich"}
	return s
}

// TestJudgementSettingsRefusals: the researcher's own conditions, both
// end labels and thresholds that do not overlap (docs/studies.md#judgement-settings).
func TestJudgementSettingsRefusals(t *testing.T) {
	ok := judgementSettings()
	if err := ok.Validate(); err != nil {
		t.Fatalf("a valid judgement design refused: %v", err)
	}
	for _, c := range []struct {
		name string
		edit func(*CrowdSettings)
		want string
	}{
		{"no conditions", func(s *CrowdSettings) { s.Conditions = nil }, "names its conditions"},
		{"condition twice", func(s *CrowdSettings) { s.Conditions = []string{"a", "A"} }, `"A" given twice`},
		{"condition with a space", func(s *CrowdSettings) { s.Conditions = []string{"ziel satz"} }, "is not a condition name"},
		{"missing high label", func(s *CrowdSettings) { delete(s.ScaleLabels, "5") }, "the high end, point 5 of 5, has no label"},
		{"missing both labels, 7 points", func(s *CrowdSettings) { s.ScalePoints = 7; s.ScaleLabels = nil; s.CheckHighMin, s.CheckLowMax = 5, 3 }, "the low end, point 1 of 7, has no label"},
		{"overlapping thresholds", func(s *CrowdSettings) { s.CheckHighMin, s.CheckLowMax = 2, 4 }, "check thresholds overlap"},
		{"training in the settings", func(s *CrowdSettings) { s.Training = []CrowdTrainingSpec{{Key: "p1", Condition: "trigger"}} }, "training column"},
		{"screen-out out of range", func(s *CrowdSettings) { s.PracticeScreenOut = 11 }, "practice screen-out"},
	} {
		s := judgementSettings()
		c.edit(&s)
		err := s.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
	crowd := DefaultCrowdSettings()
	crowd.PracticeScreenOut = 2
	if err := crowd.Validate(); err == nil {
		t.Error("a crowd study took practice_screen_out, a judgement study's setting")
	}
}

// TestJudgementItems: a minimal pair is one item in two conditions; an
// undeclared condition, a missing one, and a check in two conditions are
// refused, naming the item (docs/items.md#judgement-items).
func TestJudgementItems(t *testing.T) {
	conds := []string{"kontrolle", "zielsatz"}
	pair := Item{Key: "1", Type: "Judgement", Variants: map[string]Variant{
		"kontrolle": {Sentence: " Der Hund bellt. "}, "zielsatz": {Context: "Im Garten:", Sentence: "Den Hund bellt."}}}
	if err := pair.Validate(); err != nil {
		t.Fatal(err)
	}
	if pair.Type != TypeJudgement || pair.Variants["kontrolle"].Sentence != "Der Hund bellt." {
		t.Fatalf("not normalised: %+v", pair)
	}
	if err := pair.ValidateJudgementItem(conds); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		it   Item
		want string
	}{
		{"undeclared", Item{Key: "2", Type: "judgement", Variants: map[string]Variant{"kontrolle": {Sentence: "a"}, "filler": {Sentence: "b"}}}, `condition "filler", which the study does not declare`},
		{"missing condition", Item{Key: "3", Type: "judgement", Variants: map[string]Variant{"kontrolle": {Sentence: "a"}}}, `no sentence in the condition "zielsatz"`},
		{"check in two", Item{Key: "4", Type: "judgement", Check: "high", Variants: map[string]Variant{"kontrolle": {Sentence: "a"}, "zielsatz": {Sentence: "b"}}}, "attention check and has 2 conditions"},
	} {
		if err := c.it.Validate(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		err := c.it.ValidateJudgementItem(conds)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
	empty := Item{Key: "5", Type: "judgement", Variants: map[string]Variant{"kontrolle": {Sentence: "  "}}}
	if err := empty.Validate(); err == nil || !strings.Contains(err.Error(), "is empty") {
		t.Errorf("an empty sentence: %v", err)
	}
}

// TestPracticeExpectations: the training column's values and their
// ranges on the study's scale (docs/studies.md#judgement-practice).
func TestPracticeExpectations(t *testing.T) {
	s := judgementSettings()
	for _, c := range []struct {
		in, stored string
		from, to   int
		err        string
	}{
		{"any", "any", 0, 0, ""},
		{"HIGH", "high", 4, 5, ""},
		{"low", "low", 1, 2, ""},
		{"4-5", "4-5", 4, 5, ""},
		{"4 – 5", "4-5", 4, 5, ""},
		{"3", "3", 3, 3, ""},
		{"1-5", "1-5", 0, 0, "whole 5-point scale"},
		{"4-6", "4-6", 0, 0, "outside the 5-point scale"},
		{"5-4", "", 0, 0, "must run upwards"},
		{"sometimes", "", 0, 0, "unknown value"},
	} {
		stored, err := ParsePracticeExpect(c.in)
		if err != nil {
			if c.err == "" || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: %v", c.in, err)
			}
			continue
		}
		if stored != c.stored {
			t.Errorf("%q stored as %q, want %q", c.in, stored, c.stored)
		}
		r, err := s.PracticeRangeOf(stored)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: got %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || r.From != c.from || r.To != c.to {
			t.Errorf("%q: range %v (%v), want %d–%d", c.in, r, err, c.from, c.to)
		}
	}
	if JudgementPracticePasses(PracticeRange{4, 5}, 3) || !JudgementPracticePasses(PracticeRange{4, 5}, 4) || !JudgementPracticePasses(PracticeRange{}, 1) {
		t.Error("practice ranges judged wrongly")
	}
}
