package domain

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The judgement study (docs/studies.md#judgement-study) is a rating or
// acceptability study of the researcher's own design: conditions of their
// own naming, items that are sets of sentences sharing an id (a minimal
// pair is an item in two conditions), a labelled scale of 2–11 points and
// practice feedback the researcher sets. It runs on the crowd study's
// machinery — entry, consent, batches, checks, traps, Prolific — with
// these differences, each decided here.

// KindJudgement is the judgement study's kind.
const KindJudgement = "judgement"

// TypeJudgement is the type of every judgement item: the items of a
// judgement study carry no implicature fields.
const TypeJudgement = "judgement"

// IsCrowdKind reports whether a study of kind runs the crowd study's
// participant flow (Prolific entry, consent, practice, batches of rating
// screens): the crowd likelihood study and the judgement study.
func IsCrowdKind(kind string) bool { return kind == KindCrowd || kind == KindJudgement }

// Variant is one condition's text of a judgement item: the sentence rated
// and an optional context shown above it (docs/items.md#judgement-items).
type Variant struct {
	Context  string `json:"context,omitempty"`
	Sentence string `json:"sentence"`
}

// MaxJudgementConditions bounds a judgement study's conditions.
const MaxJudgementConditions = 12

// conditionName is a judgement condition's name: letters of any script,
// digits, _ and -, starting with a letter, as it appears in the ratings
// file, the R companion's factor and the tables.
var conditionName = regexp.MustCompile(`^\p{L}[\p{L}\p{N}_-]*$`)

// CheckConditionName checks a judgement condition's name.
func CheckConditionName(c string) error {
	if c == "" || utf8.RuneCountInString(c) > 40 || !conditionName.MatchString(c) {
		return Errorf(EINVALID, "conditions: %q is not a condition name: 1–40 letters, digits, _ or -, starting with a letter", c)
	}
	if IsPooledName(c) {
		return Errorf(EINVALID, "conditions: %q is reserved for the pooled row of the tables", c)
	}
	return nil
}

// checkJudgementConditions checks a judgement study's own conditions:
// 1–12 names, each once (letter case aside).
func checkJudgementConditions(conds []string) error {
	if len(conds) == 0 {
		return Errorf(EINVALID, "conditions: a judgement study names its conditions (for example [\"control\", \"target\"])")
	}
	if len(conds) > MaxJudgementConditions {
		return Errorf(EINVALID, "conditions: at most %d, got %d", MaxJudgementConditions, len(conds))
	}
	seen := map[string]bool{}
	for _, c := range conds {
		if err := CheckConditionName(c); err != nil {
			return err
		}
		if seen[strings.ToLower(c)] {
			return Errorf(EINVALID, "conditions: %q given twice", c)
		}
		seen[strings.ToLower(c)] = true
	}
	return nil
}

// DefaultJudgementSettings are a judgement study's defaults: the crowd
// study's, with no conditions, no labels and no practice screen-out. The
// researcher names the conditions and labels both ends of the scale;
// nothing of either is filled in.
func DefaultJudgementSettings() CrowdSettings {
	s := DefaultCrowdSettings()
	s.Kind = KindJudgement
	s.Conditions = nil
	return s
}

// SettingsFor is the defaults of a crowd-flow kind's settings.
func SettingsFor(kind string) CrowdSettings {
	if kind == KindJudgement {
		return DefaultJudgementSettings()
	}
	return DefaultCrowdSettings()
}

// Judgement reports whether the settings are a judgement study's.
func (s CrowdSettings) Judgement() bool { return s.Kind == KindJudgement }

// Practice expectations of a judgement study's practice items
// (docs/studies.md#judgement-practice): the items file's training column.
const (
	PracticeAny  = "any"  // no answer is wrong: no feedback of right or wrong
	PracticeHigh = "high" // at or above check_high_min
	PracticeLow  = "low"  // at or below check_low_max
)

// PracticeRange is the range of ratings a practice item expects, From–To;
// zero for an item without one (PracticeAny).
type PracticeRange struct{ From, To int }

// Any reports whether the range accepts every answer.
func (r PracticeRange) Any() bool { return r.From == 0 }

// String writes the range as the feedback names it: "4–5", or "5".
func (r PracticeRange) String() string {
	if r.From == r.To {
		return strconv.Itoa(r.From)
	}
	return fmt.Sprintf("%d–%d", r.From, r.To)
}

var practiceRangeRE = regexp.MustCompile(`^([0-9]{1,2})(?:\s*[-–]\s*([0-9]{1,2}))?$`)

// ParsePracticeExpect checks a judgement item's training value as the
// items file gives it — any, high, low, a point ("5") or a range ("4-5") —
// and returns it in its stored form ("4-5"). The range is checked against
// the scale when the study's settings are known (PracticeRangeOf).
func ParsePracticeExpect(v string) (string, error) {
	v = strings.ToLower(strings.TrimSpace(v))
	switch v {
	case "", PracticeAny, PracticeHigh, PracticeLow:
		return v, nil
	}
	m := practiceRangeRE.FindStringSubmatch(v)
	if m == nil {
		return "", fmt.Errorf("unknown value %q (want any, high, low, a point such as 5, or a range such as 4-5)", v)
	}
	from, _ := strconv.Atoi(m[1])
	to := from
	if m[2] != "" {
		to, _ = strconv.Atoi(m[2])
	}
	if from < 1 || to < from || to > MaxScalePoints {
		return "", fmt.Errorf("range %q must run upwards between 1 and %d", v, MaxScalePoints)
	}
	if from == to {
		return strconv.Itoa(from), nil
	}
	return fmt.Sprintf("%d-%d", from, to), nil
}

// PracticeRangeOf is the range a judgement practice item's stored
// training value expects on the study's scale.
func (s CrowdSettings) PracticeRangeOf(expect string) (PracticeRange, error) {
	n := s.Points()
	switch expect {
	case "", PracticeAny:
		return PracticeRange{}, nil
	case PracticeHigh:
		return PracticeRange{s.CheckHighMin, n}, nil
	case PracticeLow:
		return PracticeRange{1, s.CheckLowMax}, nil
	}
	from, to, ok := strings.Cut(expect, "-")
	a, err := strconv.Atoi(from)
	if err != nil {
		return PracticeRange{}, Errorf(EINVALID, "practice range %q is not a range", expect)
	}
	b := a
	if ok {
		if b, err = strconv.Atoi(to); err != nil {
			return PracticeRange{}, Errorf(EINVALID, "practice range %q is not a range", expect)
		}
	}
	if a < 1 || b > n || b < a {
		return PracticeRange{}, Errorf(EINVALID, "practice range %s lies outside the %d-point scale", PracticeRange{a, b}, n)
	}
	if a == 1 && b == n {
		return PracticeRange{}, Errorf(EINVALID, "practice range %s is the whole %d-point scale: no answer could be wrong; write any for a practice item without an expected answer", PracticeRange{a, b}, n)
	}
	return PracticeRange{a, b}, nil
}

// Points is the scale's number of points (0 is read as the default 7).
func (s CrowdSettings) Points() int {
	if s.ScalePoints == 0 {
		return RatingMax
	}
	return s.ScalePoints
}

// JudgementPracticePasses reports whether a practice answer lies in the
// item's expected range; an item without one (any) takes every answer.
func JudgementPracticePasses(r PracticeRange, rating int) bool {
	return r.Any() || (rating >= r.From && rating <= r.To)
}

// validateJudgement checks what a judgement study adds to the crowd
// settings: its own conditions, both end labels always (there are no
// default labels for a judgement scale), and the practice screen-out.
func (s *CrowdSettings) validateJudgement() error {
	if err := checkJudgementConditions(s.Conditions); err != nil {
		return err
	}
	if len(s.Training) > 0 {
		return Errorf(EINVALID, "training: a judgement study marks its practice items in the items file (the training column), not in the settings")
	}
	if s.PracticeScreenOut < 0 || s.PracticeScreenOut > 10 {
		return Errorf(EINVALID, "practice screen-out must be 0 (never) to 10 wrong answers on one practice item, got %d", s.PracticeScreenOut)
	}
	for _, end := range []struct {
		point int
		name  string
	}{{1, "low"}, {s.Points(), "high"}} {
		if strings.TrimSpace(s.ScaleLabels[strconv.Itoa(end.point)]) == "" {
			return Errorf(EINVALID, "scale labels: the %s end, point %d of %d, has no label; a judgement study labels both ends of its scale (1 and %d), and none is filled in",
				end.name, end.point, s.Points(), s.Points())
		}
	}
	return nil
}

// ValidateJudgementItem checks a judgement item against its study's
// conditions: a data item has a sentence in every condition the study
// declares and in no other; an attention check or practice item has one
// condition, declared (docs/items.md#judgement-items).
func (it Item) ValidateJudgementItem(declared []string) error {
	var undeclared []string
	for c := range it.Variants {
		if !slices.Contains(declared, c) {
			undeclared = append(undeclared, c)
		}
	}
	slices.Sort(undeclared)
	if len(undeclared) > 0 {
		return &FieldError{"condition", fmt.Sprintf("item %q is in the condition %q, which the study does not declare (its conditions: %s)",
			it.Key, undeclared[0], strings.Join(declared, ", "))}
	}
	if !it.IsData() {
		if len(it.Variants) != 1 {
			role := "an attention check"
			if it.Training != "" {
				role = "a practice item"
			}
			return &FieldError{"condition", fmt.Sprintf("item %q is %s and has %d conditions; give it one row, in one condition", it.Key, role, len(it.Variants))}
		}
		return nil
	}
	for _, c := range declared {
		if _, ok := it.Variants[c]; !ok {
			return &FieldError{"condition", fmt.Sprintf("item %q has no sentence in the condition %q; every item needs a row in each of the study's conditions (%s) for the Latin square",
				it.Key, c, strings.Join(declared, ", "))}
		}
	}
	return nil
}

// JudgementCondition is the one condition of a judgement attention check
// or practice item ("" for a data item, which is in all).
func (it Item) JudgementCondition() string {
	if it.IsData() || len(it.Variants) != 1 {
		return ""
	}
	for c := range it.Variants {
		return c
	}
	return ""
}

// validateJudgementTexts checks a judgement item's id, role and texts;
// the implicature fields stay empty.
func (it *Item) validateJudgementTexts() error {
	if len(it.Variants) == 0 {
		return &FieldError{"sentence", "is missing: a judgement item needs a sentence in at least one condition"}
	}
	for _, f := range []string{it.Utterance, it.Implicature, it.Cancellation, it.Negation, it.Strengthening, it.Neutral, it.Context} {
		if f != "" {
			return &FieldError{"type", "a judgement item has no implicature fields (context, utterance, …); its texts are by condition"}
		}
	}
	for c, v := range it.Variants {
		if err := CheckConditionName(c); err != nil {
			return &FieldError{"condition", ErrorMessage(err)}
		}
		for _, f := range []struct {
			name string
			v    *string
		}{{"context", &v.Context}, {"sentence", &v.Sentence}} {
			if !utf8.ValidString(*f.v) {
				return &FieldError{f.name, fmt.Sprintf("(condition %s) is not valid UTF-8", c)}
			}
			*f.v = strings.TrimSpace(LineBreaks.Replace(*f.v))
			if utf8.RuneCountInString(*f.v) > MaxTextLen {
				return &FieldError{f.name, fmt.Sprintf("(condition %s) is longer than %d characters", c, MaxTextLen)}
			}
			if err := CheckControls(nil, []NamedValue{{f.name, *f.v}}); err != nil {
				return err
			}
		}
		if v.Sentence == "" {
			return &FieldError{"sentence", fmt.Sprintf("(condition %s) is empty", c)}
		}
		it.Variants[c] = v
	}
	if it.Check != "" && it.Check != "high" && it.Check != "low" {
		return &FieldError{"check", fmt.Sprintf("unknown value %q (want empty, high or low)", it.Check)}
	}
	t, err := ParsePracticeExpect(it.Training)
	if err != nil {
		return &FieldError{"training", err.Error()}
	}
	it.Training = t
	if it.Training != "" && it.Check != "" {
		return &FieldError{"training", "an item cannot be both a practice item and an attention check"}
	}
	return nil
}
