package studies

import (
	"context"
	"pragmalab/domain"
	"strconv"

	"pragmalab/analysis"
	"pragmalab/store"
)

// The analysis of a study reads its rows straight from the store — the same
// rows its export writes — so the Analysis pages and the model comparison
// show what `pragmalab analyze` prints for the exported file, without
// writing and re-reading CSV (docs/architecture.md#analysis).

// CrowdOptions returns the analysis options of a crowd study: its
// attention-check thresholds, the data-quality rules each participant meets
// (docs/studies.md#data-quality-flags) and the researcher's include and
// exclude decisions (docs/studies.md#exclusions), with the default
// bootstrap of the intervals.
func CrowdOptions(ctx context.Context, db *store.DB, studyID int64) (analysis.Options, error) {
	_, set, err := db.CrowdStudy(ctx, studyID)
	if err != nil {
		return analysis.Options{}, err
	}
	opt := analysis.Options{HighPass: set.CheckHighMin, LowPass: set.CheckLowMax, MaxFailed: set.MaxFailedChecks,
		Bootstrap: analysis.DefaultBootstrap()}
	parts, err := db.CrowdParticipants(ctx, studyID, set)
	if err != nil {
		return analysis.Options{}, err
	}
	for _, p := range parts {
		if p.LongestRun > 0 { // rated something: the data-quality rules apply
			if rs := set.QualityReasons(p.CrowdQuality); len(rs) > 0 {
				if opt.Flagged == nil {
					opt.Flagged = map[string][]string{}
				}
				opt.Flagged[p.PID] = rs
			}
		}
		switch p.Override {
		case domain.OverrideInclude:
			opt.Include = append(opt.Include, p.PID)
		case domain.OverrideExclude:
			opt.Exclude = append(opt.Exclude, p.PID)
		}
	}
	return opt, nil
}

// CrowdRatings returns the ratings of a crowd study's completed
// participants for the analysis, nil when they have rated no item.
func CrowdRatings(ctx context.Context, db *store.DB, studyID int64) (*analysis.Ratings, error) {
	rows, err := db.RatingRows(ctx, studyID, false)
	if err != nil {
		return nil, err
	}
	in := make([]analysis.RatingRow, 0, len(rows))
	items := 0
	for _, r := range rows {
		if r.Check == "" {
			items++
		}
		in = append(in, analysis.RatingRow{
			Participant: r.PID, Batch: strconv.Itoa(r.Batch), Item: r.Item, Type: r.Type,
			Condition: r.Condition, Rating: r.Rating, Check: r.Check,
		})
	}
	if items == 0 {
		return nil, nil
	}
	return analysis.NewRatings(in)
}

// HumanToplines computes the human toplines of a crowd study over the items
// keep accepts (all with nil), with the study's exclusion thresholds and
// the researcher's decisions. Each participant's ratings are z-scored over
// all of that participant's non-check ratings, exactly as the study's
// Analysis page does, and only then are the other items left out: an
// item's mean z is the one the Analysis page shows; z-scoring the kept
// items alone would move the means
// (docs/statistics.md#human-toplines-beside-model-results). It returns nil
// when nobody has rated such an item.
func HumanToplines(ctx context.Context, db *store.DB, crowdStudyID int64, keep func(itemKey string) bool) (*analysis.Toplines, error) {
	opt, err := CrowdOptions(ctx, db, crowdStudyID)
	if err != nil {
		return nil, err
	}
	rs, err := CrowdRatings(ctx, db, crowdStudyID)
	if err != nil || rs == nil {
		return nil, err
	}
	if keep != nil {
		// OverItems recomputes the shares over fewer items, and the
		// intervals of all items do not carry over: skip their bootstrap.
		opt.Bootstrap = analysis.Bootstrap{}
	}
	t := analysis.ComputeToplines(rs, opt)
	if keep == nil {
		return t, nil
	}
	return t.OverItems(keep), nil
}

// Judgements returns the experts' answers on a study's data items.
func Judgements(ctx context.Context, db *store.DB, studyID int64) ([]analysis.Judgement, error) {
	rows, err := db.JudgementRows(ctx, studyID)
	if err != nil {
		return nil, err
	}
	out := make([]analysis.Judgement, len(rows))
	for i, r := range rows {
		out[i] = analysis.Judgement{
			Annotator: r.Annotator, Item: r.Item, Type: r.Type,
			Plausible:       r.Plausible == domain.Yes,
			HasCancellation: r.CancellationCorrect != "", CancellationCorrect: r.CancellationCorrect == domain.Yes,
		}
	}
	return out, nil
}

// ContextAnswers returns the final answers of a study's context surveys.
func ContextAnswers(ctx context.Context, db *store.DB, studyID int64) ([]analysis.ContextAnswer, error) {
	rows, err := db.ContextAnswerRows(ctx, studyID)
	if err != nil {
		return nil, err
	}
	out := make([]analysis.ContextAnswer, len(rows))
	for i, r := range rows {
		out[i] = analysis.ContextAnswer{
			Annotator: r.Annotator, Survey: strconv.Itoa(r.Survey), Item: r.Item, Kind: r.Kind, Period: r.Period,
			Sentences: r.Sentences, Sufficient: r.Sufficient == domain.Yes,
		}
	}
	return out, nil
}

// ExplanationRatings returns the experts' judgments of a study's model
// outputs.
func ExplanationRatings(ctx context.Context, db *store.DB, studyID int64) ([]analysis.ExplanationRating, error) {
	rows, err := db.ExplanationRatingRows(ctx, studyID)
	if err != nil {
		return nil, err
	}
	out := make([]analysis.ExplanationRating, len(rows))
	for i, r := range rows {
		out[i] = analysis.ExplanationRating{
			Annotator: r.Annotator, Item: r.Item, Kind: r.Kind, Strategy: r.Strategy, Model: r.Model,
			Judgment: analysis.ParseJudgment(r.Judgment),
		}
	}
	return out, nil
}
