package cli

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// TestAnalyzePlanByCondition: `analyze plan --by-condition` plans the
// difference between a judgement file's own conditions with the
// exclusion flags of `analyze conditions` — a participant excluded by
// --exclude leaves the pilot — and refuses what it does not plan, naming
// the flag (docs/statistics.md#planning-a-judgement-study).
func TestAnalyzePlanByCondition(t *testing.T) {
	var b strings.Builder
	b.WriteString("participant_id,item_id,condition,rating,check,scale_points\n")
	for p := range 14 {
		for i := range 10 {
			cond := []string{"kontrolle", "zielsatz"}[(i+p)%2]
			r := 2 + (p+3*i)%3
			if cond == "kontrolle" {
				r = 3 + (p*5+i)%3
			}
			b.WriteString("p" + strconv.Itoa(p) + ",i" + strconv.Itoa(i) + "," + cond + "," + strconv.Itoa(r) + ",,5\n")
		}
	}
	in := writeAnalyzeInput(t, "pilot.csv", b.String())
	plan := func(args ...string) (map[string]any, string, int) {
		out, errOut, code := analyzeCLI(t, "", append([]string{"analyze", "plan", "--by-condition", "--ratings", in, "--participants", "14,56", "--draws", "2", "--high-pass", "4", "--low-pass", "2", "--json"}, args...)...)
		var v map[string]any
		if code == 0 {
			if err := json.Unmarshal([]byte(out), &v); err != nil {
				t.Fatal(err)
			}
		}
		return v, errOut, code
	}
	v, errOut, code := plan("--conditions", "kontrolle,zielsatz")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	pilot := v["pilot"].(map[string]any)
	if pilot["analysed"].(float64) != 14 || len(v["plans"].([]any)) != 2 {
		t.Fatalf("plan: %v", v)
	}
	d := v["plans"].([]any)[0].(map[string]any)["differences"].([]any)[0].(map[string]any)
	if d["condition"] != "zielsatz" || d["versus"] != "kontrolle" || d["mean_rating_difference_width"] == nil {
		t.Errorf("difference: %v", d)
	}
	if v, _, _ = plan("--exclude", "p0,p1"); v["pilot"].(map[string]any)["analysed"].(float64) != 12 {
		t.Errorf("--exclude p0,p1 left %v analysed", v["pilot"])
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--exclude", "p0,p1,p2,p3,p4"}, "cannot plan from fewer than 10"},
		{[]string{"--conditions", "kontrolle"}, `condition "zielsatz" is not among the declared conditions`},
		{[]string{"--reference", "ziel"}, `--reference "ziel" is not a condition`},
		{[]string{"--high-pass", "6"}, "must lie on the file's 5-point scale"},
	} {
		if _, errOut, code := plan(c.args...); code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 and %q", c.args, code, errOut, c.want)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"analyze", "plan", "--by-condition", "--ratings", in, "--target-width", "0.2"}, "--target-width is for the toplines"},
		{[]string{"analyze", "plan", "--ratings", in, "--participants", "20", "--conditions", "kontrolle,zielsatz"}, "give --by-condition"},
	} {
		if _, errOut, code := analyzeCLI(t, "", c.args...); code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 and %q", c.args, code, errOut, c.want)
		}
	}

	// The reliability of the same participants, by condition.
	out, errOut, code := analyzeCLI(t, "", "analyze", "reliability", "--by-condition", "--ratings", in, "--high-pass", "4", "--low-pass", "2", "--exclude", "p0", "--json", "--bootstrap", "0")
	if code != 0 {
		t.Fatalf("reliability: exit %d: %s", code, errOut)
	}
	var rel struct {
		Alpha []struct {
			Condition string `json:"condition"`
			Ratings   int    `json:"ratings"`
		} `json:"alpha"`
	}
	if err := json.Unmarshal([]byte(out), &rel); err != nil {
		t.Fatal(err)
	}
	if len(rel.Alpha) != 3 || rel.Alpha[0].Condition != "kontrolle" || rel.Alpha[2].Condition != "all" || rel.Alpha[2].Ratings != 130 {
		t.Errorf("reliability by condition without p0: %+v", rel.Alpha)
	}
}
