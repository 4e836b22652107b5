package modelhuman

import (
	"fmt"
	"io"
	"pragmalab/analysis"
	"pragmalab/domain"
	"slices"
	"strings"
)

// ExplanationColumns is the header of an explanation ratings file
// (docs/formats.md#explanation-ratings-file).
var ExplanationColumns = []string{"annotator_id", "item_id", "kind", "strategy", "judgment"}

// ExplanationModelColumn is an optional column naming the model whose output
// was rated: with it, one expert may rate several models' explanations of the
// same item and strategy. The table pools the models.
const ExplanationModelColumn = "model"

// Judgments are the five classes of docs/studies.md#explanation-flow as JSON
// keys, in the order of the rating screen; the first three count as
// acceptable.
var Judgments = []string{"totally_correct", "correct_among_options", "partially_correct", "totally_wrong", "answer_not_given"}

// JudgmentLabels are the labels the rating screen shows, by Judgments index.
var JudgmentLabels = []string{"Totally correct", "Correct among various options", "Partially correct", "Totally wrong", "Answer not given"}

// ParseJudgment accepts a key of Judgments or a screen label, in any case,
// with spaces, hyphens or underscores.
func ParseJudgment(s string) int {
	norm := strings.NewReplacer(" ", "_", "-", "_").Replace(strings.ToLower(strings.TrimSpace(s)))
	switch norm {
	case "correct_among_various_options", "correct_among_options", "correct_among_various":
		return 1
	case "not_given", "no_answer":
		return 4
	}
	return analysis.IndexOf(Judgments, norm)
}

// ExplanationRating is one expert's judgment of one model output.
type ExplanationRating struct {
	Annotator, Item, Kind, Strategy string
	Model                           string // "" when the file has no model column
	Judgment                        int    // index into Judgments
}

// ReadExplanationRatings reads an explanation ratings file
// (docs/formats.md#explanation-ratings-file); an unknown judgment or an
// annotator rating the same item, kind and strategy twice fails it with an
// *InputError.
func ReadExplanationRatings(r io.Reader) ([]ExplanationRating, error) {
	t, err := analysis.NewInput(r, ExplanationColumns, append([]string{ExplanationModelColumn}, analysis.SignalColumns...)...)
	if err != nil {
		return nil, err
	}
	seen := map[[5]string]int{}
	return analysis.ReadRows(t, "ratings", func(row []string) (ExplanationRating, error) {
		e := ExplanationRating{Annotator: row[0], Item: row[1], Kind: row[2], Strategy: row[3], Model: row[5]}
		if err := t.NonEmpty("annotator id", "item id", "kind", "strategy"); err != nil {
			return e, err
		}
		// The table pools every kind, strategy and model under "all", and
		// the JSON holds the per-model tables under "by_model": rows of
		// their own under those names would be counted twice.
		for _, k := range []int{2, 3, 5} {
			if err := t.NotPooled(k, t.Want[k]); err != nil {
				return e, err
			}
			if k == 2 && strings.EqualFold(row[k], ByModelKey) {
				return e, t.Errf(k, "kind %q is reserved: the JSON holds the per-model tables under it; rename it", row[k])
			}
		}
		if e.Judgment = ParseJudgment(row[4]); e.Judgment < 0 {
			return e, t.Errf(4, "judgment %q is not one of %s", row[4], strings.Join(Judgments, ", "))
		}
		key := [5]string{e.Annotator, e.Item, e.Kind, e.Strategy, row[5]}
		if l, dup := seen[key]; dup {
			what := fmt.Sprintf("(%s, %s)", e.Kind, e.Strategy)
			if row[5] != "" {
				what = fmt.Sprintf("(%s, %s, model %s)", e.Kind, e.Strategy, row[5])
			}
			return e, t.Errf(1, "annotator %q already rated item %q %s on line %d", e.Annotator, e.Item, what, l)
		}
		seen[key] = t.Line
		return e, nil
	})
}

// JudgmentShares is one cell of the explanation table: n ratings and the
// share of each judgment. Its JSON keys are n, the Judgments and acceptable.
type JudgmentShares struct {
	N      int
	Counts [5]int
	// passages counts the cell's ratings per passage (kind and item), in
	// first-seen order (passage indexes them): the ratings of one passage
	// — several strategies' or models' outputs — are correlated, and the
	// intervals take that into account.
	passages [][5]int
	passage  map[[2]string]int
}

func (s *JudgmentShares) add(kind, item string, j int) {
	s.N++
	s.Counts[j]++
	if s.passage == nil {
		s.passage = map[[2]string]int{}
	}
	k := [2]string{kind, item}
	i, ok := s.passage[k]
	if !ok {
		i = len(s.passages)
		s.passage[k] = i
		s.passages = append(s.passages, [5]int{})
	}
	s.passages[i][j]++
}

// interval is the clustered Wilson interval of the share of the judgments
// js, the passages the clusters (docs/statistics.md#explanation-ratings),
// summed in a fixed order so the same ratings give the same interval to
// the last bit.
func (s *JudgmentShares) interval(js ...int) *analysis.CI {
	if s.passages == nil {
		hits := 0
		for _, j := range js {
			hits += s.Counts[j]
		}
		return analysis.Wilson(hits, s.N)
	}
	hits, trials := make([]float64, 0, len(s.passages)), make([]float64, 0, len(s.passages))
	for _, c := range s.passages {
		h, n := 0, 0
		for j, k := range c {
			n += k
			if slices.Contains(js, j) {
				h += k
			}
		}
		hits, trials = append(hits, float64(h)), append(trials, float64(n))
	}
	return analysis.ClusterWilson(hits, trials)
}

