package cli

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"pragmalab/analysis/conditions"
	"pragmalab/analysis/toplines"
	"pragmalab/domain"
	"pragmalab/studies"
)

// A judgement study's data package (docs/formats.md#data-package) is the
// crowd study's with what differs: the items in the judgement items
// file's columns, ratings in the study's own conditions, and the analysis
// by condition (docs/statistics.md#judgement-by-condition) for the
// methods text and the R companion.

// judgementItemFields describes the judgement items file's columns
// (docs/formats.md#judgement-items-csv).
func judgementItemFields(conds []string) []pkgField {
	return []pkgField{
		f("item", "string", "the item's id, shared by its rows: a minimal pair is one item in two conditions", "required", true),
		f("condition", "string", "the condition this row's text is rated in, one of the study's own", "required", true, "enum", conds),
		f("sentence", "string", "the sentence rated in this condition", "required", true),
		f("context", "string", "a text shown above the sentence in this condition"),
		f("check", "string", "empty: attention checks are left out of this file", "enum", []string{"high", "low"}),
		f("training", "string", "empty: practice items are not data"),
	}
}

// judgementRatingFields are the ratings export's fields as a judgement
// study's ratings fill them.
func judgementRatingFields(fields []pkgField) []pkgField {
	out := slices.Clone(fields)
	for i := range out {
		switch out[i].Name {
		case "item_type":
			out[i].Description = "judgement: every item of a judgement study"
		case "condition":
			out[i].Description = "the condition the item was shown in, one of the study's own; an attention check's is its one condition"
		case "item_id":
			out[i].Description = "the item's id, as in items.csv (attention checks are not in items.csv); a minimal pair's members share it"
		}
	}
	return out
}

// judgementPackageAnalysis is the Analysis page's analysis by condition
// (studies.ConditionsAnalysis) of the package's ratings, pseudonymised
// already, with the study's exclusion rules — its check thresholds, the
// researcher's decisions and the data-quality rules, the participants
// renamed by pseudo: the same command, exclusions and methods text (in
// the study's language where the analysis has it, else English) as the
// page's, and the R companion.
func judgementPackageAnalysis(ctx context.Context, rates []byte, set domain.CrowdSettings, scale int, topt toplines.Options, pseudo func(string) string, lang string) (pkgAnalysis, error) {
	checks, err := csvColumn(rates, "check")
	if err != nil {
		return pkgAnalysis{}, err
	}
	if !slices.Contains(checks, "") {
		return pkgAnalysis{none: "Nobody has completed a batch with a rated item yet, so there is no analysis: no methods text and no R companion."}, nil
	}
	opt := topt
	opt.Include, opt.Exclude = nil, nil
	for _, id := range topt.Include {
		opt.Include = append(opt.Include, pseudo(id))
	}
	for _, id := range topt.Exclude {
		opt.Exclude = append(opt.Exclude, pseudo(id))
	}
	if topt.Flagged != nil {
		opt.Flagged = make(map[string][]string, len(topt.Flagged))
		for id, why := range topt.Flagged {
			opt.Flagged[pseudo(id)] = why
		}
	}
	rs, err := conditions.ReadRatings(bytes.NewReader(rates), conditions.ReadOptions{ScalePoints: scale, Conditions: set.Conditions})
	if err != nil {
		return pkgAnalysis{}, fmt.Errorf("package: the ratings by condition: %w", err)
	}
	a, err := studies.ConditionsAnalysis(ctx, rs, opt, set.Conditions)
	if err != nil {
		return pkgAnalysis{}, err
	}
	if a.Problem != nil {
		return pkgAnalysis{none: "The ratings could not be analysed by condition (" + domain.ErrorMessage(a.Problem) + "), so there is no methods text and no R companion."}, nil
	}
	res, ok := a.Result.(*conditions.Result)
	if !ok {
		return pkgAnalysis{}, fmt.Errorf("package: the analysis by condition gave %T", a.Result)
	}
	out := pkgAnalysis{command: a.Command, summary: a.Summary, excluded: a.Excluded, flagged: len(opt.Flagged)}
	m := a.Methods
	for l, lm := range a.MethodsIn {
		if string(l) == lang {
			m = lm
		}
	}
	if m != nil {
		out.methods = m.Markdown()
	}
	args := strings.Fields(strings.TrimPrefix(a.Command, "pragmalab analyze conditions --ratings ratings.csv "))
	if out.r, err = conditionsCompanion(args, rs, res, studies.ConditionsOptions(opt), false).files("analysis.R", "R companion"); err != nil {
		return pkgAnalysis{}, err
	}
	return out, nil
}
