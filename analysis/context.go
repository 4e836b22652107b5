package analysis

import (
	"io"
	"pragmalab/domain"
	"slices"
	"strconv"
	"strings"
)

// ContextColumns is the header of a context answers file
// (docs/formats.md#context-answers-file).
var ContextColumns = []string{"annotator_id", "survey_id", "item_id", "kind", "period", "sentences", "sufficient"}

// ContextMaxColumn is an optional column: how many preceding sentences
// the passage could show (fewer than MaxAddedSentences for short passages).
const ContextMaxColumn = "max_sentences"

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
	t, err := newTable(r, ContextColumns, ContextMaxColumn)
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
		// "no" is final only once every sentence was shown: 5, or fewer
		// when the passage had no more before its target (IMPAQTS-PID
		// passages hold four), which the max_sentences column says. Any
		// other "no" is an unfinished or broken answer, not "insufficient".
		most := MaxAddedSentences
		if row[7] != "" {
			m, err := strconv.Atoi(row[7])
			if err != nil || m < 0 || m > MaxAddedSentences {
				return nil, t.errf(7, "max_sentences %q is not an integer from 0 to %d", row[7], MaxAddedSentences)
			}
			most = m
		}
		if n > most {
			return nil, t.errf(5, "sentences %d is more than the %d the passage can show (max_sentences)", n, most)
		}
		if !v && n < most {
			return nil, t.errf(6, "sufficient is no after %d added sentences, but %d could be shown: an insufficient answer comes only after all of them (add a max_sentences column if the passage has fewer)", n, most)
		}
		if domain.IsPooledName(row[1]) {
			return nil, t.errf(1, "%s", pooledNameMsg("survey", row[1]))
		}
		if domain.IsPooledName(row[4]) {
			return nil, t.errf(4, "%s", pooledNameMsg("period", row[4]))
		}
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
// Each *_ci95 is the percentile-bootstrap interval over items (within
// survey) of the value beside it.
type ContextStats struct {
	Items         int      `json:"items"`
	Judgements    int      `json:"judgements"`
	FleissKappa   *float64 `json:"fleiss_kappa"`
	FleissKappaCI *CI      `json:"fleiss_kappa_ci95"`
	// FleissItems are the items with the most annotators (FleissRaters),
	// over which κ is computed, as Fleiss' κ needs equal counts.
	FleissItems  int `json:"fleiss_items"`
	FleissRaters int `json:"fleiss_raters"`
	// KrippendorffAlphaNominal and …Ordinal are Krippendorff's α over every
	// item with two or more answers (AlphaItems), the 7 categories unordered
	// and ordered (0–5 added sentences, then "insufficient" highest).
	KrippendorffAlphaNominal   *float64 `json:"krippendorff_alpha_nominal"`
	KrippendorffAlphaNominalCI *CI      `json:"krippendorff_alpha_nominal_ci95"`
	KrippendorffAlphaOrdinal   *float64 `json:"krippendorff_alpha_ordinal"`
	KrippendorffAlphaOrdinalCI *CI      `json:"krippendorff_alpha_ordinal_ci95"`
	AlphaItems                 int      `json:"krippendorff_items"`
	// FullConsensus is the share of items (with 2+ annotators) where all
	// chose the same category; MajorityConsensus those where more than half
	// but not all did — the paper's 44 % and 21 %, adding to 65 %.
	FullConsensus       *float64 `json:"full_consensus"`
	FullConsensusCI     *CI      `json:"full_consensus_ci95"`
	MajorityConsensus   *float64 `json:"majority_consensus"`
	MajorityConsensusCI *CI      `json:"majority_consensus_ci95"`
	ConsensusItems      int      `json:"consensus_items"`
	// CumulativeJudgements[k] is the share of judgements "sufficient" with
	// at most k added sentences; CumulativeItems[k] the share of items a
	// majority of whose annotators found sufficient with at most k.
	CumulativeJudgements   []*float64 `json:"cumulative_judgements"`
	CumulativeJudgementsCI []*CI      `json:"cumulative_judgements_ci95"`
	CumulativeItems        []*float64 `json:"cumulative_items"`
	CumulativeItemsCI      []*CI      `json:"cumulative_items_ci95"`
	// clusters holds each item's hits for the shares (point estimates
	// only), for their Wilson intervals.
	clusters *contextClusters
}