// Share returns the share of judgment j (index into Judgments), nil if n=0.
func (s *JudgmentShares) Share(j int) *float64 {
	if s.N == 0 {
		return nil
	}
	return analysis.Num(float64(s.Counts[j]) / float64(s.N))
}

// Acceptable is the share rated totally correct, correct among options or
// partially correct.
func (s *JudgmentShares) Acceptable() *float64 {
	if s.N == 0 {
		return nil
	}
	return analysis.Num(float64(s.Counts[0]+s.Counts[1]+s.Counts[2]) / float64(s.N))
}

// ShareCI is the 95 % interval of judgment j's share: Wilson's, with the
// passages as clusters.
func (s *JudgmentShares) ShareCI(j int) *analysis.CI { return s.interval(j) }

// AcceptableCI is the 95 % interval of the acceptable share, likewise.
func (s *JudgmentShares) AcceptableCI() *analysis.CI { return s.interval(0, 1, 2) }

// MarshalJSON writes {"n": n, "<judgment>": share, …, "acceptable": share}.
func (s *JudgmentShares) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteString(`{"n":`)
	b.WriteString(analysis.Itoa(s.N))
	for j, name := range Judgments {
		b.WriteString(`,"` + name + `":`)
		b.WriteString(analysis.JSONNum(s.Share(j)))
	}
	b.WriteString(`,"acceptable":`)
	b.WriteString(analysis.JSONNum(s.Acceptable()))
	for j, name := range Judgments {
		b.WriteString(`,"` + name + `_ci95":`)
		b.WriteString(analysis.JSONCI(analysis.Est{V: s.Share(j), CI: s.ShareCI(j)}))
	}
	b.WriteString(`,"acceptable_ci95":`)
	b.WriteString(analysis.JSONCI(analysis.Est{V: s.Acceptable(), CI: s.AcceptableCI()}))
	b.WriteString("}")
	return []byte(b.String()), nil
}

// Explanations maps kind → strategy → shares (the layout of the IMPAQTS
// paper's Table 1). Each kind also has a pooled "all" strategy, and the
// pooled kind "all" is added when there is more than one kind.
type Explanations struct {
	Table         map[string]map[string]*JudgmentShares
	KindOrder     []string // item types in the documented order, other kinds first-seen (OrderTypes), "all" last
	StrategyOrder []string // first-seen order, "all" last
	// ByModel is the same table per model, when the file names models;
	// ModelOrder lists them in first-seen order.
	ByModel    map[string]*Explanations
	ModelOrder []string
}

// PooledKind is the kind that pools every rating: "all", or the only
// kind when there is one (then there is no "all").
func (e *Explanations) PooledKind() string {
	if e.Table[domain.TypeAll] == nil && len(e.KindOrder) > 0 {
		return e.KindOrder[0]
	}
	return domain.TypeAll
}

// ByModelKey is the JSON key of the per-model tables, beside the kinds.
const ByModelKey = "by_model"

// MarshalJSON writes the shape of docs/formats.md#explanations-json:
// {"<kind>": {"<strategy>": {…}}},
// plus "by_model": {"<model>": {"<kind>": …}} when models are named.
func (e *Explanations) MarshalJSON() ([]byte, error) {
	if len(e.ByModel) == 0 {
		return analysis.JSONMarshal(e.Table)
	}
	m := map[string]any{ByModelKey: e.ByModel}
	for k, v := range e.Table {
		m[k] = v
	}
	return analysis.JSONMarshal(m)
}

// ComputeExplanations tallies the judgments per kind × strategy, pooled
// over models and per model.
func ComputeExplanations(rs []ExplanationRating) *Explanations {
	e := tallyExplanations(rs)
	byModel := map[string][]ExplanationRating{}
	for _, r := range rs {
		if r.Model == "" {
			continue
		}
		if _, ok := byModel[r.Model]; !ok {
			e.ModelOrder = append(e.ModelOrder, r.Model)
		}
		byModel[r.Model] = append(byModel[r.Model], r)
	}
	if len(byModel) > 0 {
		e.ByModel = map[string]*Explanations{}
		for m, mr := range byModel {
			e.ByModel[m] = tallyExplanations(mr)
		}
	}
	return e
}

func tallyExplanations(rs []ExplanationRating) *Explanations {
	e := &Explanations{Table: map[string]map[string]*JudgmentShares{}}
	seenS := map[string]bool{}
	cell := func(kind, strategy string) *JudgmentShares {
		m := e.Table[kind]
		if m == nil {
			m = map[string]*JudgmentShares{}
			e.Table[kind] = m
		}
		c := m[strategy]
		if c == nil {
			c = &JudgmentShares{}
			m[strategy] = c
		}
		return c
	}
	for _, r := range rs {
		if e.Table[r.Kind] == nil {
			e.KindOrder = append(e.KindOrder, r.Kind)
		}
		if !seenS[r.Strategy] {
			seenS[r.Strategy] = true
			e.StrategyOrder = append(e.StrategyOrder, r.Strategy)
		}
		for _, k := range []string{r.Kind, domain.TypeAll} {
			for _, s := range []string{r.Strategy, domain.TypeAll} {
				cell(k, s).add(r.Kind, r.Item, r.Judgment)
			}
		}
	}
	e.KindOrder = analysis.OrderTypes(e.KindOrder)
	if len(e.KindOrder) < 2 {
		delete(e.Table, domain.TypeAll)
	} else {
		e.KindOrder = append(e.KindOrder, domain.TypeAll)
	}
	e.StrategyOrder = append(e.StrategyOrder, domain.TypeAll)
	return e
}
