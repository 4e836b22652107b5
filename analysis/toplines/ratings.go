package toplines

import (
	"errors"
	"fmt"
	"io"
	"pragmalab/analysis"
	"pragmalab/domain"
	"slices"
	"strconv"
	"strings"
)

// Condition is one of the rating conditions of docs/items.md#conditions.
type Condition uint8

// The conditions of the ratings file, in the order of docs/items.md#conditions.
const (
	Trigger Condition = iota
	Cancel
	Negation
	Strengthen
	Neutral
	NumConditions
)

// ConditionNames maps a Condition to its name in the ratings file.
var ConditionNames = [NumConditions]string{domain.ConditionTrigger, domain.ConditionCancel, domain.ConditionNegation, domain.ConditionStrengthen, domain.ConditionNeutral}

func (c Condition) String() string { return ConditionNames[c] }

// RatingsColumns is the header of a ratings file (docs/formats.md#ratings-file),
// in export order.
var RatingsColumns = []string{"participant_id", "batch_id", "item_id", "item_type", "condition", "rating", "check"}

const (
	ColParticipant = iota
	colBatch
	ColItem
	colType
	ColCondition
	ColRating
	ColCheck
)

// Attention-check kinds stored per row.
const (
	CheckNone uint8 = iota
	CheckHigh
	CheckLow
)

// Rating is one row of a ratings file, packed: a million of them fit in
// 16 MB, which is what keeps the toplines benchmark under its memory target.
type Rating struct {
	Participant int32
	Item        int32 // index into Ratings.items, or into checkItems for checks
	Line        int32
	Cond        Condition
	Value       uint8
	Check       uint8
}

// Ratings is a parsed ratings file: interned ids and packed rows.
type Ratings struct {
	Participants []string
	Items        []string
	ItemType     []int8 // index into Types
	CheckItems   []string
	// ScalePoints is the scale the ratings were given on
	// (docs/formats.md#ratings-file): the file's scale_points column, else
	// ReadOptions.ScalePoints, else 7. Every rating lies on it. 0 for
	// ratings built in memory by NewRatings, whose scale the caller knows.
	ScalePoints int
	// rows are kept in chunks of chunkRows: appending never copies what
	// was read beyond the first chunk, which on a million rows saved more
	// time than the CSV parsing.
	rows [][]Rating
	n    int
}

// chunkRows is the number of rows per chunk (1 MiB of packed rows).
const chunkRows = 1 << 16

// firstChunkRows is the first chunk's starting capacity: a small file
// (a pilot, a fuzzed input) does not clear a whole chunk's MiB; the first
// chunk grows by append up to chunkRows, the later ones are made whole.
const firstChunkRows = 256

func (rs *Ratings) Add(rt Rating) {
	switch {
	case len(rs.rows) == 0:
		rs.rows = append(rs.rows, make([]Rating, 0, firstChunkRows))
	case len(rs.rows[len(rs.rows)-1]) == chunkRows:
		rs.rows = append(rs.rows, make([]Rating, 0, chunkRows))
	}
	last := &rs.rows[len(rs.rows)-1]
	*last = append(*last, rt)
	rs.n++
}

// Each calls f on every row in file order.
func (rs *Ratings) Each(f func(rt *Rating)) {
	for _, chunk := range rs.rows {
		for i := range chunk {
			f(&chunk[i])
		}
	}
}

// NumRows returns the number of rating rows read.
func (rs *Ratings) NumRows() int { return rs.n }

// ReadOptions relax ReadRatings.
type ReadOptions struct {
	// WithinParticipant allows a participant to rate the same item in
	// several conditions (a within-participant design). The crowd design
	// shows each participant an item in one condition only, so by default
	// a second condition is an input error: it usually means two exports
	// were concatenated or a batch was served twice.
	WithinParticipant bool
	// ScalePoints is the scale of a file without the scale_points column
	// (0: the default 7 points, domain.RatingMax). A file with the column
	// is read on its own scale; a different ScalePoints is then refused.
	ScalePoints int
}

// ScalePointsColumn is the optional column of a ratings file that names
// the scale every rating was given on (docs/formats.md#ratings-file).
const ScalePointsColumn = "scale_points"

