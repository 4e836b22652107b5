package contextsurvey

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// SurveyPassage is what the context-survey builder needs of a passage.
type SurveyPassage struct {
	Key    string // the passage's id
	Kind   string // e.g. "Impl" or "Ppp"
	Period string // e.g. "1946–1972"; "" when unknown
}

// ContextSurvey is one survey of the context-expansion study: passage keys
// in the order the experts see them.
type ContextSurvey struct {
	Number int // 1-based
	Keys   []string
}

// SurveyCell reports one kind × period cell of the design.
type SurveyCell struct {
	Kind, Period string
	Available    int   // passages of this cell in the data
	Wanted       int   // passages a perfectly balanced design would take
	Taken        int   // passages the surveys hold
	PerSurvey    []int // Taken, per survey
}

// SurveyPlan is the result of BuildContextSurveys.
type SurveyPlan struct {
	Surveys   []ContextSurvey
	Cells     []SurveyCell
	Unplaced  []string // keys left out because their kind or period is unknown
	Shortfall []string // what the data could not fill, in words; empty when balanced
}

// Balanced reports whether every cell got what a balanced design wants.
func (p SurveyPlan) Balanced() bool { return len(p.Shortfall) == 0 }

// BuildContextSurveys samples passages into nSurveys surveys of perSurvey
// passages each (default 3 × 42, docs/studies.md#survey-building), balanced
// by kind × period: every kind gets the same share, every period within a
// kind the same share, and every survey the same share of each cell. When a
// cell has too few passages, the surveys take all it has and make up the
// rest from the other periods of the same kind first (so the kind balance
// holds), then from the other kinds; the plan's Shortfall says so cell by
// cell. When the data holds fewer passages than the surveys need, the
// surveys are smaller (equal within one). The same passages and seed always
// give the same surveys.
func BuildContextSurveys(passages []SurveyPassage, nSurveys, perSurvey int, seed int64) (SurveyPlan, error) {
	if nSurveys < 1 || perSurvey < 1 {
		return SurveyPlan{}, fmt.Errorf("build context surveys: need at least one survey of at least one passage (got %d × %d)", nSurveys, perSurvey)
	}
	var plan SurveyPlan
	byCell, kinds, periods, err := surveyCells(passages, &plan)
	if err != nil {
		return SurveyPlan{}, err
	}
	if len(byCell) == 0 {
		return SurveyPlan{}, fmt.Errorf("build context surveys: no passage with a known kind and period")
	}
	slices.Sort(kinds)
	slices.Sort(periods)
	rng := rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))

	total := nSurveys * perSurvey
	avail := 0
	for _, keys := range byCell {
		avail += len(keys)
	}
	if avail < total {
		plan.Shortfall = append(plan.Shortfall, fmt.Sprintf(
			"only %d passages with a known kind and period for %d surveys × %d = %d; the surveys hold %d–%d passages each",
			avail, nSurveys, perSurvey, total, avail/nSurveys, (avail+nSurveys-1)/nSurveys))
		total = avail
	}

	plan.Surveys = make([]ContextSurvey, nSurveys)
	plan.allocate(byCell, kinds, periods, total, rng)
	for s := range plan.Surveys {
		plan.Surveys[s].Number = s + 1
		keys := plan.Surveys[s].Keys
		rng.Shuffle(len(keys), func(a, b int) { keys[a], keys[b] = keys[b], keys[a] })
	}
	plan.Shortfall = append(plan.Shortfall, cellShortfalls(plan.Cells)...)
	if len(plan.Unplaced) > 0 {
		plan.Shortfall = append(plan.Shortfall, fmt.Sprintf("%d passages left out: kind or period unknown (%s)",
			len(plan.Unplaced), clipList(plan.Unplaced, 5)))
	}
	return plan, nil
}

// surveyCells groups the passages' keys by kind × period, with the kinds
// and periods in order of first appearance; a passage without a kind or a
// period goes to plan.Unplaced. A key given twice is an error.
func surveyCells(passages []SurveyPassage, plan *SurveyPlan) (map[[2]string][]string, []string, []string, error) {
	byCell := map[[2]string][]string{}
	seen := map[string]bool{}
	var kinds, periods []string
	for _, p := range passages {
		if seen[p.Key] {
			return nil, nil, nil, fmt.Errorf("build context surveys: passage %q given twice", p.Key)
		}
		seen[p.Key] = true
		if p.Kind == "" || p.Period == "" {
			plan.Unplaced = append(plan.Unplaced, p.Key)
			continue
		}
		if !slices.Contains(kinds, p.Kind) {
			kinds = append(kinds, p.Kind)
		}
		if !slices.Contains(periods, p.Period) {
			periods = append(periods, p.Period)
		}
		c := [2]string{p.Kind, p.Period}
		byCell[c] = append(byCell[c], p.Key)
	}
	return byCell, kinds, periods, nil
}

