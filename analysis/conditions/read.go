// Package conditions is judgement by condition: the generic analysis of
// any rating or acceptability study by the researcher's own conditions
// (docs/statistics.md#judgement-by-condition). Per condition it gives the
// mean rating on the scale and the mean z-score with their two-way
// cluster-robust 95 % intervals (participants and items crossed), the
// distribution of the ratings, and the differences between conditions. It
// knows no condition by name: the conditions are whatever the file holds.
package conditions

import (
	"fmt"
	"io"
	"pragmalab/analysis"
	"pragmalab/domain"
	"slices"
	"strconv"
	"strings"
)

// Columns are the required columns of a ratings file read by condition
// (docs/formats.md#ratings-file): the crowd ratings export has them all.
var Columns = []string{"participant_id", "item_id", "condition", "rating", "check"}

// ScalePointsColumn is the optional column giving the points of the scale
// each rating was given on (docs/formats.md#ratings-export).
const ScalePointsColumn = "scale_points"

// DefaultScalePoints is the scale of a file without the scale_points
// column when no --scale-points is given.
const DefaultScalePoints = 7

const (
	colParticipant = iota
	colItem
	colCondition
	colRating
	colCheck
)

// The optional columns, after the required ones: those the export has
// and this analysis does not use, then the ones it checks.
var (
	ignoredColumns = []string{"batch_id", "item_type", "design_version"}
	optionalTail   = analysis.ExportTail
)

// Rating is one row of the file: Check is "", "high" or "low".
type Rating struct {
	Line                         int
	Participant, Item, Condition string
	Value                        int
	Check                        string
}

// Ratings is a ratings file read by condition.
type Ratings struct {
	Rows []Rating
	// ScalePoints is the scale of every rating; ScaleFrom says where it
	// came from: "file" (the scale_points column), "flag" or "default".
	ScalePoints int
	ScaleFrom   string
	// Conditions are the conditions rated, in first-seen order, or in the
	// order of ReadOptions.Conditions when given.
	Conditions []string
}

// ReadOptions set how a file is read.
type ReadOptions struct {
	// ScalePoints is the scale of a file without the scale_points column
	// (0: DefaultScalePoints). A file with the column must agree with it
	// when it is not 0.
	ScalePoints int
	// WithinParticipant allows a participant to rate one item in several
	// conditions; by default it is an input error, as in the toplines.
	WithinParticipant bool
	// Conditions, when not empty, are the study's declared conditions in
	// the order to report them: a rating in another condition is an input
	// error.
	Conditions []string
}

