package analysis

import (
	"encoding/json"
	"strconv"
)

func itoa(n int) string { return strconv.Itoa(n) }

func jsonNum(x *float64) string {
	if x == nil {
		return "null"
	}
	return strconv.FormatFloat(*x, 'g', -1, 64)
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
