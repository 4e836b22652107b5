// Package contextsurvey answers how much preceding context a passage needs:
// the context study's answers, their shares and agreement, and the
// building of its surveys.
package contextsurvey

import (
	"io"
	"pragmalab/analysis"
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
	t, err := analysis.NewInput(r, ContextColumns, append([]string{ContextMaxColumn}, analysis.SignalColumns...)...)
	if err != nil {
		return nil, err
	}
	seen := map[[3]string]int{}
	return analysis.ReadRows(t, "answers", func(row []string) (ContextAnswer, error) {
		a, err := contextAnswerRow(t, row)
		if err != nil {
			return a, err
		}
		key := [3]string{a.Annotator, a.Survey, a.Item}
		if l, dup := seen[key]; dup {
			return a, t.Errf(2, "annotator %q already answered item %q of survey %q on line %d", a.Annotator, a.Item, a.Survey, l)
		}
		seen[key] = t.Line
		return a, nil
	})
}

// contextAnswerRow reads one row of a context answers file.
func contextAnswerRow(t *analysis.Input, row []string) (ContextAnswer, error) {
	a := ContextAnswer{Annotator: row[0], Survey: row[1], Item: row[2], Kind: row[3], Period: row[4]}
	if err := t.NonEmpty("annotator id", "survey id", "item id"); err != nil {
		return a, err
	}
	n, err := strconv.Atoi(row[5])
	if err != nil || n < 0 || n > MaxAddedSentences {
		return a, t.Errf(5, "sentences %q is not an integer from 0 to %d", row[5], MaxAddedSentences)
	}
	a.Sentences = n
	v, empty, ok := analysis.ParseYesNo(row[6])
	if !ok || empty {
		return a, t.Errf(6, "sufficient %q is not yes or no", row[6])
	}
	a.Sufficient = v
	if err := contextFinal(t, n, v, row[7]); err != nil {
		return a, err
	}
	if err := t.NotPooled(1, "survey"); err != nil {
		return a, err
	}
	return a, t.NotPooled(4, "period")
}

// contextFinal checks that an answer after n added sentences, sufficient
// or not, could be given on a passage showing at most maxCell (empty: 5).
// "no" is final only once every sentence was shown: 5, or fewer when the
// passage had no more before its target (IMPAQTS-PID passages hold four),
// which the max_sentences column says. Any other "no" is an unfinished or
// broken answer, not "insufficient".
func contextFinal(t *analysis.Input, n int, sufficient bool, maxCell string) error {
	most := MaxAddedSentences
	if maxCell != "" {
		m, err := strconv.Atoi(maxCell)
		if err != nil || m < 0 || m > MaxAddedSentences {
			return t.Errf(7, "max_sentences %q is not an integer from 0 to %d", maxCell, MaxAddedSentences)
		}
		most = m
	}
	if n > most {
		return t.Errf(5, "sentences %d is more than the %d the passage can show (max_sentences)", n, most)
	}
	if !sufficient && n < most {
		return t.Errf(6, "sufficient is no after %d added sentences, but %d could be shown: an insufficient answer comes only after all of them (add a max_sentences column if the passage has fewer)", n, most)
	}
	return nil
}

// ContextStats are the context measures of docs/statistics.md#context-analysis
// for one survey or overall.
// Each *_ci95 is the percentile-bootstrap interval over items (within
// survey) of the value beside it.
type ContextStats struct {
	Items         int          `json:"items"`
	Judgements    int          `json:"judgements"`
	FleissKappa   *float64     `json:"fleiss_kappa"`
	FleissKappaCI *analysis.CI `json:"fleiss_kappa_ci95"`
	// FleissItems are the items with the most annotators (FleissRaters),
	// over which κ is computed, as Fleiss' κ needs equal counts.
	FleissItems  int `json:"fleiss_items"`
	FleissRaters int `json:"fleiss_raters"`
	// KrippendorffAlphaNominal and …Ordinal are Krippendorff's α over every
	// item with two or more answers (AlphaItems), the 7 categories unordered
	// and ordered (0–5 added sentences, then "insufficient" highest).
	KrippendorffAlphaNominal   *float64     `json:"krippendorff_alpha_nominal"`
	KrippendorffAlphaNominalCI *analysis.CI `json:"krippendorff_alpha_nominal_ci95"`
	KrippendorffAlphaOrdinal   *float64     `json:"krippendorff_alpha_ordinal"`
	KrippendorffAlphaOrdinalCI *analysis.CI `json:"krippendorff_alpha_ordinal_ci95"`
	AlphaItems                 int          `json:"krippendorff_items"`
	// FullConsensus is the share of items (with 2+ annotators) where all
	// chose the same category; MajorityConsensus those where more than half
	// but not all did — the paper's 44 % and 21 %, adding to 65 %.
	FullConsensus       *float64     `json:"full_consensus"`
	FullConsensusCI     *analysis.CI `json:"full_consensus_ci95"`
	MajorityConsensus   *float64     `json:"majority_consensus"`
	MajorityConsensusCI *analysis.CI `json:"majority_consensus_ci95"`
	ConsensusItems      int          `json:"consensus_items"`
	// CumulativeJudgements[k] is the share of judgements "sufficient" with
	// at most k added sentences; CumulativeItems[k] the share of items a
	// majority of whose annotators found sufficient with at most k.
	CumulativeJudgements   []*float64     `json:"cumulative_judgements"`
	CumulativeJudgementsCI []*analysis.CI `json:"cumulative_judgements_ci95"`
	CumulativeItems        []*float64     `json:"cumulative_items"`
	CumulativeItemsCI      []*analysis.CI `json:"cumulative_items_ci95"`
	// Clusters holds each item's hits for the shares (point estimates
	// only), for their Wilson intervals.
	Clusters *contextClusters
}