// contextClusters are the per-item hits of the shares: consensus items
// (one trial each), all items (cumulative items: one trial each;
// cumulative judgements: answers trials).
type contextClusters struct {
	full, major, ones []float64
	answers           []float64
	cj, ci            [MaxAddedSentences + 1][]float64
}

// interval is the Wilson interval of the share named by key
// ("/full", "/cj3", …), items as clusters.
func (c *contextClusters) interval(key string) *CI {
	switch key {
	case "/full":
		return clusterWilson(c.full, c.ones[:len(c.full)])
	case "/major":
		return clusterWilson(c.major, c.ones[:len(c.major)])
	}
	k, _ := strconv.Atoi(key[3:])
	if strings.HasPrefix(key, "/cj") {
		return clusterWilson(c.cj[k], c.answers)
	}
	return clusterWilson(c.ci[k], c.ones[:len(c.ci[k])])
}

// Context is the result of the context analysis; its JSON is the contract
// of `pragmalab analyze context --json` (docs/formats.md#context-json).
type Context struct {
	Surveys map[string]*ContextStats `json:"surveys"`
	Overall *ContextStats            `json:"overall"`
	// ByKindPeriod breaks the surveys down by the two factors they are
	// balanced on: kind → period → measures, each kind with a pooled period
	// "all" (a period may not be named "all").
	ByKindPeriod map[string]map[string]*ContextStats `json:"by_kind_period"`
	Bootstrap    *BootstrapInfo                      `json:"bootstrap,omitempty"`
	// SurveyOrder lists the survey ids in first-seen order; KindOrder and
	// PeriodOrder the kinds and periods, sorted (PeriodOrder without "all").
	SurveyOrder []string `json:"-"`
	KindOrder   []string `json:"-"`
	PeriodOrder []string `json:"-"`
}

// ContextScheme describes the context bootstrap.
const ContextScheme = "Fleiss' κ and α: BCa bootstrap over items, resampled within survey (acceleration from the jackknife over items), widened to contain the estimate; consensus and cumulative shares: Wilson score interval over items (shares of judgements: items as clusters)"

// ComputeContext computes the measures with the default bootstrap.
func ComputeContext(as []ContextAnswer) *Context { return ComputeContextWith(as, DefaultBootstrap()) }

// contextItem is one passage of one survey: its answer counts per category.
type contextItem struct {
	survey, kind, period string
	counts               []int
}

// ComputeContextWith computes the measures per survey, overall and per
// kind × period, with bootstrap intervals over items.
func ComputeContextWith(as []ContextAnswer, bs Bootstrap) *Context {
	c, _ := computeContext(as, bs)
	return c
}

// contextMethod is the interval method in use for a context statistic,
// by its replicate key (docs/statistics.md#interval-coverage).
func contextMethod(key string) ciMethod { return contextInUse }

// contextInUse is the interval method of every context statistic.
const contextInUse = ciBCa

