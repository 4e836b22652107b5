// Package agreement reads the experts' judgements and says how far they
// agree (κ, α and their intervals) and which annotator to trust
// (Dawid–Skene, MACE).
package agreement

import (
	"fmt"
	"io"
	"pragmalab/analysis"
	"pragmalab/domain"
	"slices"
)

// JudgementsColumns is the header of an expert judgements file
// (docs/formats.md#judgements-file).
var JudgementsColumns = []string{"annotator_id", "item_id", "item_type", "plausible", "cancellation_correct"}

// Judgement is one expert's answer on one item; HasCancellation is false
// when cancellation_correct was left empty.
type Judgement struct {
	Annotator, Item, Type string
	Plausible             bool
	HasCancellation       bool
	CancellationCorrect   bool
}

// ReadJudgements reads an expert judgements file
// (docs/formats.md#judgements-file). Bad values, and an annotator judging
// the same item twice, fail the file with an *InputError.
func ReadJudgements(r io.Reader) ([]Judgement, error) {
	t, err := analysis.NewInput(r, JudgementsColumns, append(append([]string{analysis.ItemVersionColumn}, analysis.SignalColumns...), analysis.KeyColumns...)...)
	if err != nil {
		return nil, err
	}
	seen := map[[2]string]int{}
	itemTypes := map[string]string{}
	return analysis.ReadRows(t, "judgements", func(row []string) (Judgement, error) {
		if err := t.CheckItemVersion(len(JudgementsColumns)); err != nil {
			return Judgement{}, err
		}
		j, err := judgementRow(t, row, itemTypes)
		if err != nil {
			return j, err
		}
		key := [2]string{j.Annotator, j.Item}
		if l, dup := seen[key]; dup {
			return j, t.Errf(1, "annotator %q already judged item %q on line %d", j.Annotator, j.Item, l)
		}
		seen[key] = t.Line
		return j, nil
	})
}

// judgementRow reads one row of a judgements file; itemTypes holds the type
// each item had on earlier lines, which must not change.
func judgementRow(t *analysis.Input, row []string, itemTypes map[string]string) (Judgement, error) {
	j := Judgement{Annotator: row[0], Item: row[1], Type: row[2]}
	if err := t.NotPooled(2, "item type"); err != nil {
		return j, err
	}
	if typ, ok := itemTypes[j.Item]; ok && typ != j.Type {
		return j, t.Errf(2, "item %q has type %q here but %q on an earlier line", j.Item, j.Type, typ)
	}
	itemTypes[j.Item] = j.Type
	if j.Annotator == "" {
		return j, t.Errf(0, "empty annotator id")
	}
	if j.Item == "" {
		return j, t.Errf(1, "empty item id")
	}
	v, empty, ok := analysis.ParseYesNo(row[3])
	if !ok || empty {
		return j, t.Errf(3, "plausible %q is not yes or no", row[3])
	}
	j.Plausible = v
	v, empty, ok = analysis.ParseYesNo(row[4])
	if !ok {
		return j, t.Errf(4, "cancellation_correct %q is not yes, no or empty", row[4])
	}
	j.CancellationCorrect, j.HasCancellation = v, !empty
	return j, nil
}

// Binary is the agreement of two annotators on a yes/no question.
// Confusion[a][b] counts items annotator A answered a and B answered b, with
// index 0 = yes and 1 = no (so [[43,4],[4,3]] has 43 items both said yes).
// Each *_ci95 is the 95 % percentile-bootstrap interval over items of the
// value beside it (docs/statistics.md), null when the value is.
type Binary struct {
	Items     int          `json:"items"`
	Raw       *float64     `json:"raw"`
	RawCI     *analysis.CI `json:"raw_ci95"`
	Kappa     *float64     `json:"kappa"`
	KappaCI   *analysis.CI `json:"kappa_ci95"`
	PABAK     *float64     `json:"pabak"`
	PABAKCI   *analysis.CI `json:"pabak_ci95"`
	Confusion [2][2]int    `json:"confusion"`
	// FleissKappa (only on the pooled result) is Fleiss' κ over the items
	// judged by the largest number of annotators; FleissItems counts them
	// and FleissRaters is that number.
	FleissKappa   *float64     `json:"fleiss_kappa,omitempty"`
	FleissKappaCI *analysis.CI `json:"fleiss_kappa_ci95,omitempty"`
	FleissItems   int          `json:"fleiss_items,omitempty"`
	FleissRaters  int          `json:"fleiss_raters,omitempty"`
	// KappaNA says why κ, though a number, is not shown: an annotator of
	// the pair gave one answer on every item, so κ is 0 by construction
	// (docs/statistics.md#cohens-kappa); the tables print "n/a (no
	// variation)".
	KappaNA string `json:"kappa_na,omitempty"`
}