// contextClusters are the per-item hits of the shares: consensus items
// (one trial each), all items (cumulative items: one trial each;
// cumulative judgements: answers trials).
type contextClusters struct {
	full, major, ones []float64
	answers           []float64
	cj, ci            [MaxAddedSentences + 1][]float64
}

// Interval is the Wilson interval of the share named by key
// ("/full", "/cj3", …), items as clusters.
func (c *contextClusters) Interval(key string) *analysis.CI {
	switch key {
	case "/full":
		return analysis.ClusterWilson(c.full, c.ones[:len(c.full)])
	case "/major":
		return analysis.ClusterWilson(c.major, c.ones[:len(c.major)])
	}
	k, _ := strconv.Atoi(key[3:])
	if strings.HasPrefix(key, "/cj") {
		return analysis.ClusterWilson(c.cj[k], c.answers)
	}
	return analysis.ClusterWilson(c.ci[k], c.ones[:len(c.ci[k])])
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
	Bootstrap    *analysis.BootstrapInfo             `json:"bootstrap,omitempty"`
	// SurveyOrder lists the survey ids in first-seen order; KindOrder and
	// PeriodOrder the kinds and periods, sorted (PeriodOrder without "all").
	SurveyOrder []string `json:"-"`
	KindOrder   []string `json:"-"`
	PeriodOrder []string `json:"-"`
}

// ContextScheme describes the context bootstrap.
const ContextScheme = "Fleiss' κ and α: BCa bootstrap over items, resampled within survey (acceleration from the jackknife over items), widened to contain the estimate; consensus and cumulative shares: Wilson score interval over items (shares of judgements: items as clusters)"

// ComputeContext computes the measures with the default bootstrap.
func ComputeContext(as []ContextAnswer) *Context {
	return ComputeContextWith(as, analysis.DefaultBootstrap())
}

// contextItem is one passage of one survey: its answer counts per category.
type contextItem struct {
	survey, kind, period string
	counts               []int
}

// ComputeContextWith computes the measures per survey, overall and per
// kind × period, with bootstrap intervals over items.
func ComputeContextWith(as []ContextAnswer, bs analysis.Bootstrap) *Context {
	c, _ := ComputeContextOn(as, bs)
	return c
}

// contextMethod is the interval method in use for a context statistic,
// by its replicate key (docs/statistics.md#interval-coverage).
func contextMethod(key string) analysis.CIMethod { return ContextInUse }

// ContextInUse is the interval method of every context statistic.
const ContextInUse = analysis.CIBCa