// computeContext is ComputeContextWith, also returning the replicates.
func computeContext(as []ContextAnswer, bs Bootstrap) (*Context, *replicates) {
	const cats = MaxAddedSentences + 2
	c := &Context{Surveys: map[string]*ContextStats{}, ByKindPeriod: map[string]map[string]*ContextStats{}}
	type key struct{ survey, item string }
	index := map[key]int{}
	var items []contextItem
	for _, a := range as {
		k := key{a.Survey, a.Item}
		i, ok := index[k]
		if !ok {
			i = len(items)
			index[k] = i
			items = append(items, contextItem{survey: a.Survey, kind: a.Kind, period: a.Period, counts: make([]int, cats)})
			if !slices.Contains(c.SurveyOrder, a.Survey) {
				c.SurveyOrder = append(c.SurveyOrder, a.Survey)
			}
			if !slices.Contains(c.KindOrder, a.Kind) {
				c.KindOrder = append(c.KindOrder, a.Kind)
			}
			if !slices.Contains(c.PeriodOrder, a.Period) {
				c.PeriodOrder = append(c.PeriodOrder, a.Period)
			}
		}
		items[i].counts[a.Category()]++
	}
	slices.Sort(c.KindOrder)
	slices.Sort(c.PeriodOrder)
	groups := map[string][]int{"overall": {}}
	var strata [][]int
	for _, s := range c.SurveyOrder {
		var idx []int
		for i, it := range items {
			if it.survey == s {
				idx = append(idx, i)
			}
		}
		groups["survey/"+s] = idx
		strata = append(strata, idx)
	}
	for i, it := range items {
		groups["overall"] = append(groups["overall"], i)
		groups["kp/"+it.kind+"/"+it.period] = append(groups["kp/"+it.kind+"/"+it.period], i)
		groups["kp/"+it.kind+"/"+domain.TypeAll] = append(groups["kp/"+it.kind+"/"+domain.TypeAll], i)
	}
	rows := make([][]int, len(items))
	for i := range items {
		rows[i] = items[i].counts
	}
	var reps *replicates
	if bs.Replicates > 0 {
		reps = newReplicates(bs.Replicates)
		rng := newRand(bs.Seed)
		w := make([]int32, len(items))
		for b := range bs.Replicates {
			drawStrata(rng, strata, w)
			for g, idx := range groups {
				recordContext(reps, g, b, contextStatsW(rows, idx, w))
			}
		}
		// The jackknife over items, for BCa's acceleration.
		reps.jack, reps.method = newReplicates(jackBlocks), contextMethod
		jackknifeGroups(groups, w, func(g string, k int) {
			recordContext(reps.jack, g, k, contextStatsW(rows, groups[g], w))
		})
		c.Bootstrap = &BootstrapInfo{Replicates: bs.Replicates, Seed: bs.Seed, Scheme: ContextScheme}
	}
	build := func(g string) *ContextStats {
		s := contextStatsW(rows, groups[g], nil)
		contextCIs(reps, g, s)
		return s
	}
	for _, s := range c.SurveyOrder {
		c.Surveys[s] = build("survey/" + s)
	}
	c.Overall = build("overall")
	for g := range groups {
		if rest, ok := strings.CutPrefix(g, "kp/"); ok {
			kind, period, _ := strings.Cut(rest, "/")
			if c.ByKindPeriod[kind] == nil {
				c.ByKindPeriod[kind] = map[string]*ContextStats{}
			}
			c.ByKindPeriod[kind][period] = build(g)
		}
	}
	return c, reps
}