// noVariation is KappaNA's reason.
const noVariation = "no variation: an annotator gave the same answer on every item, so κ is 0 by construction and says nothing about agreement"

// BinaryFromConfusion computes raw agreement, Cohen's κ and PABAK from a
// 2×2 confusion matrix. With no items every measure is nil. When both
// annotators put every item in one and the same class, chance agreement is
// 1 and κ = 0/0: it is reported as nil (undefined), not 1 or 0, because the
// data carry no information about agreement beyond chance; raw agreement and
// PABAK (both 1) still say the annotators agreed.
func BinaryFromConfusion(c [2][2]int) Binary {
	b := Binary{Confusion: c}
	n := c[0][0] + c[0][1] + c[1][0] + c[1][1]
	b.Items = n
	if n == 0 {
		return b
	}
	fn := float64(n)
	po := float64(c[0][0]+c[1][1]) / fn
	aYes, bYes := float64(c[0][0]+c[0][1])/fn, float64(c[0][0]+c[1][0])/fn
	pe := aYes*bYes + (1-aYes)*(1-bYes)
	b.Raw = analysis.Num(po)
	b.PABAK = analysis.Num(2*po - 1)
	if pe < 1 {
		b.Kappa = analysis.Num((po - pe) / (1 - pe))
		if aYes == 0 || aYes == 1 || bYes == 0 || bYes == 1 {
			b.KappaNA = noVariation
		}
	}
	return b
}

// Question is the agreement on one question (plausibility or cancellation)
// over all annotators: the pooled pairwise figures of Binary plus the
// coefficients made for more than two annotators.
type Question struct {
	Binary
	// LightsKappa is Light's κ: the unweighted mean of the pairwise Cohen's
	// κ, each over the items both annotators judged (pairs whose κ is
	// undefined are left out). With two annotators it equals Kappa.
	LightsKappa   *float64     `json:"lights_kappa"`
	LightsKappaCI *analysis.CI `json:"lights_kappa_ci95"`
	// KrippendorffAlpha is Krippendorff's α (nominal) over every annotator's
	// value, missing values allowed; AlphaItems counts the items with at
	// least two values (the pairable units).
	KrippendorffAlpha   *float64     `json:"krippendorff_alpha"`
	KrippendorffAlphaCI *analysis.CI `json:"krippendorff_alpha_ci95"`
	AlphaItems          int          `json:"krippendorff_items"`
}

// Pair is the agreement of two annotators.
type Pair struct {
	A            string `json:"annotator_a"`
	B            string `json:"annotator_b"`
	Plausibility Binary `json:"plausibility"`
	Cancellation Binary `json:"cancellation"`
}

// Agreement is the result of the expert agreement; its JSON is the contract
// of `pragmalab analyze agreement --json` (docs/formats.md#agreement-json).
type Agreement struct {
	Annotators []string `json:"annotators"`
	// Plausibility and Cancellation are the two annotators' agreement; with
	// more than two annotators raw agreement and PABAK pool every pair
	// (confusion matrices summed), Cohen's κ is null (the κ of summed
	// matrices is no standard statistic and changes when an annotator is
	// renamed: see LightsKappa and the pairs), and Fleiss' κ is added.
	Plausibility Question `json:"plausibility"`
	Cancellation Question `json:"cancellation"`
	Pairs        []Pair   `json:"pairs"`
	// ByType is the same analysis over the items of each type, and "all"
	// over every item (equal to the whole); nil inside ByType itself.
	ByType    map[string]*Agreement   `json:"by_type,omitempty"`
	TypeOrder []string                `json:"-"`
	Bootstrap *analysis.BootstrapInfo `json:"bootstrap,omitempty"`
	// AnnotatorModels are Dawid–Skene and MACE per question
	// ("plausibility", "cancellation"), on the whole only; absent with
	// fewer than two annotators.
	AnnotatorModels map[string]*AnnotatorModels `json:"annotator_models,omitempty"`
}