// ComputeContextOn is ComputeContextWith, also returning the replicates.
func ComputeContextOn(as []ContextAnswer, bs analysis.Bootstrap) (*Context, *analysis.Replicates) {
	c := &Context{Surveys: map[string]*ContextStats{}, ByKindPeriod: map[string]map[string]*ContextStats{}}
	items := c.gatherItems(as)
	groups, strata := contextGroups(c.SurveyOrder, items)
	rows := make([][]int, len(items))
	for i := range items {
		rows[i] = items[i].counts
	}
	var reps *analysis.Replicates
	if bs.Replicates > 0 {
		reps = contextReplicates(rows, groups, strata, bs)
		c.Bootstrap = &analysis.BootstrapInfo{Replicates: bs.Replicates, Seed: bs.Seed, Scheme: ContextScheme}
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

// gatherItems counts the answers' categories per item (a survey's item),
// in order of first answer, and records the surveys in that order and the
// kinds and periods sorted.
func (c *Context) gatherItems(as []ContextAnswer) []contextItem {
	const cats = MaxAddedSentences + 2
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
			c.SurveyOrder = appendNew(c.SurveyOrder, a.Survey)
			c.KindOrder = appendNew(c.KindOrder, a.Kind)
			c.PeriodOrder = appendNew(c.PeriodOrder, a.Period)
		}
		items[i].counts[a.Category()]++
	}
	slices.Sort(c.KindOrder)
	slices.Sort(c.PeriodOrder)
	return items
}

// appendNew appends v to list unless it is there already.
func appendNew(list []string, v string) []string {
	if slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}

