// Package csvsafe writes CSV files that a spreadsheet opens without running
// any cell as a formula, and reads them back unchanged.
//
// The rule (OWASP's, made reversible): a text cell whose first character,
// after any leading single quotes, is = + - @ tab or carriage return is
// written with one more single quote in front; a cell that is a plain
// decimal number ("-1.5", "+3", "2e-4") is written as it is, so numbers stay
// numbers. Readers undo it with Unquote: a cell that starts with a single
// quote and would have been quoted loses one quote. So "=1+1" is written
// "'=1+1", "'=x" gets a second quote in front, and both read back as they were; texts
// such as "'Twas" or "don't" are never touched.
//
// Every CSV export of pragmalab goes through NewWriter, and every reader of
// a file an export may have produced calls Unquote on its fields.
package csvsafe

import (
	"encoding/csv"
	"io"
	"strings"
)

// Writer is a csv.Writer that neutralises formula cells.
type Writer struct {
	*csv.Writer
	buf []string
}

// NewWriter returns a Writer writing to w.
func NewWriter(w io.Writer) *Writer { return &Writer{Writer: csv.NewWriter(w)} }

// Write writes one record, each cell passed through Quote.
func (w *Writer) Write(record []string) error {
	w.buf = w.buf[:0]
	for _, c := range record {
		w.buf = append(w.buf, Quote(c))
	}
	return w.Writer.Write(w.buf)
}

// WriteAll writes the records and flushes.
func (w *Writer) WriteAll(records [][]string) error {
	for _, r := range records {
		if err := w.Write(r); err != nil {
			return err
		}
	}
	w.Flush()
	return w.Error()
}

// Quote returns the cell as it must be written.
func Quote(cell string) string {
	if needsQuote(cell) {
		return "'" + cell
	}
	return cell
}

// Unquote returns the cell as it was before Quote; cells Quote leaves alone
// come back unchanged.
func Unquote(cell string) string {
	if len(cell) > 1 && cell[0] == '\'' && needsQuote(cell[1:]) {
		return cell[1:]
	}
	return cell
}

func needsQuote(cell string) bool {
	rest := strings.TrimLeft(cell, "'")
	if rest == "" {
		return false
	}
	switch rest[0] {
	case '=', '+', '-', '@', '\t', '\r':
		// A number such as -1.5 stays a number; "'-1.5" still needs its
		// quote, or it would read back as the number.
		return len(rest) != len(cell) || !IsNumber(cell)
	}
	return false
}

// IsNumber reports whether s is a plain decimal number: an optional sign,
// digits with at most one point, and an optional exponent. Words that
// strconv accepts ("Inf", "NaN", hex) are not numbers here.
func IsNumber(s string) bool {
	i, ok := mantissaEnd(s)
	if !ok {
		return false
	}
	i, ok = exponentEnd(s, i)
	return ok && i == len(s)
}

// mantissaEnd returns where the signed mantissa at the start of s ends;
// ok is false when it has no digit.
func mantissaEnd(s string) (i int, ok bool) {
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits, point := 0, false
	for ; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' {
			digits++
		} else if c == '.' && !point {
			point = true
		} else {
			break
		}
	}
	return i, digits > 0
}

// exponentEnd returns where the exponent starting at s[i] ends (i itself
// when there is none); ok is false for an "e" without digits.
func exponentEnd(s string, i int) (int, bool) {
	if i >= len(s) || (s[i] != 'e' && s[i] != 'E') {
		return i, true
	}
	i++
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	exp := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		exp++
	}
	return i, exp > 0
}
