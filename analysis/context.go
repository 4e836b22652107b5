package analysis

import (
	"io"
	"slices"
	"strconv"
)

// ContextColumns is the header of a context answers file
// (docs/formats.md#context-answers-file).
var ContextColumns = []string{"annotator_id", "survey_id", "item_id", "kind", "period", "sentences", "sufficient"}

// MaxAddedSentences is how many preceding sentences a context survey may
// reveal (docs/studies.md#context-flow).
const MaxAddedSentences = 5

// ContextAnswer is one expert's final answer on one passage.
type ContextAnswer struct {
	Annotator, Survey, Item, Kind, Period string
	Sentences                             int // added sentences shown, 0–5
	Sufficient                            bool
}

// Category is the answer's class among the 7 of
// docs/statistics.md#answer-categories: 0–5 for "sufficient with that many
// added sentences", 6 for "insufficient" — after 5 added
// sentences, or after fewer when the passage has no more to show (IMPAQTS-PID
// passages hold 4 preceding sentences, so there it is "insufficient at 4").
func (a ContextAnswer) Category() int {
	if !a.Sufficient {
		return MaxAddedSentences + 1
	}
	return a.Sentences
}

// ReadContextAnswers reads a context answers file
// (docs/formats.md#context-answers-file); a bad value or an annotator
// answering the same item of a survey twice fails it with an *InputError.
func ReadContextAnswers(r io.Reader) ([]ContextAnswer, error) {
	t, err := newTable(r, ContextColumns)
	if err != nil {
		return nil, err
	}
	var out []ContextAnswer
	seen := map[[3]string]int{}
	for {
		row, err := t.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		a := ContextAnswer{Annotator: row[0], Survey: row[1], Item: row[2], Kind: row[3], Period: row[4]}
		for k, what := range []string{"annotator id", "survey id", "item id"} {
			if row[k] == "" {
				return nil, t.errf(k, "empty %s", what)
			}
		}
		n, err := strconv.Atoi(row[5])
		if err != nil || n < 0 || n > MaxAddedSentences {
			return nil, t.errf(5, "sentences %q is not an integer from 0 to %d", row[5], MaxAddedSentences)
		}
		a.Sentences = n
		v, empty, ok := parseYesNo(row[6])
		if !ok || empty {
			return nil, t.errf(6, "sufficient %q is not yes or no", row[6])
		}
		a.Sufficient = v
		// "no" with fewer than 5 sentences is final too when the passage
		// had no more before its target (IMPAQTS-PID passages hold four):
		// it is the same "insufficient" category.
		key := [3]string{a.Annotator, a.Survey, a.Item}
		if l, dup := seen[key]; dup {
			return nil, t.errf(2, "annotator %q already answered item %q of survey %q on line %d", a.Annotator, a.Item, a.Survey, l)
		}
		seen[key] = t.line
		out = append(out, a)
	}
	if len(out) == 0 {
		return nil, noRows("answers")
	}
	return out, nil
}

// ContextStats are the context measures of docs/statistics.md#context-analysis
// for one survey or overall.
type ContextStats struct {
	Items       int      `json:"items"`
	Judgements  int      `json:"judgements"`
	FleissKappa *float64 `json:"fleiss_kappa"`
	// FleissItems are the items with the most annotators (FleissRaters),
	// over which κ is computed, as Fleiss' κ needs equal counts.
	FleissItems  int `json:"fleiss_items"`
	FleissRaters int `json:"fleiss_raters"`
	// FullConsensus is the share of items (with 2+ annotators) where all
	// chose the same category; MajorityConsensus those where more than half
	// but not all did — the paper's 44 % and 21 %, adding to 65 %.
	FullConsensus     *float64 `json:"full_consensus"`
	MajorityConsensus *float64 `json:"majority_consensus"`
	ConsensusItems    int      `json:"consensus_items"`
	// CumulativeJudgements[k] is the share of judgements "sufficient" with
	// at most k added sentences; CumulativeItems[k] the share of items a
	// majority of whose annotators found sufficient with at most k.
	CumulativeJudgements []*float64 `json:"cumulative_judgements"`
	CumulativeItems      []*float64 `json:"cumulative_items"`
}

// Context is the result of the context analysis; its JSON is the contract
// of `pragmalab analyze context --json` (docs/formats.md#context-json).
type Context struct {
	Surveys map[string]*ContextStats `json:"surveys"`
	Overall *ContextStats            `json:"overall"`
	// SurveyOrder lists the survey ids in first-seen order.
	SurveyOrder []string `json:"-"`
}

// ComputeContext computes the measures per survey and over all surveys.
func ComputeContext(as []ContextAnswer) *Context {
	c := &Context{Surveys: map[string]*ContextStats{}}
	bySurvey := map[string][]ContextAnswer{}
	for _, a := range as {
		if _, ok := bySurvey[a.Survey]; !ok {
			c.SurveyOrder = append(c.SurveyOrder, a.Survey)
		}
		bySurvey[a.Survey] = append(bySurvey[a.Survey], a)
	}
	for _, s := range c.SurveyOrder {
		c.Surveys[s] = contextStats(bySurvey[s])
	}
	c.Overall = contextStats(as)
	return c
}

func contextStats(as []ContextAnswer) *ContextStats {
	const cats = MaxAddedSentences + 2
	type key struct{ survey, item string }
	var order []key
	counts := map[key][]int{}
	for _, a := range as {
		k := key{a.Survey, a.Item}
		if counts[k] == nil {
			counts[k] = make([]int, cats)
			order = append(order, k)
		}
		counts[k][a.Category()]++
	}
	rows := make([][]int, len(order))
	for i, k := range order {
		rows[i] = counts[k]
	}
	s := &ContextStats{Items: len(rows), Judgements: len(as)}
	fr, raters := rowsWithMostRaters(rows)
	if raters >= 2 {
		s.FleissItems, s.FleissRaters = len(fr), raters
		if k, ok := FleissKappa(fr); ok {
			s.FleissKappa = num(k)
		}
	}
	var full, major share
	for _, r := range rows {
		n := sum(r)
		if n < 2 {
			continue
		}
		top := slices.Max(r)
		full.add(true, top == n)
		major.add(true, top < n && 2*top > n)
	}
	s.FullConsensus, s.MajorityConsensus, s.ConsensusItems = full.value(), major.value(), full.n
	s.CumulativeJudgements = make([]*float64, MaxAddedSentences+1)
	s.CumulativeItems = make([]*float64, MaxAddedSentences+1)
	for k := 0; k <= MaxAddedSentences; k++ {
		var jud, items share
		for _, r := range rows {
			n, within := sum(r), sum(r[:k+1])
			jud.hits += within
			jud.n += n
			items.add(true, 2*within > n)
		}
		s.CumulativeJudgements[k], s.CumulativeItems[k] = jud.value(), items.value()
	}
	return s
}