// AgreementScheme describes the agreement bootstrap for the JSON and the
// methods paragraph.
const AgreementScheme = "κ, Fleiss' κ, Light's κ and α: BCa bootstrap over items, resampled within item type (acceleration from the jackknife over items), widened to contain the estimate; raw agreement and PABAK: Wilson score interval over items (pooled pairs: items as clusters)"

// AgreementInUse is the interval method of every agreement statistic.
const AgreementInUse = analysis.CIBCa

// ComputeAgreement computes agreement with the default bootstrap.
func ComputeAgreement(js []Judgement) *Agreement {
	return ComputeAgreementWith(js, analysis.DefaultBootstrap())
}

// agreeData is the judgements laid out by item and annotator index:
// plaus[i][a] is 0 (yes), 1 (no) or -1 (not judged); canc[i][a] likewise
// for cancellation, -1 unless the annotator found the item plausible and
// answered.
type agreeData struct {
	anns        []string
	items       []string
	types       []string
	plaus, canc [][]int8
	// per item, the yes and no counts of each question
	plausCounts, cancCounts []yesNo
}

// yesNo counts one item's answers; spoiled marks an item an annotator
// judged without a value (for cancellation: not plausible, or not answered),
// which Fleiss' κ leaves out.
type yesNo struct {
	yes, no int
	spoiled bool
}

// newAgreeData lays the judgements out by item and annotator (annotators
// sorted, items in order of first judgement) and counts each item's
// answers to both questions.
func newAgreeData(js []Judgement) *agreeData {
	d := &agreeData{}
	annIdx := d.indexAnnotators(js)
	itemIdx := map[string]int{}
	for _, j := range js {
		i, ok := itemIdx[j.Item]
		if !ok {
			i = d.addItem(j)
			itemIdx[j.Item] = i
		}
		a := annIdx[j.Annotator]
		d.plaus[i][a] = int8(yesIndex(j.Plausible))
		if j.Plausible && j.HasCancellation {
			d.canc[i][a] = int8(yesIndex(j.CancellationCorrect))
		}
	}
	d.plausCounts, d.cancCounts = make([]yesNo, len(d.items)), make([]yesNo, len(d.items))
	for i := range d.items {
		d.countItem(i)
	}
	return d
}

// indexAnnotators sets d.anns to the annotators, sorted, and returns each
// one's index.
func (d *agreeData) indexAnnotators(js []Judgement) map[string]int {
	annIdx := map[string]int{}
	for _, j := range js {
		if _, ok := annIdx[j.Annotator]; !ok {
			annIdx[j.Annotator] = 0
			d.anns = append(d.anns, j.Annotator)
		}
	}
	slices.Sort(d.anns)
	for i, a := range d.anns {
		annIdx[a] = i
	}
	return annIdx
}

// addItem adds j's item with no answer yet (-1 for every annotator) and
// returns its index.
func (d *agreeData) addItem(j Judgement) int {
	i := len(d.items)
	d.items = append(d.items, j.Item)
	d.types = append(d.types, j.Type)
	p, c := make([]int8, len(d.anns)), make([]int8, len(d.anns))
	for a := range p {
		p[a], c[a] = -1, -1
	}
	d.plaus, d.canc = append(d.plaus, p), append(d.canc, c)
	return i
}

