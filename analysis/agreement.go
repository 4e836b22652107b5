package analysis

import (
	"fmt"
	"io"
	"math"
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
	t, err := newTable(r, JudgementsColumns)
	if err != nil {
		return nil, err
	}
	var out []Judgement
	seen := map[[2]string]int{}
	for {
		row, err := t.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		j := Judgement{Annotator: row[0], Item: row[1], Type: row[2]}
		if j.Annotator == "" {
			return nil, t.errf(0, "empty annotator id")
		}
		if j.Item == "" {
			return nil, t.errf(1, "empty item id")
		}
		v, empty, ok := parseYesNo(row[3])
		if !ok || empty {
			return nil, t.errf(3, "plausible %q is not yes or no", row[3])
		}
		j.Plausible = v
		v, empty, ok = parseYesNo(row[4])
		if !ok {
			return nil, t.errf(4, "cancellation_correct %q is not yes, no or empty", row[4])
		}
		j.CancellationCorrect, j.HasCancellation = v, !empty
		key := [2]string{j.Annotator, j.Item}
		if l, dup := seen[key]; dup {
			return nil, t.errf(1, "annotator %q already judged item %q on line %d", j.Annotator, j.Item, l)
		}
		seen[key] = t.line
		out = append(out, j)
	}
	if len(out) == 0 {
		return nil, noRows("judgements")
	}
	return out, nil
}

// Binary is the agreement of two annotators on a yes/no question.
// Confusion[a][b] counts items annotator A answered a and B answered b, with
// index 0 = yes and 1 = no (so [[43,4],[4,3]] has 43 items both said yes).
type Binary struct {
	Items     int       `json:"items"`
	Raw       *float64  `json:"raw"`
	Kappa     *float64  `json:"kappa"`
	PABAK     *float64  `json:"pabak"`
	Confusion [2][2]int `json:"confusion"`
	// FleissKappa (only on the pooled result) is Fleiss' κ over the items
	// judged by the largest number of annotators; FleissItems counts them
	// and FleissRaters is that number.
	FleissKappa  *float64 `json:"fleiss_kappa,omitempty"`
	FleissItems  int      `json:"fleiss_items,omitempty"`
	FleissRaters int      `json:"fleiss_raters,omitempty"`
}

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
	b.Raw = num(po)
	b.PABAK = num(2*po - 1)
	if pe < 1 {
		b.Kappa = num((po - pe) / (1 - pe))
	}
	return b
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
	// more than two annotators they pool every pair (confusion matrices
	// summed) and carry Fleiss' κ.
	Plausibility Binary `json:"plausibility"`
	Cancellation Binary `json:"cancellation"`
	Pairs        []Pair `json:"pairs"`
}

// ComputeAgreement computes agreement on plausibility and, over the items
// both annotators of a pair judged plausible and both answered, on
// cancellation correctness — for every pair of annotators (sorted by id).
func ComputeAgreement(js []Judgement) *Agreement {
	byAnn := map[string]map[string]Judgement{}
	var items []string
	seenItem := map[string]bool{}
	for _, j := range js {
		if byAnn[j.Annotator] == nil {
			byAnn[j.Annotator] = map[string]Judgement{}
		}
		byAnn[j.Annotator][j.Item] = j
		if !seenItem[j.Item] {
			seenItem[j.Item] = true
			items = append(items, j.Item)
		}
	}
	anns := make([]string, 0, len(byAnn))
	for a := range byAnn {
		anns = append(anns, a)
	}
	slices.Sort(anns)
	ag := &Agreement{Annotators: anns, Pairs: []Pair{}}
	var poolP, poolC [2][2]int
	for i := range anns {
		for k := i + 1; k < len(anns); k++ {
			cp, cc := pairConfusion(byAnn[anns[i]], byAnn[anns[k]], items)
			ag.Pairs = append(ag.Pairs, Pair{A: anns[i], B: anns[k], Plausibility: BinaryFromConfusion(cp), Cancellation: BinaryFromConfusion(cc)})
			addConfusion(&poolP, cp)
			addConfusion(&poolC, cc)
		}
	}
	ag.Plausibility = BinaryFromConfusion(poolP)
	ag.Cancellation = BinaryFromConfusion(poolC)
	fleissBinary(&ag.Plausibility, js, items, anns, false)
	fleissBinary(&ag.Cancellation, js, items, anns, true)
	return ag
}

