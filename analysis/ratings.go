package analysis

import (
	"errors"
	"fmt"
	"io"
	"pragmalab/domain"
	"slices"
	"strconv"
	"strings"
)

// pooledNameMsg is the message of an input error for a reserved name.
func pooledNameMsg(what, name string) string {
	return fmt.Sprintf("%s %q is reserved: %q and %q (in any case) name the pooled rows of the tables; rename it", what, name, domain.TypeAll, domain.Overall)
}

// OrderTypes returns names (item types or kinds, each once) in the order
// tables list them (docs/statistics.md#conventions): the item types of domain.TableTypes
// in that order, then any other name in the order given; a pooled name is
// left out.
func OrderTypes(names []string) []string {
	out := make([]string, 0, len(names))
	for _, t := range domain.TableTypes {
		if slices.Contains(names, t) {
			out = append(out, t)
		}
	}
	for _, n := range names {
		if !slices.Contains(domain.TableTypes, n) && !domain.IsPooledName(n) {
			out = append(out, n)
		}
	}
	return out
}

// Condition is one of the rating conditions of docs/items.md#conditions.
type Condition uint8

// The conditions of the ratings file, in the order of docs/items.md#conditions.
const (
	Trigger Condition = iota
	Cancel
	Negation
	Strengthen
	Neutral
	numConditions
)

// ConditionNames maps a Condition to its name in the ratings file.
var ConditionNames = [numConditions]string{domain.ConditionTrigger, domain.ConditionCancel, domain.ConditionNegation, domain.ConditionStrengthen, domain.ConditionNeutral}

func (c Condition) String() string { return ConditionNames[c] }

// RatingsColumns is the header of a ratings file (docs/formats.md#ratings-file),
// in export order.
var RatingsColumns = []string{"participant_id", "batch_id", "item_id", "item_type", "condition", "rating", "check"}

const (
	colParticipant = iota
	colBatch
	colItem
	colType
	colCondition
	colRating
	colCheck
)

// Attention-check kinds stored per row.
const (
	checkNone uint8 = iota
	checkHigh
	checkLow
)

// rating is one row of a ratings file, packed: a million of them fit in
// 16 MB, which is what keeps the toplines benchmark under its memory target.
type rating struct {
	participant int32
	item        int32 // index into Ratings.items, or into checkItems for checks
	line        int32
	cond        Condition
	value       uint8
	check       uint8
}

// Ratings is a parsed ratings file: interned ids and packed rows.
type Ratings struct {
	participants []string
	items        []string
	itemType     []int8 // index into Types
	checkItems   []string
	// rows are kept in fixed-size chunks: appending never copies what was
	// read, which on a million rows saved more time than the CSV parsing.
	rows [][]rating
	n    int
}

// chunkRows is the number of rows per chunk (1 MiB of packed rows).
const chunkRows = 1 << 16

func (rs *Ratings) add(rt rating) {
	if len(rs.rows) == 0 || len(rs.rows[len(rs.rows)-1]) == chunkRows {
		rs.rows = append(rs.rows, make([]rating, 0, chunkRows))
	}
	last := &rs.rows[len(rs.rows)-1]
	*last = append(*last, rt)
	rs.n++
}

// each calls f on every row in file order.
func (rs *Ratings) each(f func(rt *rating)) {
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
}

// ReadRatings reads a ratings file (docs/formats.md#ratings-file). Any bad row (unknown or missing
// column, rating outside 1–11, unknown condition or type, an id that is not
// UTF-8, a participant rating the same item twice — in the same condition
// or in two) fails the whole file with an *InputError naming line and column.
func ReadRatings(r io.Reader) (*Ratings, error) { return ReadRatingsWith(r, ReadOptions{}) }

// ReadRatingsWith is ReadRatings with options.
func ReadRatingsWith(r io.Reader, opt ReadOptions) (*Ratings, error) {
	b, err := readRatingsFile(r, nil)
	if err != nil {
		return nil, err
	}
	return b.done(opt)
}

// ratingsMachineAt is the index of machine_instruction among a ratings
// table's columns, after the item version, the traces and the signals.
var ratingsMachineAt = len(RatingsColumns) + 1 + len(TraceColumns) + len(SignalColumns)

// readRatingsFile reads a ratings file row by row with every check of
// ReadRatings, calling each (when not nil) with the table on each checked
// row, and returns the builder the rows went into.
func readRatingsFile(r io.Reader, each func(t *table, row []string) error) (*ratingsBuilder, error) {
	t, err := newTable(r, RatingsColumns, append(append(append([]string{ItemVersionColumn}, TraceColumns...), SignalColumns...), MachineColumn)...)
	if err != nil {
		return nil, err
	}
	b := newRatingsBuilder()
	for {
		row, err := t.next()
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
		if err := t.checkTraces(len(RatingsColumns) + 1); err != nil {
			return nil, err
		}
		if err := t.checkItemVersion(len(RatingsColumns)); err != nil {
			return nil, err
		}
		if err := t.checkMachine(ratingsMachineAt); err != nil {
			return nil, err
		}
		if err := b.add(row, t.line); err != nil {
			return nil, err
		}
		if each != nil {
			if err := each(t, row); err != nil {
				return nil, err
			}
		}
	}
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
		rec[colParticipant], rec[colBatch], rec[colItem], rec[colType] = r.Participant, r.Batch, r.Item, r.Type
		rec[colCondition], rec[colRating], rec[colCheck] = r.Condition, strconv.Itoa(r.Rating), r.Check
		if err := b.add(rec, i+2); err != nil {
			return nil, err
		}
	}
	return b.done(ReadOptions{})
}

