package analysis

import (
	"encoding/json"
	"strconv"
)

// Itoa is strconv.Itoa, short for the tables' cells.
func Itoa(n int) string { return strconv.Itoa(n) }

// JSONNum writes a number for JSON, null when it is undefined.
func JSONNum(x *float64) string {
	if x == nil {
		return "null"
	}
	return strconv.FormatFloat(*x, 'g', -1, 64)
}

// JSONMarshal is json.Marshal.
func JSONMarshal(v any) ([]byte, error) { return json.Marshal(v) }

// Est is an estimate with its 95 % interval: printed "0.85 [0.76, 0.93]"
// for people; CSV gives it three columns (value, low, high) and JSON a
// sibling key "<column>_ci95".
type Est struct {
	V  *float64
	CI *CI
}

// JSONCI writes an estimate's interval as a JSON pair, null without one.
func JSONCI(e Est) string {
	if e.V == nil || e.CI == nil {
		return "null"
	}
	return "[" + strconv.FormatFloat(e.CI[0], 'g', -1, 64) + "," + strconv.FormatFloat(e.CI[1], 'g', -1, 64) + "]"
}