// contextStatsW computes the measures over the items idx, item i counted
// w[i] times (w nil: once).
func contextStatsW(rows [][]int, idx []int, w []int32) *ContextStats {
	weight := func(i int) int {
		if w == nil {
			return 1
		}
		return int(w[i])
	}
	s := &ContextStats{}
	if w == nil {
		s.clusters = &contextClusters{}
	}
	most := 0
	for _, i := range idx {
		if wi := weight(i); wi > 0 {
			n := sum(rows[i])
			s.Items += wi
			s.Judgements += wi * n
			most = max(most, n)
		}
	}
	var fN, fP float64
	var fCol [MaxAddedSentences + 2]float64
	var full, major wshare
	var jud, its [MaxAddedSentences + 1]wshare
	for _, i := range idx {
		wi := weight(i)
		if wi == 0 {
			continue
		}
		r, fw := rows[i], float64(wi)
		n := sum(r)
		if most >= 2 && n == most {
			s.FleissItems += wi
			fN += fw
			var agree int
			for j, c := range r {
				agree += c * (c - 1)
				fCol[j] += fw * float64(c)
			}
			fP += fw * float64(agree) / float64(n*(n-1))
		}
		if n >= 2 {
			s.AlphaItems += wi
			top := slices.Max(r)
			full.add(int32(wi), top == n)
			major.add(int32(wi), top < n && 2*top > n)
			if w == nil {
				s.clusters.full = append(s.clusters.full, b2f(top == n))
				s.clusters.major = append(s.clusters.major, b2f(top < n && 2*top > n))
			}
		}
		within := 0
		for k := 0; k <= MaxAddedSentences; k++ {
			within += r[k]
			jud[k].hits += fw * float64(within)
			jud[k].n += fw * float64(n)
			its[k].add(int32(wi), 2*within > n)
			if w == nil {
				s.clusters.cj[k] = append(s.clusters.cj[k], float64(within))
				s.clusters.ci[k] = append(s.clusters.ci[k], b2f(2*within > n))
			}
		}
		if w == nil {
			s.clusters.answers = append(s.clusters.answers, float64(n))
			s.clusters.ones = append(s.clusters.ones, 1)
		}
	}
	if most >= 2 {
		s.FleissRaters = most
		var pe float64
		for _, t := range fCol {
			p := t / (fN * float64(most))
			pe += p * p
		}
		if pe < 1 {
			s.FleissKappa = num((fP/fN - pe) / (1 - pe))
		}
	}
	if a, ok := krippendorffSubset(rows, idx, w, Nominal, nil); ok {
		s.KrippendorffAlphaNominal = num(a)
	}
	if a, ok := krippendorffSubset(rows, idx, w, Ordinal, nil); ok {
		s.KrippendorffAlphaOrdinal = num(a)
	}
	s.FullConsensus, s.MajorityConsensus, s.ConsensusItems = full.value(), major.value(), int(full.n)
	s.CumulativeJudgements = make([]*float64, MaxAddedSentences+1)
	s.CumulativeItems = make([]*float64, MaxAddedSentences+1)
	for k := range jud {
		s.CumulativeJudgements[k], s.CumulativeItems[k] = jud[k].value(), its[k].value()
	}
	return s
}

// wshare is a share with weighted counts.
type wshare struct{ hits, n float64 }

func (s *wshare) add(w int32, hit bool) {
	s.n += float64(w)
	if hit {
		s.hits += float64(w)
	}
}

func (s wshare) value() *float64 {
	if s.n == 0 {
		return nil
	}
	return num(s.hits / s.n)
}

func recordContext(r *replicates, g string, b int, s *ContextStats) {
	r.set(g+"/fleiss", b, nanIfNil(s.FleissKappa))
	r.set(g+"/alpha_n", b, nanIfNil(s.KrippendorffAlphaNominal))
	r.set(g+"/alpha_o", b, nanIfNil(s.KrippendorffAlphaOrdinal))
	r.set(g+"/full", b, nanIfNil(s.FullConsensus))
	r.set(g+"/major", b, nanIfNil(s.MajorityConsensus))
	for k := range s.CumulativeJudgements {
		r.set(g+"/cj"+strconv.Itoa(k), b, nanIfNil(s.CumulativeJudgements[k]))
		r.set(g+"/ci"+strconv.Itoa(k), b, nanIfNil(s.CumulativeItems[k]))
	}
}

// contextCIs sets the intervals: Fleiss' κ and α from the replicates, the
// shares by Wilson's interval over items (judgements: the items as
// clusters).
func contextCIs(r *replicates, g string, s *ContextStats) {
	s.FleissKappaCI = r.ci(g+"/fleiss", s.FleissKappa)
	s.KrippendorffAlphaNominalCI = r.ci(g+"/alpha_n", s.KrippendorffAlphaNominal)
	s.KrippendorffAlphaOrdinalCI = r.ci(g+"/alpha_o", s.KrippendorffAlphaOrdinal)
	s.CumulativeJudgementsCI = make([]*CI, len(s.CumulativeJudgements))
	s.CumulativeItemsCI = make([]*CI, len(s.CumulativeItems))
	if r == nil {
		return
	}
	share := s.clusters.interval
	s.FullConsensusCI = share("/full")
	s.MajorityConsensusCI = share("/major")
	for k := range s.CumulativeJudgements {
		s.CumulativeJudgementsCI[k] = share("/cj" + strconv.Itoa(k))
		s.CumulativeItemsCI[k] = share("/ci" + strconv.Itoa(k))
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