// ReadRatings reads a ratings file (docs/formats.md#ratings-file). Any bad row (unknown or missing
// column, rating outside the file's scale — its scale_points column, else
// 7 points —, unknown condition or type, an id that is not
// UTF-8, a participant rating the same item twice — in the same condition
// or in two) fails the whole file with an *InputError naming line and column.
func ReadRatings(r io.Reader) (*Ratings, error) { return ReadRatingsWith(r, ReadOptions{}) }

// ReadRatingsWith is ReadRatings with options.
func ReadRatingsWith(r io.Reader, opt ReadOptions) (*Ratings, error) {
	points := opt.ScalePoints
	if points == 0 {
		points = domain.RatingMax
	}
	b, err := readRatingsFile(r, points, opt.ScalePoints, nil)
	if err != nil {
		return nil, err
	}
	return b.Done(opt)
}

// RatingsMachineAt is the index of machine_instruction among a ratings
// table's columns, after the item version, the traces and the signals;
// scale_points follows it.
var RatingsMachineAt = len(RatingsColumns) + analysis.MachineInTail

// ratingsScaleAt is the index of scale_points among a ratings table's
// columns.
var ratingsScaleAt = RatingsMachineAt + 1

// ReadRatingsFile reads a ratings file row by row with every check of
// ReadRatings, calling each (when not nil) with the table on each checked
// row, and returns the builder the rows went into. A file with the
// scale_points column is checked against it; one without accepts ratings
// of any scale (1–11), the caller checking its own (analyze integrity's
// --points).
func ReadRatingsFile(r io.Reader, each func(t *analysis.Input, row []string) error) (*ratingsBuilder, error) {
	return readRatingsFile(r, domain.MaxScalePoints, 0, each)
}