// allocate shares total passages per kind, then per period within each
// kind, as evenly as the cells allow, and deals each cell's shuffled
// passages to the surveys, recording the cell.
func (plan *SurveyPlan) allocate(byCell map[[2]string][]string, kinds, periods []string, total int, rng *rand.Rand) {
	kindCaps := make([]int, len(kinds))
	for i, k := range kinds {
		for _, per := range periods {
			kindCaps[i] += len(byCell[[2]string{k, per}])
		}
	}
	kindTake := fill(kindCaps, total)
	kindIdeal := fill(unbounded(len(kinds)), total)
	sizes := make([]int, len(plan.Surveys))
	for i, k := range kinds {
		perCaps := make([]int, len(periods))
		for j, per := range periods {
			perCaps[j] = len(byCell[[2]string{k, per}])
		}
		take := fill(perCaps, kindTake[i])
		ideal := fill(unbounded(len(periods)), kindIdeal[i])
		for j, per := range periods {
			keys := slices.Clone(byCell[[2]string{k, per}])
			slices.Sort(keys)
			rng.Shuffle(len(keys), func(a, b int) { keys[a], keys[b] = keys[b], keys[a] })
			cell := SurveyCell{Kind: k, Period: per, Available: len(keys), Wanted: ideal[j], Taken: take[j]}
			cell.PerSurvey = deal(keys[:take[j]], plan.Surveys, sizes, rng)
			plan.Cells = append(plan.Cells, cell)
		}
	}
}

// deal hands a cell's passages to the surveys, each time to the survey
// holding the fewest passages so far (lowest number first on ties), which
// keeps both the cell and the survey sizes even. It returns the count given
// to each survey.
func deal(keys []string, surveys []ContextSurvey, sizes []int, rng *rand.Rand) []int {
	got := make([]int, len(surveys))
	order := make([]int, len(surveys))
	for len(keys) > 0 {
		for i := range order {
			order[i] = i
		}
		// Whole rounds go to every survey alike; the rest to the smallest,
		// a random one among equals so no survey is always first.
		rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(sizes[a], sizes[b]) })
		for _, s := range order {
			if len(keys) == 0 {
				break
			}
			surveys[s].Keys = append(surveys[s].Keys, keys[0])
			keys = keys[1:]
			sizes[s]++
			got[s]++
		}
	}
	return got
}

// fill shares total among slots with the given capacities as evenly as
// possible (max-min fair): no slot gets more than its capacity, and a slot
// gets less than another only when it is full. Ties for the last units go
// to the earlier slots.
func fill(caps []int, total int) []int {
	take := make([]int, len(caps))
	for total > 0 {
		open := 0
		for i := range caps {
			if take[i] < caps[i] {
				open++
			}
		}
		if open == 0 {
			break
		}
		share := max(total/open, 1)
		for i := range caps {
			if total == 0 {
				break
			}
			if take[i] < caps[i] {
				n := min(share, caps[i]-take[i], total)
				take[i] += n
				total -= n
			}
		}
	}
	return take
}

func unbounded(n int) []int {
	caps := make([]int, n)
	for i := range caps {
		caps[i] = int(^uint(0) >> 1)
	}
	return caps
}

func cellShortfalls(cells []SurveyCell) []string {
	var out []string
	for _, c := range cells {
		if c.Taken < c.Wanted {
			out = append(out, fmt.Sprintf("%s %s: a balanced design wants %d, the data has %d; the surveys take %d",
				c.Kind, c.Period, c.Wanted, c.Available, c.Taken))
		}
	}
	for _, c := range cells {
		if c.Taken > c.Wanted {
			out = append(out, fmt.Sprintf("%s %s: %d more than balanced (%d instead of %d) to make up for the cells above",
				c.Kind, c.Period, c.Taken-c.Wanted, c.Taken, c.Wanted))
		}
	}
	return out
}

func clipList(keys []string, n int) string {
	if len(keys) <= n {
		return strings.Join(keys, ", ")
	}
	return strings.Join(keys[:n], ", ") + fmt.Sprintf(", … %d more", len(keys)-n)
}
