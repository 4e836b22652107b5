// Package atest holds the helpers the analysis rooms' tests share.
package atest

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"pragmalab/analysis"
	"strings"
	"testing"
)

func Round2(p *float64) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprintf("%.2f", *p)
}

// numLines is the number of lines of data: its last line need not end in a
// line break.
func numLines(data []byte) int { return bytes.Count(data, []byte("\n")) + 1 }

// CheckInputError fails unless err is an *InputError naming a line of data.
func CheckInputError(t *testing.T, err error, data []byte) {
	t.Helper()
	var ie *analysis.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("error %q (%T) is not an *InputError", err, err)
	}
	if ie.Line < 1 || ie.Line > numLines(data) || ie.Msg == "" {
		t.Fatalf("error %q names line %d; the file has %d lines", err, ie.Line, numLines(data))
	}
}

// FileRows reads an accepted file again with encoding/csv and returns its
// data rows as maps from the (normalised) header name to the trimmed value.
func FileRows(t *testing.T, data []byte) []map[string]string {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatalf("accepted a file encoding/csv refuses: %v", err)
	}
	var header []string
	for _, h := range recs[0] {
		header = append(header, strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\uFEFF"))))
	}
	var rows []map[string]string
	for _, rec := range recs[1:] {
		m := map[string]string{}
		for i, v := range rec {
			m[header[i]] = strings.TrimSpace(v)
		}
		rows = append(rows, m)
	}
	return rows
}

// CheckShare fails unless p is nil or a number in [lo, 1].
func CheckShare(t *testing.T, what string, p *float64, lo float64) {
	t.Helper()
	if p != nil && (math.IsNaN(*p) || *p < lo-1e-9 || *p > 1+1e-9) {
		t.Fatalf("%s = %v, outside [%v, 1]", what, *p, lo)
	}
}

// CheckDraws compares the generator's draws with the committed file the
// Python references read; PRAGMALAB_WRITE_DRAWS=1 rewrites it.
func CheckDraws(t *testing.T, path, got string) {
	t.Helper()
	if os.Getenv("PRAGMALAB_WRITE_DRAWS") == "1" {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != got {
		t.Fatalf("the bootstrap draws changed: %s no longer matches (the reference intervals were computed from it)", path)
	}
}

func NearCI(got *analysis.CI, lo, hi float64) bool {
	return got != nil && math.Abs(got[0]-lo) < 1e-9 && math.Abs(got[1]-hi) < 1e-9
}

const RatingsHeader = "participant_id,batch_id,item_id,item_type,condition,rating,check\n"

// ToplinesFixture: pA (sd 2) and pB (sd 1) rate the same slots with z = ±1;
// pC has sd √3; pK is constant; pX fails 3 checks and would flip s1; pB
// fails 2 checks (kept at the default threshold).
const ToplinesFixture = RatingsHeader + `pA,B1,s1,scalar,trigger,6,
pA,B1,s1,scalar,cancel,2,
pA,B1,s2,scalar,trigger,6,
pA,B1,d1,discourse,trigger,2,
pA,B1,d1,discourse,cancel,6,
pA,B1,y1,synthetic,trigger,2,
pA,B1,y1,synthetic,strengthen,6,
pA,B1,y1,synthetic,neutral,2,
pA,B1,y1,synthetic,cancel,6,
pA,B1,y1,synthetic,negation,2,
pA,B1,chk1,,trigger,6,high
pA,B1,chk2,,trigger,2,low
pB,B1,s1,scalar,trigger,5,
pB,B1,s1,scalar,cancel,3,
pB,B1,s2,scalar,trigger,5,
pB,B1,d1,discourse,trigger,3,
pB,B1,d1,discourse,cancel,5,
pB,B1,y1,synthetic,trigger,3,
pB,B1,y1,synthetic,strengthen,5,
pB,B1,y1,synthetic,neutral,3,
pB,B1,y1,synthetic,cancel,5,
pB,B1,y1,synthetic,negation,3,
pB,B1,chk1,,trigger,4,high
pB,B1,chk2,,trigger,4,low
pB,B1,chk3,,,7,high
pC,B2,s1,scalar,trigger,7,
pC,B2,s1,scalar,cancel,1,
pC,B2,s2,scalar,trigger,4,
pC,B2,d1,discourse,trigger,4,
pC,B2,d1,discourse,cancel,4,
pC,B2,y1,synthetic,trigger,4,
pK,B2,s1,scalar,trigger,4,
pK,B2,s1,scalar,cancel,4,
pX,B2,s1,scalar,trigger,1,
pX,B2,s1,scalar,cancel,7,
pX,B2,chk1,,trigger,1,high
pX,B2,chk2,,trigger,7,low
pX,B2,chk3,,trigger,2,high
`

func Near(got *float64, want float64) bool {
	return got != nil && math.Abs(*got-want) < 1e-9
}

func FmtPtr(p *float64) string {
	if p == nil {
		return "null"
	}
	b, _ := json.Marshal(*p)
	return string(b)
}

// DrawFrom draws n categories with weights w (not necessarily summing to
// 1): the counts a rater of those probabilities gives.
func DrawFrom(rng interface{ Float64() float64 }, w []float64, n int) []int {
	var total float64
	for _, x := range w {
		total += x
	}
	var out []int
	for range n {
		u := rng.Float64() * total
		k := 0
		for k < len(w)-1 && u >= w[k] {
			u -= w[k]
			k++
		}
		out = append(out, k+1)
	}
	return out
}
