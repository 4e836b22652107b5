package analysis

import (
	"encoding/json"
	"strconv"
)

func Itoa(n int) string { return strconv.Itoa(n) }

func JSONNum(x *float64) string {
	if x == nil {
		return "null"
	}
	return strconv.FormatFloat(*x, 'g', -1, 64)
}

func JSONMarshal(v any) ([]byte, error) { return json.Marshal(v) }

// Est is an estimate with its 95 % interval: printed "0.85 [0.76, 0.93]"
// for people; CSV gives it three columns (value, low, high) and JSON a
// sibling key "<column>_ci95".
type Est struct {
	V  *float64
	CI *CI
}

func JSONCI(e Est) string {
	if e.V == nil || e.CI == nil {
		return "null"
	}
	return "[" + strconv.FormatFloat(e.CI[0], 'g', -1, 64) + "," + strconv.FormatFloat(e.CI[1], 'g', -1, 64) + "]"
}
