package templates

// HumanTaskView is the results of a job asking the participants' own
// questions (docs/scoring.md#the-humans-own-questions): how often the model
// chose each option per condition or question, the task's measures, the
// option-order bias, and each question's answer with its distribution.
type HumanTaskView struct {
	Task    string
	Options []string
	// Counts are one row per condition (likert), question (expert) or all
	// questions (context, explanation-rating).
	Counts   []HumanCountRow
	Measures []HumanMeasure
	// OrderBias is the option-order bias, or "" when no question was
	// answered in both orders.
	OrderBias string
	Rows      []HumanRow
	RowsTotal int
	// Compare is the job beside its study's humans, nil when the study has
	// none.
	Compare *HumanCompareView
}

// HumanCountRow is how often each option was the model's choice.
type HumanCountRow struct {
	Question string
	Counts   []string
	Mean     string
}

// HumanMeasure is one measure of the task with its value.
type HumanMeasure struct {
	Label, Value string
}

// HumanRow is one question's answer: the chosen option and the
// distribution over the options (both orders averaged).
type HumanRow struct {
	Item, Type, Question, Label, Mean string
	Dist                              []string
	NotAsked                          bool
}