// countItem counts item i's yes and no answers to each question; a
// plausible judgement without a cancellation answer spoils the item's
// cancellation counts.
func (d *agreeData) countItem(i int) {
	for a := range d.anns {
		switch d.plaus[i][a] {
		case 0:
			d.plausCounts[i].yes++
		case 1:
			d.plausCounts[i].no++
		}
		switch {
		case d.canc[i][a] == 0:
			d.cancCounts[i].yes++
		case d.canc[i][a] == 1:
			d.cancCounts[i].no++
		case d.plaus[i][a] >= 0:
			d.cancCounts[i].spoiled = true
		}
	}
}

// questionStats are one question's figures over a set of items.
type questionStats struct {
	pairs []Binary
	q     Question
	// agree and pairs count, per item, the pairs of annotators who both
	// judged it and those who agreed: the clusters of the pooled raw
	// agreement's interval (point estimates only).
	agree, pairsOn []float64
}

// stats computes both questions over the items idx, item i counted w[i]
// times (w nil: once) — the point estimate and each bootstrap replicate.
func (d *agreeData) stats(idx []int, w []int32) (plaus, canc questionStats) {
	return d.question(idx, w, d.plaus, false), d.question(idx, w, d.canc, true)
}

func (d *agreeData) question(idx []int, w []int32, vals [][]int8, cancellation bool) questionStats {
	na := len(d.anns)
	weight := func(i int) int {
		if w == nil {
			return 1
		}
		return int(w[i])
	}
	var s questionStats
	var pooled [2][2]int
	var kappas []float64
	for a := range na {
		for b := a + 1; b < na; b++ {
			var c [2][2]int
			for _, i := range idx {
				va, vb := vals[i][a], vals[i][b]
				if va >= 0 && vb >= 0 {
					c[va][vb] += weight(i)
				}
			}
			bin := BinaryFromConfusion(c)
			s.pairs = append(s.pairs, bin)
			addConfusion(&pooled, c)
			if bin.Kappa != nil {
				kappas = append(kappas, *bin.Kappa)
			}
		}
	}
	s.q.Binary = BinaryFromConfusion(pooled)
	if w == nil {
		for _, i := range idx {
			var agree, n float64
			for a := range na {
				for b := a + 1; b < na; b++ {
					if va, vb := vals[i][a], vals[i][b]; va >= 0 && vb >= 0 {
						n++
						if va == vb {
							agree++
						}
					}
				}
			}
			s.agree, s.pairsOn = append(s.agree, agree), append(s.pairsOn, n)
		}
	}
	if na > 2 {
		s.q.Kappa = nil
	}
	if len(kappas) > 0 {
		s.q.LightsKappa = analysis.Num(analysis.Mean(kappas))
	}
	// Per item: yes and no counts, and whether an annotator judged it but
	// gave no value (cancellation: not plausible, or not answered).
	counts := d.plausCounts
	if cancellation {
		counts = d.cancCounts
	}
	// Fleiss' κ over the items with the most raters (none spoiled), and
	// Krippendorff's α (nominal, two categories) over every item with two
	// or more values — both with items counted w times, without copying.
	most := 0
	for _, i := range idx {
		if c := counts[i]; weight(i) > 0 && !c.spoiled && c.yes+c.no > most {
			most = c.yes + c.no
		}
	}
	var fN, fP, fYes float64
	var oYY, oNN, oYN float64
	for _, i := range idx {
		wi := weight(i)
		if wi == 0 {
			continue
		}
		c, fw := counts[i], float64(wi)
		m := c.yes + c.no
		if most >= 2 && !c.spoiled && m == most {
			s.q.FleissItems += wi
			fN += fw
			fP += fw * float64(c.yes*(c.yes-1)+c.no*(c.no-1)) / float64(m*(m-1))
			fYes += fw * float64(c.yes)
		}
		if m >= 2 {
			s.q.AlphaItems += wi
			f := fw / float64(m-1)
			oYY += f * float64(c.yes*(c.yes-1))
			oNN += f * float64(c.no*(c.no-1))
			oYN += f * float64(c.yes*c.no)
		}
	}
	if na >= 2 && most >= 2 {
		s.q.FleissRaters = most
		pBar := fP / fN
		py := fYes / (fN * float64(most))
		if pe := py*py + (1-py)*(1-py); pe < 1 {
			s.q.FleissKappa = analysis.Num((pBar - pe) / (1 - pe))
		}
	}
	// α = 1 − (n − 1)·Σ_{c≠k} o_ck / Σ_{c≠k} n_c·n_k for two categories.
	ny, nn := oYY+oYN, oNN+oYN
	if n := ny + nn; n > 1 && ny > 0 && nn > 0 {
		s.q.KrippendorffAlpha = analysis.Num(1 - (n-1)*(2*oYN)/(2*ny*nn))
	}
	return s
}

