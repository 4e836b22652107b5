package scoring

import (
	"pragmalab/domain"
)

// TFItem is an implicature item (docs/items.md#implicature-items) as the
// True/False task needs it.
// Belief is the implicature b; the follow-ups are optional except Cancellation.
type TFItem struct {
	Key           string `json:"id"`
	Type          string `json:"type"`
	Context       string `json:"context"`
	Utterance     string `json:"utterance"`
	Belief        string `json:"implicature"`
	Cancellation  string `json:"cancellation"`
	Negation      string `json:"negation,omitempty"`
	Strengthening string `json:"strengthening,omitempty"`
	Neutral       string `json:"neutral,omitempty"`
}

// followUp returns the utterance a condition appends after u, and whether the
// item has the condition at all.
func (it TFItem) followUp(c Condition) (string, bool) {
	switch c {
	case Trigger, Prior:
		return "", true
	case Cancel:
		return it.Cancellation, it.Cancellation != ""
	case Negation:
		return it.Negation, it.Negation != ""
	case Strengthen:
		return it.Strengthening, it.Strengthening != ""
	case Neutral:
		return it.Neutral, it.Neutral != ""
	}
	return "", false
}

// MCItem is a passage item (docs/items.md#passage-items) for the
// multiple-choice and generation tasks. Text is the passage as shown
// (preceding sentences and the target), Target its last sentence. Topic −1
// marks easy negatives (distractors from the residual cluster); any other
// topic marks hard negatives. Answer is the gold letter A–D; Explanation the
// expert comment, used by few-shot prompts.
type MCItem struct {
	Key         string    `json:"id"`
	Kind        string    `json:"kind"`
	Text        string    `json:"text"`
	Target      string    `json:"target"`
	Explanation string    `json:"explanation"`
	Options     [4]string `json:"options"`
	Answer      string    `json:"answer"`
	Topic       int       `json:"topic"`
}

// HasOptions reports whether the item can be asked as multiple choice.
func (it MCItem) HasOptions() bool {
	for _, o := range it.Options {
		if o == "" {
			return false
		}
	}
	return validLetter(it.Answer)
}

// Condition names what follows the trigger utterance in a True/False prompt.
// The names are those of the ratings file plus "prior"
// (docs/items.md#conditions).
type Condition string

// The six conditions of docs/scoring.md#conditions-and-prompts.
const (
	Trigger    Condition = domain.ConditionTrigger    // (c, ⟨u⟩)
	Cancel     Condition = domain.ConditionCancel     // (c, ⟨u, u×⟩)
	Negation   Condition = domain.ConditionNegation   // (c, ⟨u, u⊥⟩)
	Strengthen Condition = domain.ConditionStrengthen // (c, ⟨u, u+⟩)
	Neutral    Condition = domain.ConditionNeutral    // (c, ⟨u, u≈⟩)
	Prior      Condition = "prior"                    // (∅, ∅), question about prior knowledge
)

// Conditions lists every condition in the order prompts are built.
var Conditions = []Condition{Trigger, Cancel, Negation, Strengthen, Neutral, Prior}

// Order is the order in which the two options are lettered.
type Order string

// The two option orders; both are asked for every condition.
const (
	TrueFirst  Order = "TF" // A) True  B) False
	FalseFirst Order = "FT" // A) False B) True
)

// Orders lists both option orders.
var Orders = []Order{TrueFirst, FalseFirst}

// letterOfTrue returns the option letter that stands for "True" in order o.
func (o Order) letterOfTrue() string {
	if o == FalseFirst {
		return "B"
	}
	return "A"
}

// Task is what a job asks.
type Task string

// The tasks of docs/scoring.md#jobs.
const (
	TrueFalse      Task = "truefalse"
	MultipleChoice Task = "multiplechoice"
	Generation     Task = "generation"
)

// ParseTask checks a task name from a form or flag.
func ParseTask(s string) (Task, bool) {
	switch t := Task(s); t {
	case TrueFalse, MultipleChoice, Generation, Likert, Expert, ContextTask, ExplanationRating:
		return t, true
	}
	return "", false
}

// Mode is how a model's choice is read.
type Mode string

// Log-probability mode reads the top log-probabilities of the next token
// (open-weight servers); sampling mode draws replies and parses them (closed
// APIs that give no log-probabilities).
const (
	Logprobs Mode = "logprobs"
	Sampling Mode = "sampling"
)

// ParseMode checks a mode name from a form or flag.
func ParseMode(s string) (Mode, bool) {
	switch m := Mode(s); m {
	case Logprobs, Sampling:
		return m, true
	}
	return "", false
}

// Strategy is a generation prompting strategy (the second paper's Table 1).
type Strategy string

// The three generation strategies.
const (
	ZeroShot       Strategy = "zero-shot"
	FewShot        Strategy = "few-shot"
	ChainOfThought Strategy = "chain-of-thought"
)

// Strategies lists the generation strategies.
var Strategies = []Strategy{ZeroShot, FewShot, ChainOfThought}

// ParseStrategy checks a strategy name from a form or flag.
func ParseStrategy(s string) (Strategy, bool) {
	switch st := Strategy(s); st {
	case ZeroShot, FewShot, ChainOfThought:
		return st, true
	}
	return "", false
}