// ratingsBuilder validates rows one by one and interns their ids.
type ratingsBuilder struct {
	rs                     *Ratings
	pIndex, iIndex, cIndex map[string]int32
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
	b.rs.add(rt)
	return nil
}

// done checks what needs every row: that there is one, and no duplicate.
func (b *ratingsBuilder) done(opt ReadOptions) (*Ratings, error) {
	if b.rs.n == 0 {
		return nil, noRows("ratings")
	}
	if err := b.rs.checkDuplicates(func(rt rating) uint64 { return rt.key() }); err != nil {
		return nil, err
	}
	if !opt.WithinParticipant {
		// Same participant and item, any condition (checks keep theirs).
		err := b.rs.checkDuplicates(func(rt rating) uint64 {
			if rt.check != checkNone {
				return rt.key()
			}
			return rt.key() &^ (0x7 << 1)
		})
		var ie *InputError
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
func (rs *Ratings) parseRow(row []string, line int, pIndex, iIndex, cIndex map[string]int32) (rating, error) {
	var rt rating
	rt.line = int32(line)
	errf := func(k int, format string, a ...any) error {
		return &InputError{Line: line, Column: RatingsColumns[k], Msg: fmt.Sprintf(format, a...)}
	}
	if row[colParticipant] == "" {
		return rt, errf(colParticipant, "empty participant id")
	}
	if row[colItem] == "" {
		return rt, errf(colItem, "empty item id")
	}
	v, ok := parseRating(row[colRating])
	if !ok {
		return rt, errf(colRating, "rating %q is not an integer from 1 to %d", row[colRating], domain.MaxScalePoints)
	}
	rt.value = v
	switch row[colCheck] {
	case "":
	case "high", "High", "HIGH":
		rt.check = checkHigh
	case "low", "Low", "LOW":
		rt.check = checkLow
	default:
		return rt, errf(colCheck, "check %q is not empty, high or low", row[colCheck])
	}
	c, ok := parseCondition(row[colCondition])
	if !ok && !(rt.check != checkNone && row[colCondition] == "") {
		return rt, errf(colCondition, "condition %q is not one of %s", row[colCondition], strings.Join(ConditionNames[:], ", "))
	}
	rt.cond = c
	rt.participant = intern(pIndex, &rs.participants, row[colParticipant])
	if rt.check != checkNone {
		rt.item = intern(cIndex, &rs.checkItems, row[colItem])
		return rt, nil
	}
	if domain.IsPooledName(row[colType]) {
		return rt, errf(colType, "%s", pooledNameMsg("item type", row[colType]))
	}
	typ := int8(indexOf(domain.TableTypes, row[colType]))
	if typ < 0 {
		return rt, errf(colType, "item type %q is not one of %s", row[colType], strings.Join(domain.TableTypes, ", "))
	}
	n := len(rs.items)
	rt.item = intern(iIndex, &rs.items, row[colItem])
	if int(rt.item) == n {
		rs.itemType = append(rs.itemType, typ)
	} else if rs.itemType[rt.item] != typ {
		return rt, errf(colType, "item %q has type %s here but %s on an earlier line", row[colItem], domain.TableTypes[typ], domain.TableTypes[rs.itemType[rt.item]])
	}
	return rt, nil
}

// intern returns the index of s in list, appending it when new. The map key
// is cloned so it does not pin the CSV reader's record buffer.
func intern(index map[string]int32, list *[]string, s string) int32 {
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
func (rt rating) key() uint64 {
	k := uint64(uint32(rt.participant))<<32 | uint64(uint32(rt.item))<<4 | uint64(rt.cond)<<1
	if rt.check != checkNone {
		k |= 1
	}
	return k
}

// checkDuplicates fails on the first line (in file order) that repeats a
// participant's rating of an item in a condition. Sorting packed keys costs
// far less memory than a map over a million rows.
func (rs *Ratings) checkDuplicates(key func(rating) uint64) error {
	keys := make([]uint64, 0, rs.n)
	rs.each(func(rt *rating) { keys = append(keys, key(*rt)) })
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
	rs.each(func(rt *rating) {
		k := key(*rt)
		if err != nil || !dup[k] {
			return
		}
		if f, seen := first[k]; seen {
			err = &InputError{Line: int(rt.line), Column: RatingsColumns[colItem], Msg: fmt.Sprintf(
				"participant %q already rated item %q in condition %s on line %d",
				rs.participants[rt.participant], rs.itemName(*rt), f.cond, f.line)}
			return
		}
		first[k] = firstSeen{rt.line, rt.cond}
	})
	return err
}

func (rs *Ratings) itemName(rt rating) string {
	if rt.check != checkNone {
		return rs.checkItems[rt.item]
	}
	return rs.items[rt.item]
}
