package recruit

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"pragmalab/domain"
	"pragmalab/prolific"
)

// A crowd study's screening on Prolific (docs/prolific.md#screening): who
// may take part, as Prolific's filters, saved here, sent by Create draft
// and counted by Prolific's eligibility count.

// ScreeningChange is a change to the screening as the researcher names it:
// Add "FILTER=VALUE[,VALUE…]" (values added to the filter's), Range
// "FILTER=LO:HI", Remove "FILTER".
type ScreeningChange struct {
	Add, Range, Remove []string
}

// ScreeningPlan is the screening before and after a change.
type ScreeningPlan struct {
	Before, After []domain.ScreeningFilter
}

// Screening is what the Prolific page shows of the screening.
type Screening struct {
	Filters []domain.ScreeningFilter
	// Proposed is a filter the study's language suggests
	// ("first-language=Italian" for a study in Italian) while the
	// screening has no first-language filter: the researcher confirms it.
	Proposed string
	// Last is the last eligible count of this screening (nil: never
	// counted, or the screening changed since), made at CountedAt.
	Last      *Eligible
	CountedAt time.Time
}

// firstLanguage is Prolific's first-language filter.
const firstLanguage = "first-language"

// languageNames names the study languages as Prolific's first-language
// choices spell them.
var languageNames = map[string]string{"it": "Italian", "en": "English", "de": "German", "fr": "French", "es": "Spanish"}

// Screening returns the study's screening and what its language proposes.
func (p *Service) Screening(ctx context.Context, studyID int64) (*Screening, error) {
	st, err := p.db.Study(ctx, studyID)
	if err != nil {
		return nil, err
	}
	fs, err := p.db.ProlificScreening(ctx, studyID)
	if err != nil {
		return nil, err
	}
	sc := &Screening{Filters: fs}
	if n, at, ok, err := p.db.ProlificEligible(ctx, studyID); err != nil {
		return nil, err
	} else if ok {
		cp, err := p.crowdPlaces(ctx, studyID)
		if err != nil {
			return nil, err
		}
		sc.Last, sc.CountedAt = &Eligible{Count: n, Places: cp.places()}, at
	}
	if name := languageNames[st.Lang]; name != "" && !hasFilter(fs, firstLanguage) {
		sc.Proposed = firstLanguage + "=" + name
	}
	return sc, nil
}

func hasFilter(fs []domain.ScreeningFilter, id string) bool {
	for _, f := range fs {
		if f.FilterID == id {
			return true
		}
	}
	return false
}

// rangeAsk is one parsed --range.
type rangeAsk struct {
	name   string
	lo, hi float64
}

