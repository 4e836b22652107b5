package analysis

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// DesignVersionColumn is the column of the ratings export of a study with
// more than one design version (docs/formats.md#ratings-export): the
// version each rating was given under. Ratings of different versions were
// given under different designs, so an analysis reads one version's rows
// (docs/studies.md#design-versions).
const DesignVersionColumn = "design_version"

// DesignVersionPick is a ratings file of which only the rows of design
// version Version are read: NewInput skips the others, the line numbers
// of its errors still the file's.
type DesignVersionPick struct {
	io.Reader
	Version int
}

// PickDesignVersion reads the file r and returns it to be read with only
// the rows of design version k (0: the file must hold one version). It
// refuses, with an *InputError naming the versions found, a file holding
// several when k is 0, and a k the file does not hold.
func PickDesignVersion(r io.Reader, k int) (io.Reader, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	cr := csv.NewReader(bytes.NewReader(data))
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		return bytes.NewReader(data), nil // the reader says what is wrong
	}
	col := -1
	for i, h := range header {
		if strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\uFEFF"))) == DesignVersionColumn {
			col = i
		}
	}
	if col < 0 {
		if k > 0 {
			return nil, &InputError{Line: 1, Msg: fmt.Sprintf("--design-version %d, but the file has no design_version column: its ratings are of one design version", k)}
		}
		return bytes.NewReader(data), nil
	}
	var found []int
	for {
		rec, err := cr.Read()
		if err != nil {
			break // the reader reports a malformed row
		}
		if col >= len(rec) {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(rec[col]))
		if err != nil || n < 1 {
			line, _ := cr.FieldPos(col)
			return nil, &InputError{Line: line, Column: DesignVersionColumn, Msg: fmt.Sprintf("design_version %q is not a positive whole number", rec[col])}
		}
		if !slices.Contains(found, n) {
			found = append(found, n)
		}
	}
	slices.Sort(found)
	names := make([]string, len(found))
	for i, n := range found {
		names[i] = strconv.Itoa(n)
	}
	switch {
	case k == 0 && len(found) == 1:
		k = found[0] // the one version: its column is read, not refused
	case k == 0 && len(found) > 1:
		return nil, &InputError{Line: 1, Column: DesignVersionColumn, Msg: fmt.Sprintf("the file holds ratings of design versions %s, given under different designs: say which to analyse with --design-version K", strings.Join(names, ", "))}
	case k > 0 && !slices.Contains(found, k):
		return nil, &InputError{Line: 1, Column: DesignVersionColumn, Msg: fmt.Sprintf("--design-version %d, but the file holds ratings of design versions %s", k, strings.Join(names, ", "))}
	}
	return &DesignVersionPick{Reader: bytes.NewReader(data), Version: k}, nil
}