func yesIndex(v bool) int {
	if v {
		return 0
	}
	return 1
}

func pairConfusion(a, b map[string]Judgement, items []string) (plaus, canc [2][2]int) {
	for _, it := range items {
		ja, okA := a[it]
		jb, okB := b[it]
		if !okA || !okB {
			continue
		}
		plaus[yesIndex(ja.Plausible)][yesIndex(jb.Plausible)]++
		if ja.Plausible && jb.Plausible && ja.HasCancellation && jb.HasCancellation {
			canc[yesIndex(ja.CancellationCorrect)][yesIndex(jb.CancellationCorrect)]++
		}
	}
	return plaus, canc
}

func addConfusion(dst *[2][2]int, c [2][2]int) {
	for i := range 2 {
		for k := range 2 {
			dst[i][k] += c[i][k]
		}
	}
}

// fleissBinary adds Fleiss' κ over the items with the largest number of
// raters (at least 2). For cancellation an item counts only when every
// annotator who judged it found the implicature plausible and answered.
func fleissBinary(b *Binary, js []Judgement, items []string, anns []string, cancellation bool) {
	if len(anns) < 2 {
		return
	}
	counts := map[string]*[2]int{}
	spoiled := map[string]bool{}
	for _, j := range js {
		v := j.Plausible
		if cancellation {
			if !j.Plausible || !j.HasCancellation {
				spoiled[j.Item] = true
				continue
			}
			v = j.CancellationCorrect
		}
		c := counts[j.Item]
		if c == nil {
			c = &[2]int{}
			counts[j.Item] = c
		}
		c[yesIndex(v)]++
	}
	var rows [][]int
	for _, it := range items {
		if c := counts[it]; c != nil && !spoiled[it] {
			rows = append(rows, []int{c[0], c[1]})
		}
	}
	rows, raters := rowsWithMostRaters(rows)
	if raters < 2 {
		return
	}
	b.FleissItems, b.FleissRaters = len(rows), raters
	if k, ok := FleissKappa(rows); ok {
		b.FleissKappa = num(k)
	}
}

// rowsWithMostRaters keeps the rows whose total is the largest found, since
// Fleiss' κ needs the same number of ratings on every item.
func rowsWithMostRaters(rows [][]int) ([][]int, int) {
	most := 0
	for _, r := range rows {
		most = max(most, sum(r))
	}
	var out [][]int
	for _, r := range rows {
		if sum(r) == most {
			out = append(out, r)
		}
	}
	return out, most
}

func sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

// FleissKappa computes Fleiss' κ from counts[i][j], the number of raters
// who put subject i in category j; every row must have the same total n ≥ 2.
// ok is false when κ is undefined: no subjects, unequal or too few raters,
// or every rating in a single category (chance agreement 1, κ = 0/0).
func FleissKappa(counts [][]int) (float64, bool) {
	if len(counts) == 0 {
		return math.NaN(), false
	}
	n := sum(counts[0])
	if n < 2 {
		return math.NaN(), false
	}
	k := len(counts[0])
	colTotals := make([]float64, k)
	var pBar float64
	for _, row := range counts {
		if len(row) != k || sum(row) != n {
			return math.NaN(), false
		}
		var agree float64
		for j, c := range row {
			colTotals[j] += float64(c)
			agree += float64(c * (c - 1))
		}
		pBar += agree / float64(n*(n-1))
	}
	N := float64(len(counts))
	pBar /= N
	var pe float64
	for _, t := range colTotals {
		p := t / (N * float64(n))
		pe += p * p
	}
	if pe >= 1 {
		return math.NaN(), false
	}
	return (pBar - pe) / (1 - pe), true
}

// confusionString renders a confusion matrix as
// docs/statistics.md#confusion-matrix writes it, e.g. [[43,4],[4,3]].
func confusionString(c [2][2]int) string {
	return fmt.Sprintf("[[%d,%d],[%d,%d]]", c[0][0], c[0][1], c[1][0], c[1][1])
}