// readRatingsFile is ReadRatingsFile where a file without the
// scale_points column is on a scale of points; given is the scale the
// user named (0: none), which a file's column must then agree with.
func readRatingsFile(r io.Reader, points, given int, each func(t *analysis.Input, row []string) error) (*ratingsBuilder, error) {
	t, err := analysis.NewInput(r, RatingsColumns, append(slices.Clone(analysis.ExportTail), ScalePointsColumn)...)
	if err != nil {
		return nil, err
	}
	b := newRatingsBuilder()
	b.points, b.rs.ScalePoints, b.given = points, points, given
	err = t.Each(func(row []string) error {
		if err := t.CheckTraces(len(RatingsColumns) + 1); err != nil {
			return err
		}
		if err := t.CheckItemVersion(len(RatingsColumns)); err != nil {
			return err
		}
		if err := t.CheckMachine(RatingsMachineAt); err != nil {
			return err
		}
		if err := b.scale(t, row); err != nil {
			return err
		}
		if err := b.add(row, t.Line); err != nil {
			return err
		}
		if each != nil {
			return each(t, row)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// RatingRow is one row of a ratings file as plain values; Check is "",
// "high" or "low".
type RatingRow struct {
	Participant, Batch, Item, Type, Condition string
	Rating                                    int
	Check                                     string
}

// NewRatings builds Ratings from rows held in memory, with the checks of
// ReadRatings; an error names the row as the line it would have in the
// file (the first row is line 2).
func NewRatings(rows []RatingRow) (*Ratings, error) {
	b := newRatingsBuilder()
	rec := make([]string, len(RatingsColumns))
	for i, r := range rows {
		rec[ColParticipant], rec[colBatch], rec[ColItem], rec[colType] = r.Participant, r.Batch, r.Item, r.Type
		rec[ColCondition], rec[ColRating], rec[ColCheck] = r.Condition, strconv.Itoa(r.Rating), r.Check
		if err := b.add(rec, i+2); err != nil {
			return nil, err
		}
	}
	return b.Done(ReadOptions{})
}

// ratingsBuilder validates rows one by one and interns their ids.
type ratingsBuilder struct {
	rs                     *Ratings
	pIndex, iIndex, cIndex map[string]int32
	// points bounds the ratings of the next row: the scale_points
	// column's value, else the reader's scale.
	points    int
	fixed     bool // the scale came from the file's column
	firstLine int  // the first line naming it
	given     int  // the reader's scale for files without the column
}

// scale reads the row's scale_points (when the file has the column): a
// whole number 2–11, the same on every row, and the one the caller gave
// when it gave one other than the default.
func (b *ratingsBuilder) scale(t *analysis.Input, row []string) error {
	v := row[ratingsScaleAt]
	if v == "" {
		if b.fixed {
			return t.Errf(ratingsScaleAt, "empty, but line %d gives the scale (%d points): every row names its scale", b.firstLine, b.points)
		}
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < domain.MinScalePoints || n > domain.MaxScalePoints {
		return t.Errf(ratingsScaleAt, "%s %q is not a whole number of points from %d to %d", ScalePointsColumn, v, domain.MinScalePoints, domain.MaxScalePoints)
	}
	switch {
	case b.fixed && n != b.points:
		return t.Errf(ratingsScaleAt, "%d points here but %d on line %d: a ratings file holds one scale", n, b.points, b.firstLine)
	case !b.fixed && b.given != 0 && b.given != n:
		return t.Errf(ratingsScaleAt, "the file says %d points but --scale-points says %d", n, b.given)
	case !b.fixed && b.rs.n > 0:
		return t.Errf(ratingsScaleAt, "%d points here but empty on the lines before: every row names its scale", n)
	}
	b.points, b.rs.ScalePoints, b.fixed, b.firstLine = n, n, true, t.Line
	return nil
}

func newRatingsBuilder() *ratingsBuilder {
	return &ratingsBuilder{rs: &Ratings{}, pIndex: map[string]int32{}, iIndex: map[string]int32{}, cIndex: map[string]int32{}}
}

// add validates one row, in RatingsColumns order, at the given line.
func (b *ratingsBuilder) add(row []string, line int) error {
	rt, err := b.rs.parseRow(row, line, b.pIndex, b.iIndex, b.cIndex)
	if err != nil {
		return err
	}
	if b.points != 0 && int(rt.Value) > b.points {
		how := "the file's scale_points"
		switch {
		case b.given != 0 && !b.fixed:
			how = "--scale-points"
		case !b.fixed:
			how = fmt.Sprintf("a file without %s is read as %d points unless --scale-points says otherwise", ScalePointsColumn, domain.RatingMax)
		}
		return &analysis.InputError{Line: line, Column: RatingsColumns[ColRating], Msg: fmt.Sprintf(
			"rating %d is outside the %d-point scale (1–%d; %s)", rt.Value, b.points, b.points, how)}
	}
	b.rs.Add(rt)
	return nil
}

// Done checks what needs every row: that there is one, and no duplicate.
func (b *ratingsBuilder) Done(opt ReadOptions) (*Ratings, error) {
	if b.rs.n == 0 {
		return nil, analysis.NoRows("ratings")
	}
	if err := b.rs.checkDuplicates(func(rt Rating) uint64 { return rt.key() }); err != nil {
		return nil, err
	}
	if !opt.WithinParticipant {
		// Same participant and item, any condition (checks keep theirs).
		err := b.rs.checkDuplicates(func(rt Rating) uint64 {
			if rt.Check != CheckNone {
				return rt.key()
			}
			return rt.key() &^ (0x7 << 1)
		})
		var ie *analysis.InputError
		if errors.As(err, &ie) {
			ie.Msg += " (each participant rates an item in one condition; --within-participant allows more)"
		}
		if err != nil {
			return nil, err
		}
	}
	return b.rs, nil
}

// parseRow validates one row and interns its ids.
func (rs *Ratings) parseRow(row []string, line int, pIndex, iIndex, cIndex map[string]int32) (Rating, error) {
	var rt Rating
	rt.Line = int32(line)
	errf := func(k int, format string, a ...any) error {
		return &analysis.InputError{Line: line, Column: RatingsColumns[k], Msg: fmt.Sprintf(format, a...)}
	}
	if row[ColParticipant] == "" {
		return rt, errf(ColParticipant, "empty participant id")
	}
	if row[ColItem] == "" {
		return rt, errf(ColItem, "empty item id")
	}
	v, ok := parseRating(row[ColRating])
	if !ok {
		return rt, errf(ColRating, "rating %q is not an integer from 1 to %d", row[ColRating], domain.MaxScalePoints)
	}
	rt.Value = v
	switch row[ColCheck] {
	case "":
	case "high", "High", "HIGH":
		rt.Check = CheckHigh
	case "low", "Low", "LOW":
		rt.Check = CheckLow
	default:
		return rt, errf(ColCheck, "check %q is not empty, high or low", row[ColCheck])
	}
	c, ok := parseCondition(row[ColCondition])
	if !ok && !(rt.Check != CheckNone && row[ColCondition] == "") {
		return rt, errf(ColCondition, "condition %q is not one of %s", row[ColCondition], strings.Join(ConditionNames[:], ", "))
	}
	rt.Cond = c
	rt.Participant = Intern(pIndex, &rs.Participants, row[ColParticipant])
	if rt.Check != CheckNone {
		rt.Item = Intern(cIndex, &rs.CheckItems, row[ColItem])
		return rt, nil
	}
	if domain.IsPooledName(row[colType]) {
		return rt, errf(colType, "%s", analysis.PooledNameMsg("item type", row[colType]))
	}
	typ := int8(analysis.IndexOf(domain.TableTypes, row[colType]))
	if typ < 0 {
		return rt, errf(colType, "item type %q is not one of %s", row[colType], strings.Join(domain.TableTypes, ", "))
	}
	n := len(rs.Items)
	rt.Item = Intern(iIndex, &rs.Items, row[ColItem])
	if int(rt.Item) == n {
		rs.ItemType = append(rs.ItemType, typ)
	} else if rs.ItemType[rt.Item] != typ {
		return rt, errf(colType, "item %q has type %s here but %s on an earlier line", row[ColItem], domain.TableTypes[typ], domain.TableTypes[rs.ItemType[rt.Item]])
	}
	return rt, nil
}

// Intern returns the index of s in list, appending it when new. The map key
// is cloned so it does not pin the CSV reader's record buffer.
func Intern(index map[string]int32, list *[]string, s string) int32 {
	if i, ok := index[s]; ok {
		return i
	}
	s = strings.Clone(s)
	i := int32(len(*list))
	index[s] = i
	*list = append(*list, s)
	return i
}

// parseRating reads a rating of any scale a study may have, 1 to
// domain.MaxScalePoints (docs/studies.md#rating-scale): one or two digits.
// The z-scores need no bounds; the file's own scale is the participants'.
func parseRating(s string) (uint8, bool) {
	if len(s) == 0 || len(s) > 2 || s[0] < '1' || s[0] > '9' {
		return 0, false
	}
	v := int(s[0] - '0')
	if len(s) == 2 {
		if s[1] < '0' || s[1] > '9' {
			return 0, false
		}
		v = v*10 + int(s[1]-'0')
	}
	if v > domain.MaxScalePoints {
		return 0, false
	}
	return uint8(v), true
}

func parseCondition(s string) (Condition, bool) {
	for c, name := range ConditionNames {
		if s == name {
			return Condition(c), true
		}
	}
	return 0, false
}

// key packs what must be unique per row: participant, item, condition and
// whether the item is a check (checks are numbered apart from items).
func (rt Rating) key() uint64 {
	k := uint64(uint32(rt.Participant))<<32 | uint64(uint32(rt.Item))<<4 | uint64(rt.Cond)<<1
	if rt.Check != CheckNone {
		k |= 1
	}
	return k
}

// checkDuplicates fails on the first line (in file order) that repeats a
// participant's rating of an item in a condition. Sorting packed keys costs
// far less memory than a map over a million rows.
func (rs *Ratings) checkDuplicates(key func(Rating) uint64) error {
	keys := make([]uint64, 0, rs.n)
	rs.Each(func(rt *Rating) { keys = append(keys, key(*rt)) })
	slices.Sort(keys)
	dup := map[uint64]bool{}
	for i := 1; i < len(keys); i++ {
		if keys[i] == keys[i-1] {
			dup[keys[i]] = true
		}
	}
	if len(dup) == 0 {
		return nil
	}
	type firstSeen struct {
		line int32
		cond Condition
	}
	first := map[uint64]firstSeen{}
	var err error
	rs.Each(func(rt *Rating) {
		k := key(*rt)
		if err != nil || !dup[k] {
			return
		}
		if f, seen := first[k]; seen {
			err = &analysis.InputError{Line: int(rt.Line), Column: RatingsColumns[ColItem], Msg: fmt.Sprintf(
				"participant %q already rated item %q in condition %s on line %d",
				rs.Participants[rt.Participant], rs.ItemName(*rt), f.cond, f.line)}
			return
		}
		first[k] = firstSeen{rt.Line, rt.Cond}
	})
	return err
}

func (rs *Ratings) ItemName(rt Rating) string {
	if rt.Check != CheckNone {
		return rs.CheckItems[rt.Item]
	}
	return rs.Items[rt.Item]
}
