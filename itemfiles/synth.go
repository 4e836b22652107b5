package itemfiles

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// PublishedPassageRows is the size of the full IMPAQTS-PID file.
const PublishedPassageRows = 31_822

// SynthesizePassagesTSV builds an IMPAQTS-PID TSV of n rows from a sample of
// the published file (for benchmarks): the sample's rows repeated with fresh
// ids, with the quirks of the published file put back — CR LF line breaks
// inside MCs, a byte-order mark opening the text of each copy of 34103 and a
// Windows-1252 apostrophe in option D of each copy of 39290.
func SynthesizePassagesTSV(sample []byte, n int) ([]byte, error) {
	tr := &tsvReader{data: bytes.TrimPrefix(sample, []byte("\uFEFF")), line: 1}
	header, _, err := tr.record(0)
	if err != nil || header == nil {
		return nil, fmt.Errorf("synthesize passages: sample header: %v", err)
	}
	tr.names = header
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	idCol, ok := col[colID]
	if !ok {
		return nil, fmt.Errorf("synthesize passages: sample has no %s column", colID)
	}
	var rows [][]string
	for row := 1; ; row++ {
		rec, _, err := tr.record(row)
		if err != nil {
			return nil, fmt.Errorf("synthesize passages: %w", err)
		}
		if rec == nil {
			break
		}
		rows = append(rows, rec)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("synthesize passages: the sample has no rows")
	}
	var out bytes.Buffer
	out.Grow(len(sample) / len(rows) * (n + 1))
	writeTSVRecord(&out, header)
	for i := range n {
		rec := append([]string(nil), rows[i%len(rows)]...)
		orig := rec[idCol]
		rec[idCol] = strconv.Itoa(i + 1)
		if c, ok := col[colOptions]; ok {
			rec[c] = strings.ReplaceAll(rec[c], "\n", "\r\n")
			if orig == "39290" {
				rec[c] = strings.Replace(rec[c], "per l", "per l\x92", 1)
			}
		}
		if c, ok := col[colText]; ok && orig == "34103" {
			rec[c] = "\uFEFF" + rec[c]
		}
		writeTSVRecord(&out, rec)
	}
	return out.Bytes(), nil
}

// writeTSVRecord writes one record, quoting fields as the published file does.
func writeTSVRecord(out *bytes.Buffer, rec []string) {
	for i, f := range rec {
		if i > 0 {
			out.WriteByte('\t')
		}
		if strings.ContainsAny(f, "\"\t\r\n") {
			out.WriteByte('"')
			out.WriteString(strings.ReplaceAll(f, `"`, `""`))
			out.WriteByte('"')
		} else {
			out.WriteString(f)
		}
	}
	out.WriteByte('\n')
}