// ComputeAgreementWith computes agreement on plausibility and, over the
// items both annotators of a pair judged plausible and both answered, on
// cancellation correctness — for every pair of annotators (sorted by id),
// pooled, per item type, with bootstrap intervals.
func ComputeAgreementWith(js []Judgement, bs analysis.Bootstrap) *Agreement {
	ag, _ := ComputeAgreementOn(js, bs)
	ag.AnnotatorModels = AnnotatorModelsOf(js)
	return ag
}

// AnnotatorModelsOf fits Dawid–Skene and MACE to both questions, over every
// item and per item type (docs/statistics.md#annotator-models).
func AnnotatorModelsOf(js []Judgement) map[string]*AnnotatorModels {
	d := newAgreeData(js)
	all := make([]int, len(d.items))
	byType := map[string][]int{}
	var named []string
	for i, t := range d.types {
		all[i] = i
		if t == "" {
			continue
		}
		if _, ok := byType[t]; !ok {
			named = append(named, t)
		}
		byType[t] = append(byType[t], i)
	}
	return d.computeAnnotatorModels(all, analysis.OrderTypes(named), byType)
}

// agreementMethod is the interval method in use for an agreement
// statistic, by its replicate key (docs/statistics.md#interval-coverage).
func agreementMethod(key string) analysis.CIMethod { return AgreementInUse }

// ComputeAgreementOn is ComputeAgreementWith, also returning the replicates
// (nil without a bootstrap) for the coverage study's other methods.
func ComputeAgreementOn(js []Judgement, bs analysis.Bootstrap) (*Agreement, *analysis.Replicates) {
	d := newAgreeData(js)
	all := make([]int, len(d.items))
	byType := map[string][]int{}
	var typeOrder []string
	for i, t := range d.types {
		all[i] = i
		if _, ok := byType[t]; !ok {
			typeOrder = append(typeOrder, t)
		}
		byType[t] = append(byType[t], i)
	}
	strata := make([][]int, 0, len(typeOrder))
	for _, t := range typeOrder {
		strata = append(strata, byType[t])
	}
	groups := map[string][]int{domain.TypeAll: all}
	var named []string
	for _, t := range typeOrder {
		if t != "" {
			groups[t] = byType[t]
			named = append(named, t)
		}
	}
	var reps *analysis.Replicates
	if bs.Replicates > 0 {
		reps = analysis.NewReplicates(bs.Replicates)
		rng := analysis.NewRand(bs.Seed)
		w := make([]int32, len(d.items))
		for b := range bs.Replicates {
			analysis.DrawStrata(rng, strata, w)
			for g, idx := range groups {
				p, c := d.stats(idx, w)
				recordQuestion(reps, g+"/p", b, p)
				recordQuestion(reps, g+"/c", b, c)
			}
		}
		// The jackknife over items, for BCa's acceleration: each block of
		// the group's items left out in turn.
		reps.Jack, reps.Method = analysis.NewReplicates(analysis.JackBlocks), agreementMethod
		analysis.JackknifeGroups(groups, w, func(g string, k int) {
			p, c := d.stats(groups[g], w)
			recordQuestion(reps.Jack, g+"/p", k, p)
			recordQuestion(reps.Jack, g+"/c", k, c)
		})
	}
	build := func(g string) *Agreement {
		p, c := d.stats(groups[g], nil)
		ag := &Agreement{Annotators: d.anns, Pairs: []Pair{}}
		ag.Plausibility, ag.Cancellation = withCIs(reps, g+"/p", p), withCIs(reps, g+"/c", c)
		k := 0
		for a := range d.anns {
			for b := a + 1; b < len(d.anns); b++ {
				ag.Pairs = append(ag.Pairs, Pair{A: d.anns[a], B: d.anns[b],
					Plausibility: binaryCIs(reps, fmt.Sprintf("%s/p/%d", g, k), p.pairs[k]),
					Cancellation: binaryCIs(reps, fmt.Sprintf("%s/c/%d", g, k), c.pairs[k])})
				k++
			}
		}
		return ag
	}
	ag := build(domain.TypeAll)
	if bs.Replicates > 0 {
		ag.Bootstrap = &analysis.BootstrapInfo{Replicates: bs.Replicates, Seed: bs.Seed, Scheme: AgreementScheme}
	}
	ag.ByType = map[string]*Agreement{domain.TypeAll: build(domain.TypeAll)}
	for _, t := range named {
		ag.ByType[t] = build(t)
	}
	// Tables list the types in the documented order, whatever the file's;
	// the bootstrap strata keep the file's order, so intervals do not move.
	ag.TypeOrder = append(analysis.OrderTypes(named), domain.TypeAll)
	return ag, reps
}

