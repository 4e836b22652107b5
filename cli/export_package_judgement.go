package cli

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"pragmalab/analysis"
	"pragmalab/analysis/conditions"
	"pragmalab/analysis/report"
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

// judgementPackageAnalysis is the analysis by condition of the package's
// ratings (pseudonymised already): the study's exclusion rules — its
// check thresholds, the researcher's decisions and the data-quality
// rules — the methods text in the study's language (English where the
// analysis has none) and the R companion.
func judgementPackageAnalysis(rates []byte, set domain.CrowdSettings, scale int, topt toplines.Options, pseudo func(string) string, lang string) (pkgAnalysis, error) {
	checks, err := csvColumn(rates, "check")
	if err != nil {
		return pkgAnalysis{}, err
	}
	if !slices.Contains(checks, "") {
		return pkgAnalysis{none: "Nobody has completed a batch with a rated item yet, so there is no analysis: no methods text and no R companion."}, nil
	}
	opt := conditions.Options{HighPass: set.CheckHighMin, LowPass: set.CheckLowMax, MaxFailed: set.MaxFailedChecks}
	include := map[string]bool{}
	for _, id := range topt.Include {
		include[pseudo(id)] = true
		opt.Include = append(opt.Include, pseudo(id))
	}
	for _, id := range topt.Exclude {
		opt.Exclude = append(opt.Exclude, pseudo(id))
	}
	// A participant a data-quality rule flags is excluded unless the
	// researcher kept them, as on the Analysis page.
	for _, id := range slices.Sorted(maps.Keys(topt.Flagged)) {
		if p := pseudo(id); !include[p] && !slices.Contains(opt.Exclude, p) {
			opt.Exclude = append(opt.Exclude, p)
		}
	}
	rs, err := conditions.ReadRatings(bytes.NewReader(rates), conditions.ReadOptions{ScalePoints: scale, Conditions: set.Conditions})
	if err != nil {
		return pkgAnalysis{}, fmt.Errorf("package: the ratings by condition: %w", err)
	}
	res, err := conditions.Compute(rs, opt)
	if err != nil {
		return pkgAnalysis{}, fmt.Errorf("package: the analysis by condition: %w", err)
	}
	args := []string{"--conditions", strings.Join(set.Conditions, ","),
		"--high-pass", strconv.Itoa(opt.HighPass), "--low-pass", strconv.Itoa(opt.LowPass), "--max-failed", strconv.Itoa(opt.MaxFailed)}
	if len(opt.Exclude) > 0 {
		args = append(args, "--exclude", strings.Join(opt.Exclude, ","))
	}
	if len(opt.Include) > 0 {
		args = append(args, "--include", strings.Join(opt.Include, ","))
	}
	out := pkgAnalysis{command: "pragmalab analyze conditions --ratings ratings.csv " + strings.Join(args, " "), flagged: len(topt.Flagged)}
	p := res.Participants
	out.summary = append(out.summary, fmt.Sprintf("%d participants in the ratings, %d analysed, %d excluded.", p.Total, p.Analysed, len(p.Excluded)))
	for _, c := range res.Conditions {
		line := fmt.Sprintf("%s: %d ratings", c.Name, c.Ratings)
		if c.MeanRating != nil {
			line += fmt.Sprintf(", mean rating %s on the %d-point scale", analysis.Fixed(*c.MeanRating, 2), res.ScalePoints)
			if c.MeanRatingCI != nil {
				line += fmt.Sprintf(" (95%% interval %s to %s)", analysis.Fixed(c.MeanRatingCI[0], 2), analysis.Fixed(c.MeanRatingCI[1], 2))
			}
		}
		out.summary = append(out.summary, line+".")
	}
	for _, d := range p.Details {
		if d.Status == conditions.StatusExcluded {
			out.excluded = append(out.excluded, studies.Excluded{ID: d.ID, Reason: strings.Join(d.Reasons, "; ")})
		}
	}
	l := report.English
	for _, c := range report.ConditionsLangs {
		if string(c) == lang {
			l = c
		}
	}
	if m := report.ConditionsMethods(res, l); m != nil {
		out.methods = m.Markdown()
	}
	if out.r, err = conditionsCompanion(args, rs, res, opt, false).files("analysis.R", "R companion"); err != nil {
		return pkgAnalysis{}, err
	}
	return out, nil
}
