package studies

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"pragmalab/analysis/conditions"
	"pragmalab/analysis/modelhuman"
	"pragmalab/analysis/plan"
	"pragmalab/analysis/report"
	"pragmalab/analysis/toplines"
	"pragmalab/csvsafe"
	"pragmalab/domain"
)

// The Analysis page of a judgement study (docs/studies.md#judgement-analysis)
// is `pragmalab analyze conditions` on the study's ratings export, with
// the study's exclusion rules: per condition of the researcher's own
// naming the mean rating on the scale and the mean z with their two-way
// intervals, the distribution of the ratings and the differences between
// conditions; the crowd's reliability over the same participants; and the
// planner on the difference between the conditions. It speaks of no
// implicature.

// JudgementReliabilitySplits are the random half-splits of the page's
// split-half reliability (the default of `analyze reliability`).
const JudgementReliabilitySplits = 1000

// judgementPlanDraws are the studies the page's planner simulates per
// number of participants (the default of `analyze plan --by-condition`).
const judgementPlanDraws = 4

// ConditionsOptions are the exclusion rules of a judgement study as
// `analyze conditions` takes them: the attention-check thresholds, the
// researcher's include and exclude decisions, and the participants the
// study's data-quality rules exclude (docs/studies.md#data-quality-flags)
// among the excluded — the ratings export does not carry the session
// times those rules read, so the command names them.
func ConditionsOptions(opt toplines.Options) conditions.Options {
	return conditions.Options{HighPass: opt.HighPass, LowPass: opt.LowPass, MaxFailed: opt.MaxFailed,
		Exclude: PrintedExclude(opt), Include: slices.Clone(opt.Include)}
}

