package itemfiles

import (
	"bufio"
	"encoding/csv"
	"io"
	"pragmalab/domain"
	"slices"
	"strings"

	"pragmalab/csvsafe"
)

// ParseOutputsCSV reads a model outputs file (CSV with a header naming
// item_id, strategy, model and output, in any order), all or nothing; the
// error names the line and column.
func ParseOutputsCSV(r io.Reader) ([]domain.Output, error) {
	br := bufio.NewReader(r)
	if err := checkEncoding("outputs file", br, false); err != nil {
		return nil, err
	}
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err == io.EOF {
		return nil, domain.Errorf(domain.EINVALID, "the outputs file is empty")
	}
	if err != nil {
		return nil, csvError(err)
	}
	idx := map[string]int{}
	for i, h := range header {
		h = strings.TrimSpace(strings.TrimPrefix(h, "\uFEFF"))
		if _, dup := idx[h]; dup && slices.Contains(domain.OutputColumns, h) {
			// Which of the two would be read is a guess; the item file
			// refuses it too.
			return nil, lineError(1, "", "column %q appears twice", h)
		}
		idx[h] = i
	}
	for _, c := range domain.OutputColumns {
		if _, ok := idx[c]; !ok {
			return nil, domain.Errorf(domain.EINVALID, "line 1: missing column %q (the header needs %s)", c, strings.Join(domain.OutputColumns, ", "))
		}
	}
	var out []domain.Output
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvError(err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != len(header) {
			return nil, lineError(line, "", "has %d fields, the header %d", len(rec), len(header))
		}
		// Exports neutralise formula cells; the import undoes it.
		cell := func(c string) string { return csvsafe.Unquote(rec[idx[c]]) }
		o := domain.Output{ItemKey: cell("item_id"), Strategy: cell("strategy"), Model: cell("model"), Output: strings.TrimSpace(cell("output"))}
		if err := o.Validate(); err != nil {
			fe := err.(*domain.FieldError)
			return nil, lineError(line, fe.Field, "%s", fe.Msg)
		}
		out = append(out, o)
		if len(out) > MaxPassageRows {
			return nil, lineError(line, "", "more than %d outputs", MaxPassageRows)
		}
	}
	if len(out) == 0 {
		return nil, domain.Errorf(domain.EINVALID, "no outputs after the header")
	}
	return out, nil
}
