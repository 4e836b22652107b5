package templates

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"pragmalab/domain"
)

// CrowdScale is a crowd study's rating scale as its screens show it
// (docs/studies.md#rating-scale): the zero value is the 7-point scale
// with the language's end labels and question.
type CrowdScale struct {
	Points   int
	Labels   map[string]string // point ("1"…) → label, the researcher's
	Question string            // "": the language's default
	// Judgement: a judgement study's scale, whose default question asks
	// about the sentence (docs/studies.md#judgement-settings).
	Judgement bool
}

// ScaleOf is the scale of a crowd study's settings.
func ScaleOf(s domain.CrowdSettings) CrowdScale {
	return CrowdScale{Points: s.ScalePoints, Labels: s.ScaleLabels, Question: s.Question, Judgement: s.Judgement()}
}

func (s CrowdScale) points() int {
	if s.Points < domain.MinScalePoints || s.Points > domain.MaxScalePoints {
		return domain.RatingMax
	}
	return s.Points
}

// pointList is 1…points.
func (s CrowdScale) pointList() []int {
	out := make([]int, s.points())
	for i := range out {
		out[i] = i + 1
	}
	return out
}

// label is point k's label: the researcher's; on a scale without labels
// of the researcher's, for the two ends the language's default
// ("absolutely impossible", "absolutely certain"). A scale with labels of
// its own never borrows the default's end labels (a study stored before
// both ends were required shows its one end label alone).
func (s CrowdScale) label(lang string, k int) string {
	if len(s.Labels) > 0 || s.Judgement { // a judgement scale borrows no label
		return s.Labels[strconv.Itoa(k)]
	}
	switch k {
	case 1:
		return CT(lang, "scale_low")
	case s.points():
		return CT(lang, "scale_high")
	}
	return ""
}

// NumPoints is the scale's number of points (7 for a zero scale).
func (s CrowdScale) NumPoints() int { return s.points() }

// PointLabel is point k's label as the screens show it: the
// researcher's, else (on a scale without labels) the language's end
// label, else "".
func (s CrowdScale) PointLabel(lang string, k int) string { return s.label(lang, k) }

// QuestionIn is the question above the scale in lang: the researcher's,
// else the language's default.
func (s CrowdScale) QuestionIn(lang string) string { return s.question(lang) }

// question is the question above the scale.
func (s CrowdScale) question(lang string) string {
	return orDefault(lang, s.Question, kindKey(s.Judgement, "question"))
}

// labelled lists the points that have a label, in order, for the line
// under the scale: "1 = absolutely impossible", "5 = absolutely certain".
func (s CrowdScale) labelled(lang string) []string {
	var out []string
	for _, k := range s.pointList() {
		if l := s.label(lang, k); l != "" {
			out = append(out, fmt.Sprintf("%d = %s", k, l))
		}
	}
	return out
}

// keysHint says which digit keys answer (at most 9: one key a point).
func (s CrowdScale) keysHint(lang string) string {
	return fmt.Sprintf(CT(lang, "keys_hint"), 1, min(s.points(), 9))
}

// sides are the practice feedback's ranges: the likely side above the
// midpoint, the unlikely side below it (domain.CrowdSettings.PracticePasses).
func (s CrowdScale) sides() (lowTo, highFrom int) {
	n := s.points()
	return n / 2, n/2 + 1 + n%2
}

// ScaleLabelsText writes a scale's labels as the form's lines, in the
// order of the points.
func ScaleLabelsText(labels map[string]string) string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		x, _ := strconv.Atoi(a)
		y, _ := strconv.Atoi(b)
		return x - y
	})
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s = %s\n", k, labels[k])
	}
	return b.String()
}
