package analysis

import (
	"strconv"
	"strings"
)

// Fixed prints x with the given number of decimals for people: the printed
// tables, the Analysis pages, LaTeX and the methods paragraphs all use it,
// so one number reads the same everywhere (docs/statistics.md#conventions).
//
// The rule: take the shortest decimal form of x — the one JSON and CSV
// carry, so 0.925 and not the binary 0.92500000000000004 — and round it
// half away from zero. 0.925 → "0.93", 0.125 → "0.13", −0.125 → "-0.13".
// A value that rounds to zero prints without a sign ("0.00", never "-0.00").
// Go's %.2f rounds the binary value half to even instead (0.125 → "0.12"),
// which a reader checking the JSON would take for a mistake.
func Fixed(x float64, decimals int) string {
	s := strconv.FormatFloat(x, 'f', -1, 64) // shortest form that reads back as x
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	up := len(frac) > decimals && frac[decimals] >= '5'
	if len(frac) > decimals {
		frac = frac[:decimals]
	}
	frac += strings.Repeat("0", decimals-len(frac))
	digits := []byte(whole + frac)
	if up {
		i := len(digits) - 1
		for ; i >= 0 && digits[i] == '9'; i-- {
			digits[i] = '0'
		}
		if i < 0 {
			digits = append([]byte{'1'}, digits...)
		} else {
			digits[i]++
		}
	}
	out := string(digits[:len(digits)-decimals])
	if decimals > 0 {
		out += "." + string(digits[len(digits)-decimals:])
	}
	if neg && strings.Trim(string(digits), "0") != "" {
		out = "-" + out
	}
	return out
}

// Percent prints a share as a whole percentage taken from its two-decimal
// form, so a share the table prints as 0.93 reads "93" in a sentence, never
// "92".
func Percent(share float64) string {
	s := strings.Replace(Fixed(share, 2), ".", "", 1)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimLeft(strings.TrimPrefix(s, "-"), "0")
	if s == "" {
		return "0"
	}
	if neg {
		return "-" + s
	}
	return s
}

// Missing is how a measure that cannot be computed is printed for people.
const Missing = "–"
