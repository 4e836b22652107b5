package scoring

import "context"

// Prompt is one question of a job. Key is stable across runs of the same job
// (item, condition, order or strategy), so a resumed job can tell which
// prompts already have answers.
type Prompt struct {
	Key       string    `json:"key"`
	Task      Task      `json:"task"`
	ItemKey   string    `json:"item_id"`
	Condition Condition `json:"condition,omitempty"` // True/False only
	Order     Order     `json:"order,omitempty"`     // True/False only
	Strategy  Strategy  `json:"strategy,omitempty"`  // generation only
	Text      string    `json:"text"`
	// MC is the passage item behind a multiple-choice or generation prompt;
	// built-in scorers read it instead of the rendered text.
	MC *MCItem `json:"-"`
	// Points is how many options a human-task prompt lists (the scale's
	// points for likert); 0 for the other tasks.
	Points int `json:"-"`
}

// Answer is what a scorer returned for one prompt.
type Answer struct {
	// PTrue is P(True) for a True/False prompt in this prompt's option order:
	// the renormalised option probabilities in log-probability mode, the
	// share of True among the samples answering True or False in sampling
	// mode.
	PTrue float64 `json:"p_true"`
	// Letter is the chosen option of a multiple-choice prompt: A–D, or X for
	// a refusal or a reply that names no option.
	Letter string `json:"letter,omitempty"`
	// Reply is the text of a generation or multiple-choice reply.
	Reply string `json:"reply,omitempty"`
	// Samples are the raw replies of sampling mode, kept for inspection.
	Samples []string `json:"samples,omitempty"`
	// Unparsed counts the True/False samples that answer neither True nor
	// False; PTrue is the share of True among the others.
	Unparsed int `json:"unparsed,omitempty"`
	// Logprobs maps option letters to the log-probability the model gave
	// them (log-probability mode; summed over tokens spelling the same
	// letter, e.g. " A" and "A").
	Logprobs map[string]float64 `json:"logprobs,omitempty"`
	// Dist is a human-task answer (task_human.go) as a distribution over
	// the task's options in their canonical order (likert: the scale's
	// points 1…k), whatever order the prompt listed them in; Choice is the
	// 1-based canonical option with the highest probability.
	Dist   []float64 `json:"dist,omitempty"`
	Choice int       `json:"choice,omitempty"`
}

// Scorer answers prompts. The model Client and the built-in baselines both
// implement it so a runner treats them alike. Score must be safe for
// concurrent use.
type Scorer interface {
	// Name identifies the scorer in results (the model name for a Client).
	Name() string
	Score(ctx context.Context, p Prompt) (Answer, error)
}
