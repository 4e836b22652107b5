package domain

import "slices"

// The value types of explanation-rating studies
// (docs/studies.md#explanation-design).

// ExplainSettings are the options of an explanation-rating study
// (docs/studies.md#explanation-design).
type ExplainSettings struct {
	PerExpert int `json:"per_expert"` // screens given to each expert
	Overlap   int `json:"overlap"`    // experts rating each screen
}

// DefaultExplainSettings are the paper's: 45 screens per expert, each
// rated by one expert.
func DefaultExplainSettings() ExplainSettings { return ExplainSettings{PerExpert: 45, Overlap: 1} }

// Validate checks the settings.
func (s ExplainSettings) Validate() error {
	if s.PerExpert < 1 || s.PerExpert > 10000 {
		return Errorf(EINVALID, "screens per expert must be 1–10000")
	}
	if s.Overlap < 1 || s.Overlap > 100 {
		return Errorf(EINVALID, "experts per screen must be 1–100")
	}
	return nil
}

// Judgments are the five classes of docs/studies.md#explanation-flow, as
// stored and exported, in the order of the rating screen; the first three
// count as acceptable.
var Judgments = []string{"totally_correct", "correct_among_options", "partially_correct", "totally_wrong", "answer_not_given"}

// IsJudgment reports whether s is one of Judgments.
func IsJudgment(s string) bool { return slices.Contains(Judgments, s) }

// ExplainScreen is one screen of an expert: the passage, its human
// annotation, the model's output and the expert's judgment ("" if none yet).
type ExplainScreen struct {
	Position int
	OutputID int64
	Passage  Passage
	Strategy string
	Model    string
	Output   string
	Judgment string
}

// ExplainProgress is one expert's progress in an explanation-rating study.
type ExplainProgress struct {
	AnnotatorID int64
	Annotator   string
	Token       string // "" while the expert's link is revoked
	Screens     int
	Rated       int
}
