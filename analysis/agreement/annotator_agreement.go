package agreement

import (
	"fmt"
	"pragmalab/domain"
	"slices"
)

// ReviewThreshold is the Dawid–Skene posterior of an item's majority label
// below which the item is listed for review (docs/statistics.md#annotator-models):
// the model gives at least a 1-in-10 chance that the majority is wrong.
const ReviewThreshold = 0.9

// AnnotatorModels are the annotator models of one question (plausibility or
// cancellation) over every item, and ByType over the items of each type.
// Its JSON is annotator_models.<question> of docs/formats.md#agreement-json.
type AnnotatorModels struct {
	Items      int                         `json:"items"`
	Judgements int                         `json:"judgements"`
	DawidSkene *DawidSkene                 `json:"dawid_skene"`
	MACE       *MACE                       `json:"mace"`
	ByType     map[string]*AnnotatorModels `json:"by_type,omitempty"`
	// Review lists the items whose majority label has a Dawid–Skene
	// posterior below ReviewThreshold, lowest first.
	Review          []ItemPosterior `json:"review"`
	ReviewThreshold float64         `json:"review_threshold"`
	// Warnings name the annotators who gave one label on every item they
	// judged, with both models' view of them: Dawid–Skene, fitted from the
	// majority, can rate such a yes-sayer as accurate when the majority is
	// mostly yes, while MACE separates a constant guesser
	// (docs/statistics.md#annotator-models).
	Warnings []string `json:"warnings,omitempty"`
}

// DawidSkene is a fitted Dawid–Skene model. Confusion rows are the true
// class (yes, no), columns the annotator's answer (yes, no).
type DawidSkene struct {
	Annotators    map[string]DSAnnotator `json:"annotators"`
	ClassPriors   map[string]float64     `json:"class_priors"`
	Iterations    int                    `json:"iterations"`
	Converged     bool                   `json:"converged"`
	LogLikelihood float64                `json:"log_likelihood"`
	Items         []ItemPosterior        `json:"items"`
}

// DSAnnotator is one annotator under Dawid–Skene.
type DSAnnotator struct {
	Accuracy   float64       `json:"accuracy"`
	Confusion  [2][2]float64 `json:"confusion"`
	Judgements int           `json:"judgements"`
}

// MACE is a fitted MACE model: each annotator's competence (the posterior
// mean chance of knowing the answer rather than guessing).
type MACE struct {
	Annotators    map[string]MACEAnnotator `json:"annotators"`
	LogLikelihood float64                  `json:"log_likelihood"`
	Training      string                   `json:"training"`
}

// MACEAnnotator is one annotator under MACE.
type MACEAnnotator struct {
	Competence float64 `json:"competence"`
	Judgements int     `json:"judgements"`
}

// ItemPosterior is one item under the annotator models: its votes, the
// majority label ("yes", "no" or "tie"), and the posteriors of "yes" under
// Dawid–Skene and MACE; PosteriorMajority is Dawid–Skene's posterior of the
// majority label (of the less likely label on a tie).
type ItemPosterior struct {
	Item              string  `json:"item_id"`
	Type              string  `json:"item_type"`
	Yes               int     `json:"yes"`
	No                int     `json:"no"`
	Majority          string  `json:"majority"`
	PosteriorYes      float64 `json:"posterior_yes"`
	MACEPosteriorYes  float64 `json:"mace_posterior_yes"`
	PosteriorMajority float64 `json:"posterior_majority"`
}

// MACETraining describes MACE's training for the JSON and the methods.
const MACETraining = "variational-Bayes EM (Hovy et al. 2013): Beta(0.5, 0.5) prior on competence, symmetric Dirichlet(10) on guessed labels, uniform prior on the true label; best of 10 seeded starts of 50 iterations"