// contextGroups are the item indices each statistic runs over, by key:
// "overall", "survey/S", "kp/KIND/PERIOD" and "kp/KIND/all"; strata are
// the surveys' items, which the bootstrap resamples apart.
func contextGroups(surveys []string, items []contextItem) (map[string][]int, [][]int) {
	groups := map[string][]int{"overall": {}}
	var strata [][]int
	for _, s := range surveys {
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
	return groups, strata
}

// contextReplicates are the bootstrap replicates of every group's
// statistics, items resampled within survey, and the jackknife over items
// for BCa's acceleration.
func contextReplicates(rows [][]int, groups map[string][]int, strata [][]int, bs analysis.Bootstrap) *analysis.Replicates {
	reps := analysis.NewReplicates(bs.Replicates)
	rng := analysis.NewRand(bs.Seed)
	w := make([]int32, len(rows))
	for b := range bs.Replicates {
		analysis.DrawStrata(rng, strata, w)
		for g, idx := range groups {
			recordContext(reps, g, b, contextStatsW(rows, idx, w))
		}
	}
	reps.Jack, reps.Method = analysis.NewReplicates(analysis.JackBlocks), contextMethod
	analysis.JackknifeGroups(groups, w, func(g string, k int) {
		recordContext(reps.Jack, g, k, contextStatsW(rows, groups[g], w))
	})
	return reps
}

// contextStatsW computes the measures over the items idx, item i counted
// w[i] times (w nil: once).
func contextStatsW(rows [][]int, idx []int, w []int32) *ContextStats {
	s := &ContextStats{}
	if w == nil {
		s.Clusters = &contextClusters{}
	}
	most := 0
	for _, i := range idx {
		if wi := itemWeight(w, i); wi > 0 {
			n := analysis.Sum(rows[i])
			s.Items += wi
			s.Judgements += wi * n
			most = max(most, n)
		}
	}
	acc := contextAcc{s: s, most: most}
	for _, i := range idx {
		if wi := itemWeight(w, i); wi != 0 {
			acc.add(rows[i], wi)
		}
	}
	acc.finish()
	if a, ok := analysis.KrippendorffSubset(rows, idx, w, analysis.Nominal, nil); ok {
		s.KrippendorffAlphaNominal = analysis.Num(a)
	}
	if a, ok := analysis.KrippendorffSubset(rows, idx, w, analysis.Ordinal, nil); ok {
		s.KrippendorffAlphaOrdinal = analysis.Num(a)
	}
	return s
}

// itemWeight is how many times item i counts: w[i], or once for w nil.
func itemWeight(w []int32, i int) int {
	if w == nil {
		return 1
	}
	return int(w[i])
}

// contextAcc gathers, item by item, the sums behind a ContextStats:
// Fleiss' κ over the items with the most answers, the consensus shares
// over items with two or more, and the cumulative shares. With s.clusters
// set (no weights) it also keeps each item's values for the intervals.
type contextAcc struct {
	s           *ContextStats
	most        int // the largest number of answers of an item
	fN, fP      float64
	fCol        [MaxAddedSentences + 2]float64
	full, major wshare
	jud, its    [MaxAddedSentences + 1]wshare
}

// add counts the item of answer counts r wi times.
func (a *contextAcc) add(r []int, wi int) {
	n := analysis.Sum(r)
	if a.most >= 2 && n == a.most {
		a.addFleiss(r, n, wi)
	}
	if n >= 2 {
		a.addConsensus(r, n, wi)
	}
	a.addCumulative(r, n, wi)
	if c := a.s.Clusters; c != nil {
		c.answers = append(c.answers, float64(n))
		c.ones = append(c.ones, 1)
	}
}

// addFleiss adds an item with the most answers to Fleiss' κ sums.
func (a *contextAcc) addFleiss(r []int, n, wi int) {
	fw := float64(wi)
	a.s.FleissItems += wi
	a.fN += fw
	var agree int
	for j, c := range r {
		agree += c * (c - 1)
		a.fCol[j] += fw * float64(c)
	}
	a.fP += fw * float64(agree) / float64(n*(n-1))
}

// addConsensus adds an item of two or more answers to the full and
// majority consensus shares.
func (a *contextAcc) addConsensus(r []int, n, wi int) {
	a.s.AlphaItems += wi
	top := slices.Max(r)
	a.full.add(int32(wi), top == n)
	a.major.add(int32(wi), top < n && 2*top > n)
	if c := a.s.Clusters; c != nil {
		c.full = append(c.full, b2f(top == n))
		c.major = append(c.major, b2f(top < n && 2*top > n))
	}
}

// addCumulative adds the item to the shares of judgements, and of items
// by majority, sufficient within k added sentences.
func (a *contextAcc) addCumulative(r []int, n, wi int) {
	fw := float64(wi)
	within := 0
	for k := 0; k <= MaxAddedSentences; k++ {
		within += r[k]
		a.jud[k].hits += fw * float64(within)
		a.jud[k].n += fw * float64(n)
		a.its[k].add(int32(wi), 2*within > n)
		if c := a.s.Clusters; c != nil {
			c.cj[k] = append(c.cj[k], float64(within))
			c.ci[k] = append(c.ci[k], b2f(2*within > n))
		}
	}
}

// finish writes κ, the consensus and the cumulative shares into s.
func (a *contextAcc) finish() {
	s := a.s
	if a.most >= 2 {
		s.FleissRaters = a.most
		var pe float64
		for _, t := range a.fCol {
			p := t / (a.fN * float64(a.most))
			pe += p * p
		}
		if pe < 1 {
			s.FleissKappa = analysis.Num((a.fP/a.fN - pe) / (1 - pe))
		}
	}
	s.FullConsensus, s.MajorityConsensus, s.ConsensusItems = a.full.value(), a.major.value(), int(a.full.n)
	s.CumulativeJudgements = make([]*float64, MaxAddedSentences+1)
	s.CumulativeItems = make([]*float64, MaxAddedSentences+1)
	for k := range a.jud {
		s.CumulativeJudgements[k], s.CumulativeItems[k] = a.jud[k].value(), a.its[k].value()
	}
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
	return analysis.Num(s.hits / s.n)
}

func recordContext(r *analysis.Replicates, g string, b int, s *ContextStats) {
	r.Set(g+"/fleiss", b, analysis.NanIfNil(s.FleissKappa))
	r.Set(g+"/alpha_n", b, analysis.NanIfNil(s.KrippendorffAlphaNominal))
	r.Set(g+"/alpha_o", b, analysis.NanIfNil(s.KrippendorffAlphaOrdinal))
	r.Set(g+"/full", b, analysis.NanIfNil(s.FullConsensus))
	r.Set(g+"/major", b, analysis.NanIfNil(s.MajorityConsensus))
	for k := range s.CumulativeJudgements {
		r.Set(g+"/cj"+strconv.Itoa(k), b, analysis.NanIfNil(s.CumulativeJudgements[k]))
		r.Set(g+"/ci"+strconv.Itoa(k), b, analysis.NanIfNil(s.CumulativeItems[k]))
	}
}

// contextCIs sets the intervals: Fleiss' κ and α from the replicates, the
// shares by Wilson's interval over items (judgements: the items as
// clusters).
func contextCIs(r *analysis.Replicates, g string, s *ContextStats) {
	s.FleissKappaCI = r.CI(g+"/fleiss", s.FleissKappa)
	s.KrippendorffAlphaNominalCI = r.CI(g+"/alpha_n", s.KrippendorffAlphaNominal)
	s.KrippendorffAlphaOrdinalCI = r.CI(g+"/alpha_o", s.KrippendorffAlphaOrdinal)
	s.CumulativeJudgementsCI = make([]*analysis.CI, len(s.CumulativeJudgements))
	s.CumulativeItemsCI = make([]*analysis.CI, len(s.CumulativeItems))
	if r == nil {
		return
	}
	share := s.Clusters.Interval
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

func (c *Context) Each(f func(name string, s *ContextStats)) {
	for _, s := range c.SurveyOrder {
		f(s, c.Surveys[s])
	}
	f(domain.Overall, c.Overall)
}