// PrintedExclude is every participant the analysis excludes whatever
// their checks: the researcher's exclusions, then those meeting a
// data-quality rule the researcher did not include, sorted — what the
// printed command's --exclude lists, so that it reproduces the page.
func PrintedExclude(opt toplines.Options) []string {
	out := slices.Clone(opt.Exclude)
	for _, id := range slices.Sorted(maps.Keys(opt.Flagged)) {
		if len(opt.Flagged[id]) > 0 && !slices.Contains(opt.Include, id) && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// ConditionsCommand is the CLI command giving the same analysis as a
// judgement study's page from its ratings export: the study's conditions
// in their declared order, its scale and its exclusion rules
// (docs/cli.md#analyze-conditions).
func ConditionsCommand(opt toplines.Options, points int, conds []string) string {
	return "pragmalab analyze conditions --ratings ratings.csv" + conditionsArgs(opt, points, conds)
}

// ConditionsPlanCommand plans the next judgement study from these ratings
// as a pilot, on the differences between its conditions, with the same
// scale and exclusion rules (docs/statistics.md#planning-a-judgement-study).
func ConditionsPlanCommand(opt toplines.Options, points int, conds []string) string {
	return "pragmalab analyze plan --by-condition --ratings ratings.csv --participants N" + conditionsArgs(opt, points, conds)
}

// ConditionsReliabilityCommand gives the page's α and split-half
// reliability.
func ConditionsReliabilityCommand(opt toplines.Options, points int, conds []string) string {
	return "pragmalab analyze reliability --by-condition --ratings ratings.csv" + conditionsArgs(opt, points, conds)
}

func conditionsArgs(opt toplines.Options, points int, conds []string) string {
	args := exclusionArgs(opt, points)
	if len(conds) > 0 {
		args += " --conditions " + strings.Join(conds, ",")
	}
	return args
}

// conditionsRatings reads rows as `analyze conditions` reads the export:
// the same reader, on the export's columns written as the export writes
// them (csvsafe), so that the page cannot read the study's ratings
// otherwise than the command does.
func conditionsRatings(rows []toplines.RatingRow, points int, conds []string) (*conditions.Ratings, error) {
	var buf bytes.Buffer
	w := csvsafe.NewWriter(&buf)
	w.Write(append(slices.Clone(conditions.Columns), conditions.ScalePointsColumn))
	sp := strconv.Itoa(points)
	for _, r := range rows {
		w.Write([]string{r.Participant, r.Item, r.Condition, strconv.Itoa(r.Rating), r.Check, sp})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return nil, err
	}
	return conditions.ReadRatings(&buf, conditions.ReadOptions{Conditions: conds})
}

// judgementAnalysis is analysis by condition of a judgement study's
// completed batches.
func (s *Service) judgementAnalysis(ctx context.Context, st *domain.Study) (*Analysis, error) {
	set, err := CrowdSettings(st)
	if err != nil {
		return nil, err
	}
	topt, err := crowdOptions(ctx, s.db, st.ID, set)
	if err != nil {
		return nil, err
	}
	points := ScalePoints(set)
	a := &Analysis{Command: ConditionsCommand(topt, points, set.Conditions), ExportFile: "ratings.csv"}
	rows, err := CrowdRatingRows(ctx, s.db, st.ID)
	if err != nil {
		a.Problem = err
		return a, nil
	}
	if rows == nil {
		a.Empty = "No participant has completed a batch yet."
		return a, nil
	}
	rs, err := conditionsRatings(rows, points, set.Conditions)
	if err != nil {
		a.Problem = err
		return a, nil
	}
	return ConditionsAnalysis(ctx, rs, topt, set.Conditions)
}

// ConditionsAnalysis analyses a judgement study's ratings rs by
// condition with the study's exclusion rules topt, declared conditions
// conds: the tables, methods (en, it, de) and figures of `analyze
// conditions`, the reliability of `analyze reliability --by-condition`
// and, with enough participants, the planner's widths of the differences.
func ConditionsAnalysis(ctx context.Context, rs *conditions.Ratings, topt toplines.Options, conds []string) (*Analysis, error) {
	opt := ConditionsOptions(topt)
	a := &Analysis{Command: ConditionsCommand(topt, rs.ScalePoints, conds), PlanCommand: ConditionsPlanCommand(topt, rs.ScalePoints, conds), ExportFile: "ratings.csv"}
	res, err := conditions.Compute(rs, opt)
	if err != nil {
		a.Problem = err
		return a, nil
	}
	a.Result = res
	ps := res.Participants
	a.Summary = []string{
		fmt.Sprintf("%d participants in the export, %d excluded, %d with attention checks only, %d analysed (%d gave every item the same rating); %d ratings on the %d-point scale.",
			ps.Total, len(ps.Excluded), len(ps.ChecksOnly), ps.Analysed, len(ps.ZeroVariance), res.Rows, res.ScalePoints),
		fmt.Sprintf("Attention checks: high passes at ≥ %d, low at ≤ %d; excluded at %d or more failed.", opt.HighPass, opt.LowPass, opt.MaxFailed),
	}
	forced := map[string]bool{}
	for _, id := range topt.Exclude {
		forced[id] = true
	}
	for _, p := range ps.Details {
		switch {
		case p.Status == conditions.StatusExcluded && forced[p.ID]:
			a.Excluded = append(a.Excluded, Excluded{ID: p.ID, Reason: fmt.Sprintf("excluded by the researcher (failed %d of %d checks)", p.FailedChecks, p.Checks)})
		case p.Status == conditions.StatusExcluded && len(topt.Flagged[p.ID]) > 0:
			a.Excluded = append(a.Excluded, Excluded{ID: p.ID, Reason: "the study's data-quality rules: " + strings.Join(topt.Flagged[p.ID], "; ")})
		case p.Status == conditions.StatusExcluded:
			a.Excluded = append(a.Excluded, Excluded{ID: p.ID, Reason: fmt.Sprintf("failed %d of %d attention checks", p.FailedChecks, p.Checks)})
		case p.Status == conditions.StatusZeroVariance:
			a.Excluded = append(a.Excluded, Excluded{ID: p.ID, Reason: fmt.Sprintf("all %d ratings equal: counted on the scale, no z-scores", p.Ratings)})
		case p.Status == conditions.StatusChecksOnly:
			a.Excluded = append(a.Excluded, Excluded{ID: p.ID, Reason: fmt.Sprintf("rated only the %d attention checks, no item", p.Checks)})
		}
	}
	a.Tables = report.ConditionsTables(res)
	a.Methods = report.ConditionsMethods(res, report.English)
	a.MethodsIn = map[report.Lang]*report.Methods{}
	for _, l := range report.ConditionsLangs {
		a.MethodsIn[l] = report.ConditionsMethods(res, l)
	}
	// The crowd's own reliability over the participants kept: α per
	// condition and pooled (units item × condition), and the split-half
	// reliability of the item means.
	if rows := ConditionsReliabilityRows(rs, res); len(rows) > 0 {
		ropt := modelhuman.DefaultReliabilityOptions()
		ropt.Points, ropt.Splits = rs.ScalePoints, JudgementReliabilitySplits
		if rel, err := modelhuman.ComputeCrowdReliability(rows, ropt); err == nil {
			a.Tables = append(a.Tables, report.CrowdReliabilityTables(rel)...)
			a.Methods.Paragraphs = append(a.Methods.Paragraphs, report.CrowdReliabilityMethods(rel, report.English))
			a.Notes = append(a.Notes, "Reliability as "+ConditionsReliabilityCommand(topt, rs.ScalePoints, conds)+" computes it.")
		}
	}
	// The planner on the differences between the conditions, from these
	// ratings as a pilot.
	if ps.Analysed-len(ps.ZeroVariance) >= plan.MinPlanParticipants && len(res.Differences) > 0 {
		n := ps.Analysed
		popt := plan.ConditionsPlanOptions{Options: opt, Participants: []int{n, 2 * n, 4 * n}, Draws: judgementPlanDraws, Seed: plan.DefaultConditionsSeed}
		if cp, err := plan.PlanConditions(ctx, rs, popt); err == nil {
			a.Tables = append(a.Tables, report.ConditionsPlanTable(cp))
		} else {
			a.Notes = append(a.Notes, "Planner: "+domain.ErrorMessage(err))
		}
	} else {
		a.Notes = append(a.Notes, fmt.Sprintf("The planner of the differences between conditions needs a pilot of %d analysed participants whose ratings vary, and two conditions.", plan.MinPlanParticipants))
	}
	a.figures = func() ([]report.Figure, error) { return report.ConditionsFigures(res) }
	return a, nil
}

// ConditionsReliabilityRows are the item ratings of the participants the
// analysis by condition keeps, for the crowd reliability, in the order of
// the conditions (declared, else first rated).
func ConditionsReliabilityRows(rs *conditions.Ratings, res *conditions.Result) []modelhuman.CrowdRating {
	kept := map[string]bool{}
	for _, p := range res.Participants.Details {
		kept[p.ID] = p.Status == conditions.StatusAnalysed || p.Status == conditions.StatusZeroVariance
	}
	var out []modelhuman.CrowdRating
	for _, r := range rs.Rows {
		if r.Check == "" && kept[r.Participant] {
			out = append(out, modelhuman.CrowdRating{Participant: r.Participant, Item: r.Item, Condition: r.Condition, Rating: r.Value})
		}
	}
	// The reliability reports the conditions in the order first named:
	// the study's declared order.
	slices.SortStableFunc(out, func(a, b modelhuman.CrowdRating) int {
		return slices.Index(rs.Conditions, a.Condition) - slices.Index(rs.Conditions, b.Condition)
	})
	return out
}