// parse checks the change's syntax before anything is asked of Prolific.
func (ch ScreeningChange) parse() (adds map[string][]string, addOrder []string, ranges []rangeAsk, err error) {
	adds = map[string][]string{}
	for _, a := range ch.Add {
		name, vals, ok := strings.Cut(a, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.TrimSpace(vals) == "" {
			return nil, nil, nil, domain.Errorf(domain.EINVALID, "%q: write FILTER=VALUE[,VALUE…], e.g. first-language=Italian", a)
		}
		if _, seen := adds[name]; !seen {
			addOrder = append(addOrder, name)
		}
		for _, v := range strings.Split(vals, ",") {
			if v = strings.TrimSpace(v); v != "" {
				adds[name] = append(adds[name], v)
			}
		}
	}
	for _, r := range ch.Range {
		name, bounds, ok := strings.Cut(r, "=")
		lo, hi, ok2 := strings.Cut(bounds, ":")
		l, err1 := strconv.ParseFloat(strings.TrimSpace(lo), 64)
		h, err2 := strconv.ParseFloat(strings.TrimSpace(hi), 64)
		if !ok || !ok2 || strings.TrimSpace(name) == "" || err1 != nil || err2 != nil {
			return nil, nil, nil, domain.Errorf(domain.EINVALID, "%q: write FILTER=LO:HI, e.g. age=18:40", r)
		}
		if l > h {
			return nil, nil, nil, domain.Errorf(domain.EINVALID, "%q: the lower bound %s is above the upper bound %s", r, lo, hi)
		}
		ranges = append(ranges, rangeAsk{name: strings.TrimSpace(name), lo: l, hi: h})
	}
	return adds, addOrder, ranges, nil
}

// PlanScreening maps a change's names onto Prolific's filters and choice
// ids (GET /api/v1/filters/) and returns the screening it would save.
// Nothing is saved; an unknown filter or value is refused with the close
// matches.
func (p *Service) PlanScreening(ctx context.Context, studyID int64, ch ScreeningChange) (*ScreeningPlan, error) {
	adds, addOrder, ranges, err := ch.parse()
	if err != nil {
		return nil, err
	}
	api, err := p.api()
	if err != nil {
		return nil, err
	}
	before, err := p.db.ProlificScreening(ctx, studyID)
	if err != nil {
		return nil, err
	}
	defs, err := api.Filters(ctx)
	if err != nil {
		return nil, apiErr(err)
	}
	after := append([]domain.ScreeningFilter(nil), before...)
	for _, r := range ch.Remove {
		def, err := findFilter(defs, r)
		if err != nil {
			return nil, err
		}
		if !hasFilter(after, def.FilterID) {
			return nil, domain.Errorf(domain.EINVALID, "the screening has no filter %s to remove", def.FilterID)
		}
		after = withoutFilter(after, def.FilterID)
	}
	for _, name := range addOrder {
		def, err := findFilter(defs, name)
		if err != nil {
			return nil, err
		}
		if def.Type != prolific.FilterSelect {
			return nil, domain.Errorf(domain.EINVALID, "%s is a range filter: use --range %s=LO:HI", def.FilterID, def.FilterID)
		}
		f := domain.ScreeningFilter{FilterID: def.FilterID, Title: def.Title}
		for _, old := range after {
			if old.FilterID == def.FilterID {
				f.Values, f.Labels = append(f.Values, old.Values...), append(f.Labels, old.Labels...)
			}
		}
		for _, v := range adds[name] {
			id, err := findChoice(def, v)
			if err != nil {
				return nil, err
			}
			if !contains(f.Values, id) {
				f.Values, f.Labels = append(f.Values, id), append(f.Labels, def.ChoiceText(id))
			}
		}
		after = putFilter(after, f)
	}
	for _, r := range ranges {
		def, err := findFilter(defs, r.name)
		if err != nil {
			return nil, err
		}
		if def.Type != prolific.FilterRange {
			return nil, domain.Errorf(domain.EINVALID, "%s is a select filter: use --add %s=VALUE", def.FilterID, def.FilterID)
		}
		if lo, ok := number(def.Min); ok && r.lo < lo {
			return nil, domain.Errorf(domain.EINVALID, "%s: Prolific's lowest value is %g", def.FilterID, lo)
		}
		if hi, ok := number(def.Max); ok && r.hi > hi {
			return nil, domain.Errorf(domain.EINVALID, "%s: Prolific's highest value is %g", def.FilterID, hi)
		}
		after = putFilter(after, domain.ScreeningFilter{FilterID: def.FilterID, Title: def.Title, Range: true, Lower: r.lo, Upper: r.hi})
	}
	return &ScreeningPlan{Before: before, After: after}, nil
}

// SaveScreening plans a change and saves the screening it leads to, whole:
// if Prolific cannot be read or a name is unknown, nothing is saved.
func (p *Service) SaveScreening(ctx context.Context, studyID int64, ch ScreeningChange) (*ScreeningPlan, error) {
	plan, err := p.PlanScreening(ctx, studyID, ch)
	if err != nil {
		return nil, err
	}
	return plan, p.db.SaveProlificScreening(ctx, studyID, plan.After)
}

// Eligible is Prolific's eligible count for the study's screening beside
// the places the study pays for.
type Eligible struct {
	Count  int // 0: fewer than 25 (Prolific shows no lower number)
	Places int
}

// Text is the count as the researcher reads it.
func (e Eligible) Text() string {
	if e.Count == 0 {
		return "fewer than 25"
	}
	return strconv.Itoa(e.Count)
}

// Warning says when the pool is thin: fewer eligible participants than
// three times the places, which makes a study slow to fill. "" otherwise.
func (e Eligible) Warning() string {
	if e.Places == 0 || e.Count >= 3*e.Places {
		return ""
	}
	return fmt.Sprintf("only %s eligible participants for %d places (fewer than three per place): the study may fill slowly; widen the screening or add fewer places", e.Text(), e.Places)
}

// EligibleCount asks Prolific how many participants the study's screening
// admits (POST /api/v1/eligibility-count/; read only).
func (p *Service) EligibleCount(ctx context.Context, studyID int64) (*Eligible, error) {
	api, err := p.api()
	if err != nil {
		return nil, err
	}
	cp, err := p.crowdPlaces(ctx, studyID)
	if err != nil {
		return nil, err
	}
	fs, err := p.db.ProlificScreening(ctx, studyID)
	if err != nil {
		return nil, err
	}
	n, err := api.EligibleCount(ctx, prolificFilters(fs))
	if err != nil {
		return nil, apiErr(err)
	}
	return &Eligible{Count: n, Places: cp.places()}, p.db.SaveProlificEligible(ctx, studyID, n)
}

// withScreening puts the study's screening in a draft's filters.
func (p *Service) withScreening(ctx context.Context, studyID int64, d *prolific.DraftStudy) error {
	fs, err := p.db.ProlificScreening(ctx, studyID)
	d.Filters = prolificFilters(fs)
	return err
}

// prolificFilters is a screening as Prolific's API takes it.
func prolificFilters(fs []domain.ScreeningFilter) []prolific.Filter {
	out := make([]prolific.Filter, 0, len(fs))
	for _, f := range fs {
		if f.Range {
			out = append(out, prolific.Filter{FilterID: f.FilterID, SelectedRange: &prolific.Range{Lower: f.Lower, Upper: f.Upper}})
		} else {
			out = append(out, prolific.Filter{FilterID: f.FilterID, SelectedValues: f.Values})
		}
	}
	return out
}

// FormatFilter writes a filter as the command line takes it:
// first-language=Italian, age=18:40.
func FormatFilter(f domain.ScreeningFilter) string {
	if f.Range {
		return fmt.Sprintf("%s=%g:%g", f.FilterID, f.Lower, f.Upper)
	}
	return f.FilterID + "=" + strings.Join(f.Labels, ",")
}

func findFilter(defs []prolific.FilterDef, name string) (prolific.FilterDef, error) {
	key := slug(name)
	for _, d := range defs {
		if slug(d.FilterID) == key || slug(d.Title) == key {
			return d, nil
		}
	}
	var names []string
	for _, d := range defs {
		names = append(names, d.FilterID)
	}
	return prolific.FilterDef{}, domain.Errorf(domain.EINVALID, "Prolific has no filter %q%s", name, closeMatches(name, names))
}

func findChoice(def prolific.FilterDef, v string) (string, error) {
	if _, ok := def.Choices[v]; ok {
		return v, nil
	}
	var texts []string
	for id := range def.Choices {
		t := def.ChoiceText(id)
		if strings.EqualFold(strings.TrimSpace(t), v) {
			return id, nil
		}
		texts = append(texts, t)
	}
	return "", domain.Errorf(domain.EINVALID, "%s has no value %q%s", def.FilterID, v, closeMatches(v, texts))
}

// closeMatches lists the names closest to what was typed (at most 5), as
// the end of an error message.
func closeMatches(typed string, names []string) string {
	t := slug(typed)
	type scored struct {
		name string
		d    int
	}
	var near []scored
	for _, n := range names {
		s := slug(n)
		d := editDistance(t, s)
		if d <= max(2, len(t)/3) || (len(t) >= 3 && (strings.Contains(s, t) || strings.Contains(t, s))) {
			near = append(near, scored{n, d})
		}
	}
	if len(near) == 0 {
		return ""
	}
	sort.SliceStable(near, func(i, k int) bool {
		return near[i].d < near[k].d || near[i].d == near[k].d && near[i].name < near[k].name
	})
	var out []string
	for i := 0; i < len(near) && i < 5; i++ {
		out = append(out, near[i].name)
	}
	return "; did you mean " + strings.Join(out, ", ") + "?"
}

// slug is a name compared loosely: lower case, spaces and underscores as
// hyphens.
func slug(s string) string {
	return strings.NewReplacer(" ", "-", "_", "-").Replace(strings.ToLower(strings.TrimSpace(s)))
}

func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur := make([]int, len(rb)+1)
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(rb)]
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	}
	return 0, false
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func withoutFilter(fs []domain.ScreeningFilter, id string) []domain.ScreeningFilter {
	var out []domain.ScreeningFilter
	for _, f := range fs {
		if f.FilterID != id {
			out = append(out, f)
		}
	}
	return out
}

// putFilter replaces the filter of the same id, or appends it.
func putFilter(fs []domain.ScreeningFilter, f domain.ScreeningFilter) []domain.ScreeningFilter {
	for i := range fs {
		if fs[i].FilterID == f.FilterID {
			fs[i] = f
			return fs
		}
	}
	return append(fs, f)
}