func recordBinary(r *analysis.Replicates, key string, b int, x Binary) {
	r.Set(key+"/raw", b, analysis.NanIfNil(x.Raw))
	r.Set(key+"/kappa", b, analysis.NanIfNil(x.Kappa))
	r.Set(key+"/pabak", b, analysis.NanIfNil(x.PABAK))
}

func recordQuestion(r *analysis.Replicates, key string, b int, s questionStats) {
	recordBinary(r, key, b, s.q.Binary)
	r.Set(key+"/fleiss", b, analysis.NanIfNil(s.q.FleissKappa))
	r.Set(key+"/light", b, analysis.NanIfNil(s.q.LightsKappa))
	r.Set(key+"/alpha", b, analysis.NanIfNil(s.q.KrippendorffAlpha))
	for k, p := range s.pairs {
		recordBinary(r, fmt.Sprintf("%s/%d", key, k), b, p)
	}
}

// binaryCIs sets a pair's intervals: raw agreement and PABAK by Wilson's
// interval over the items both judged, κ from the replicates.
func binaryCIs(r *analysis.Replicates, key string, x Binary) Binary {
	if r == nil {
		return x
	}
	x.KappaCI = r.CI(key+"/kappa", x.Kappa)
	x.RawCI, x.PABAKCI = rawCIs(analysis.Wilson(x.Confusion[0][0]+x.Confusion[1][1], x.Items))
	return x
}

// rawCIs returns the interval of raw agreement and, from it, PABAK's
// (PABAK = 2·raw − 1).
func rawCIs(raw *analysis.CI) (*analysis.CI, *analysis.CI) {
	if raw == nil {
		return nil, nil
	}
	return raw, &analysis.CI{2*raw[0] - 1, 2*raw[1] - 1}
}

func withCIs(r *analysis.Replicates, key string, s questionStats) Question {
	q := s.q
	q.Binary = binaryCIs(r, key, q.Binary)
	if r != nil {
		// Pooled over pairs, the pairs on one item are a cluster.
		q.RawCI, q.PABAKCI = rawCIs(analysis.ClusterWilson(s.agree, s.pairsOn))
	}
	q.FleissKappaCI = r.CI(key+"/fleiss", q.FleissKappa)
	q.LightsKappaCI = r.CI(key+"/light", q.LightsKappa)
	q.KrippendorffAlphaCI = r.CI(key+"/alpha", q.KrippendorffAlpha)
	return q
}

func yesIndex(v bool) int {
	if v {
		return 0
	}
	return 1
}

func addConfusion(dst *[2][2]int, c [2][2]int) {
	for i := range 2 {
		for k := range 2 {
			dst[i][k] += c[i][k]
		}
	}
}

// ConfusionString renders a confusion matrix as
// docs/statistics.md#confusion-matrix writes it, e.g. [[43,4],[4,3]].
func ConfusionString(c [2][2]int) string {
	return fmt.Sprintf("[[%d,%d],[%d,%d]]", c[0][0], c[0][1], c[1][0], c[1][1])
}