// annotatorModels fits both models to one question over the items idx
// (vals as in agreeData: 0 yes, 1 no, −1 none); nil without two annotators
// who answered.
func (d *agreeData) annotatorModels(idx []int, vals [][]int8) *AnnotatorModels {
	s := &labelSet{k: 2, start: []int{0}}
	annIdx := map[int]int32{}
	var anns []int
	var items []int
	for _, i := range idx {
		n := 0
		for a, v := range vals[i] {
			if v < 0 {
				continue
			}
			ai, ok := annIdx[a]
			if !ok {
				ai = int32(len(anns))
				annIdx[a] = ai
				anns = append(anns, a)
			}
			s.ann, s.lab = append(s.ann, ai), append(s.lab, v)
			n++
		}
		if n > 0 {
			s.start = append(s.start, len(s.ann))
			items = append(items, i)
		}
	}
	if len(anns) < 2 {
		return nil
	}
	s.annotators = len(anns)
	ds, mc := dawidSkene(s), mace(s)
	m := &AnnotatorModels{Items: len(items), Judgements: len(s.ann), ReviewThreshold: ReviewThreshold,
		DawidSkene: &DawidSkene{Annotators: map[string]DSAnnotator{}, ClassPriors: map[string]float64{"yes": ds.priors[0], "no": ds.priors[1]},
			Iterations: ds.iterations, Converged: ds.converged, LogLikelihood: ds.logLik, Items: []ItemPosterior{}},
		MACE:   &MACE{Annotators: map[string]MACEAnnotator{}, LogLikelihood: mc.logLik, Training: MACETraining},
		Review: []ItemPosterior{}}
	judged := make([]int, len(anns))
	yes := make([]int, len(anns))
	for j, a := range s.ann {
		judged[a]++
		if s.lab[j] == 0 {
			yes[a]++
		}
	}
	for ai, a := range anns {
		c := ds.confusion[ai]
		m.DawidSkene.Annotators[d.anns[a]] = DSAnnotator{Accuracy: ds.accuracy(ai), Judgements: judged[ai],
			Confusion: [2][2]float64{{c[0][0], c[0][1]}, {c[1][0], c[1][1]}}}
		m.MACE.Annotators[d.anns[a]] = MACEAnnotator{Competence: mc.competence[ai], Judgements: judged[ai]}
		if judged[ai] > 1 && (yes[ai] == 0 || yes[ai] == judged[ai]) {
			label := "yes"
			if yes[ai] == 0 {
				label = "no"
			}
			m.Warnings = append(m.Warnings, fmt.Sprintf("%s answered %s on every one of %d items: Dawid–Skene gives accuracy %.2f (P(yes | yes) %.2f, P(no | no) %.2f), MACE competence %.2f; a constant answer carries no information about the items, whatever the accuracy says",
				d.anns[a], label, judged[ai], ds.accuracy(ai), c[0][0], c[1][1], mc.competence[ai]))
		}
	}
	for n, i := range items {
		p := ItemPosterior{Item: d.items[i], Type: d.types[i], PosteriorYes: ds.posterior[n][0], MACEPosteriorYes: mc.posterior[n][0]}
		for j := s.start[n]; j < s.start[n+1]; j++ {
			if s.lab[j] == 0 {
				p.Yes++
			} else {
				p.No++
			}
		}
		switch {
		case p.Yes > p.No:
			p.Majority, p.PosteriorMajority = "yes", p.PosteriorYes
		case p.No > p.Yes:
			p.Majority, p.PosteriorMajority = "no", 1-p.PosteriorYes
		default:
			p.Majority, p.PosteriorMajority = "tie", min(p.PosteriorYes, 1-p.PosteriorYes)
		}
		m.DawidSkene.Items = append(m.DawidSkene.Items, p)
		if p.PosteriorMajority < ReviewThreshold {
			m.Review = append(m.Review, p)
		}
	}
	slices.SortStableFunc(m.Review, func(a, b ItemPosterior) int {
		switch {
		case a.PosteriorMajority < b.PosteriorMajority:
			return -1
		case a.PosteriorMajority > b.PosteriorMajority:
			return 1
		}
		return 0
	})
	return m
}

// computeAnnotatorModels fits the models of both questions over every item
// and per named type; nil when no question has two annotators.
func (d *agreeData) computeAnnotatorModels(all []int, named []string, byType map[string][]int) map[string]*AnnotatorModels {
	out := map[string]*AnnotatorModels{}
	for _, q := range []struct {
		name string
		vals [][]int8
	}{{"plausibility", d.plaus}, {"cancellation", d.canc}} {
		m := d.annotatorModels(all, q.vals)
		if m == nil {
			continue
		}
		m.ByType = map[string]*AnnotatorModels{}
		for _, t := range named {
			if tm := d.annotatorModels(byType[t], q.vals); tm != nil {
				m.ByType[t] = tm
			}
		}
		out[q.name] = m
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// AnnotatorModelTypes lists the groups of a question's models in table
// order: the named types, then "all".
func AnnotatorModelTypes(m *AnnotatorModels, order []string) []string {
	var out []string
	for _, t := range order {
		if t == domain.TypeAll {
			continue
		}
		if _, ok := m.ByType[t]; ok {
			out = append(out, t)
		}
	}
	return append(out, domain.TypeAll)
}

// Group returns the models of type t ("all": the whole).
func (m *AnnotatorModels) Group(t string) *AnnotatorModels {
	if t == domain.TypeAll {
		return m
	}
	return m.ByType[t]
}

// SortedAnnotators lists a model's annotators by id.
func (m *AnnotatorModels) SortedAnnotators() []string {
	var out []string
	for a := range m.DawidSkene.Annotators {
		out = append(out, a)
	}
	slices.Sort(out)
	return out
}