// ReadRatings reads a ratings file (docs/formats.md#ratings-file) by
// condition. Every bad row fails the whole file with an
// *analysis.InputError naming line and column: a rating outside 1 to the
// scale's points, a scale_points that is not 2–11 or differs between
// rows, an empty participant, item or (on an item row) condition, a check
// that is not empty, high or low, a participant rating an item twice.
func ReadRatings(r io.Reader, opt ReadOptions) (*Ratings, error) {
	optional := append(append(slices.Clone(ignoredColumns), ScalePointsColumn), optionalTail...)
	t, err := analysis.NewInput(r, Columns, optional...)
	if err != nil {
		return nil, err
	}
	scaleAt := len(Columns) + len(ignoredColumns)
	tail := scaleAt + 1
	rs := &Ratings{ScalePoints: opt.ScalePoints, ScaleFrom: "flag"}
	if rs.ScalePoints == 0 {
		rs.ScalePoints, rs.ScaleFrom = DefaultScalePoints, "default"
	}
	if rs.ScalePoints < domain.MinScalePoints || rs.ScalePoints > domain.MaxScalePoints {
		return nil, fmt.Errorf("the scale must have %d to %d points, not %d", domain.MinScalePoints, domain.MaxScalePoints, rs.ScalePoints)
	}
	scaleLine := 0 // the first line giving scale_points
	declared := len(opt.Conditions) > 0
	rs.Conditions = slices.Clone(opt.Conditions)
	err = t.Each(func(row []string) error {
		if err := t.CheckItemVersion(tail); err != nil {
			return err
		}
		if err := t.CheckTraces(tail + 1); err != nil {
			return err
		}
		if err := t.CheckMachine(tail + analysis.MachineInTail); err != nil {
			return err
		}
		if s := row[scaleAt]; s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < domain.MinScalePoints || n > domain.MaxScalePoints {
				return t.Errf(scaleAt, "scale_points %q is not a whole number from %d to %d", s, domain.MinScalePoints, domain.MaxScalePoints)
			}
			switch {
			case scaleLine != 0 && n != rs.ScalePoints:
				return t.Errf(scaleAt, "scale_points %d here but %d on line %d: ratings on different scales cannot be averaged together (analyse each scale's rows apart)", n, rs.ScalePoints, scaleLine)
			case scaleLine == 0 && opt.ScalePoints != 0 && n != opt.ScalePoints:
				return t.Errf(scaleAt, "scale_points %d in the file but --scale-points %d: the file's own scale is the one its ratings were given on (leave --scale-points out)", n, opt.ScalePoints)
			}
			if scaleLine == 0 {
				scaleLine, rs.ScalePoints, rs.ScaleFrom = t.Line, n, "file"
				// Rows read before any scale_points was given must fit it too.
				for _, rt := range rs.Rows {
					if rt.Value > n {
						return &analysis.InputError{Line: rt.Line, Column: Columns[colRating], Msg: fmt.Sprintf("rating %d is outside the scale 1–%d (scale_points %d on line %d)", rt.Value, n, n, t.Line)}
					}
				}
			}
		}
		rt, err := parseRow(t, row, rs.ScalePoints, rs.ScaleFrom)
		if err != nil {
			return err
		}
		if rt.Check == "" && !slices.Contains(rs.Conditions, rt.Condition) {
			if declared {
				return t.Errf(colCondition, "condition %q is not among the declared conditions (%s)", rt.Condition, strings.Join(opt.Conditions, ", "))
			}
			rs.Conditions = append(rs.Conditions, rt.Condition)
		}
		rs.Rows = append(rs.Rows, rt)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(rs.Rows) == 0 {
		return nil, analysis.NoRows("ratings")
	}
	if err := checkDuplicates(rs.Rows, opt.WithinParticipant); err != nil {
		return nil, err
	}
	return rs, nil
}

// parseRow checks one row against the scale.
func parseRow(t *analysis.Input, row []string, points int, from string) (Rating, error) {
	rt := Rating{Line: t.Line, Participant: strings.Clone(row[colParticipant]), Item: strings.Clone(row[colItem]), Condition: strings.Clone(row[colCondition])}
	if err := t.NonEmpty("participant id", "item id"); err != nil {
		return rt, err
	}
	switch strings.ToLower(row[colCheck]) {
	case "":
	case "high":
		rt.Check = "high"
	case "low":
		rt.Check = "low"
	default:
		return rt, t.Errf(colCheck, "check %q is not empty, high or low", row[colCheck])
	}
	v, err := strconv.Atoi(row[colRating])
	if err != nil || strings.HasPrefix(row[colRating], "0") || strings.HasPrefix(row[colRating], "+") {
		return rt, t.Errf(colRating, "rating %q is not a whole number from 1 to %d", row[colRating], points)
	}
	if v < 1 || v > points {
		where := map[string]string{"file": "the file's scale_points", "flag": "--scale-points", "default": "the default; a file without the scale_points column is read as 7 points unless --scale-points says otherwise"}[from]
		return rt, t.Errf(colRating, "rating %d is outside the scale 1–%d (%s)", v, points, where)
	}
	rt.Value = v
	if rt.Check == "" {
		if rt.Condition == "" {
			return rt, t.Errf(colCondition, "empty condition on an item row (only attention checks may have none)")
		}
		if err := t.NotPooled(colCondition, "condition"); err != nil {
			return rt, err
		}
	}
	return rt, nil
}

// checkDuplicates fails on the first line repeating a participant's
// rating of an item (in the same condition, or with within false in any),
// naming the line it repeats. Checks are told apart from items.
func checkDuplicates(rows []Rating, within bool) error {
	type key struct {
		p, item, cond string
		check         bool
	}
	seen := map[key]int{}
	for _, rt := range rows {
		k := key{rt.Participant, rt.Item, rt.Condition, rt.Check != ""}
		if rt.Check != "" || !within {
			k.cond = ""
		}
		if first, ok := seen[k]; ok {
			msg := fmt.Sprintf("participant %q already rated item %q on line %d", rt.Participant, rt.Item, first)
			if rt.Check == "" && !within {
				msg += " (each participant rates an item in one condition; --within-participant allows more)"
			}
			return &analysis.InputError{Line: rt.Line, Column: Columns[colItem], Msg: msg}
		}
		seen[k] = rt.Line
	}
	return nil
}
