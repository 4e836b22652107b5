package cli

import (
	"archive/zip"
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"pragmalab/analysis"
	"pragmalab/analysis/agreement"
	"pragmalab/analysis/conditions"
	"pragmalab/analysis/contextsurvey"
	"pragmalab/analysis/toplines"
	"pragmalab/domain"
	"pragmalab/studies"
)

// RCompanionZip writes a study's R companion — the data files and
// analysis.R that `analyze toplines|conditions|agreement|context --r DIR` writes for
// the study's export — as one zip, for the Analysis page's download beside
// the LaTeX (docs/statistics.md#reproducing-in-r). A study
// with nothing to analyse yet, or of a kind without a companion, is
// EINVALID saying so.
func RCompanionZip(svc *studies.Service) func(ctx context.Context, s *domain.Study, w io.Writer) error {
	return func(ctx context.Context, s *domain.Study, w io.Writer) error {
		c, err := studyCompanion(ctx, svc, s)
		if err != nil {
			return err
		}
		files, err := c.files("analysis.R", "R companion")
		if err != nil {
			return err
		}
		zw := zip.NewWriter(w)
		for _, name := range slices.Sorted(maps.Keys(files)) {
			f, err := zw.Create(fmt.Sprintf("study-%d-r/%s", s.ID, name))
			if err != nil {
				return err
			}
			if _, err := f.Write(files[name]); err != nil {
				return err
			}
		}
		return zw.Close()
	}
}

// studyCompanion builds the companion of the study's analysis from the
// same data the Analysis page reads.
func studyCompanion(ctx context.Context, svc *studies.Service, s *domain.Study) (*rCompanion, error) {
	none := domain.Errorf(domain.EINVALID, "study %d has nothing to analyse yet, so no R companion", s.ID)
	in, err := svc.AnalysisInputs(ctx, s)
	if err != nil {
		return nil, err
	}
	switch s.Kind {
	case domain.KindCrowd:
		if in.Ratings == nil {
			return nil, none
		}
		opt := in.Options
		opt.Bootstrap = analysis.Bootstrap{} // the companion recomputes the point estimates
		t := toplines.ComputeToplines(in.Ratings, opt)
		args := strings.Fields(strings.TrimPrefix(studies.ToplinesCommand(opt, in.Ratings.ScalePoints), "pragmalab analyze toplines "))
		return toplinesCompanion(args, in.Ratings, t, opt, false), nil
	case domain.KindJudgement:
		if in.Conditions == nil {
			return nil, none
		}
		opt := studies.ConditionsOptions(in.Options)
		res, err := conditions.Compute(in.Conditions, opt)
		if err != nil {
			return nil, err
		}
		args := strings.Fields(strings.TrimPrefix(studies.ConditionsCommand(in.Options, in.Conditions.ScalePoints, in.Declared), "pragmalab analyze conditions "))
		return conditionsCompanion(args, in.Conditions, res, opt, false), nil
	case domain.KindExpert:
		if len(in.Judgements) == 0 {
			return nil, none
		}
		return agreementCompanion([]string{"--judgements", "judgements.csv"}, in.Judgements, agreement.ComputeAgreement(in.Judgements)), nil
	case domain.KindContext:
		if len(in.Context) == 0 {
			return nil, none
		}
		return contextCompanion([]string{"--answers", "answers.csv"}, in.Context, contextsurvey.ComputeContext(in.Context)), nil
	}
	return nil, domain.Errorf(domain.EINVALID, "a %s study has no R companion (docs/statistics.md#reproducing-in-r)", s.Kind)
}
