package cli

import (
	"strings"
	"testing"

	"pragmalab/analysis/toplines"
	"pragmalab/studies"
)

// TestPrintedCommandsCarryTheStudysRules: the Analysis page's toplines and
// plan commands name the study's scale and exclusion rules, and the CLI
// takes every flag they print: `analyze plan` has the flags toplines has
// (#45 §5).
func TestPrintedCommandsCarryTheStudysRules(t *testing.T) {
	opt := toplines.Options{HighPass: 4, LowPass: 2, MaxFailed: 2, Exclude: []string{"p9"}, Include: []string{"p3"}}
	five := "participant_id,batch_id,item_id,item_type,condition,rating,check,scale_points\n" +
		"p1,B1,s1,scalar,trigger,5,,5\np1,B1,s2,scalar,cancel,1,,5\np1,B1,c1,,,5,high,5\n" +
		"p2,B1,s1,scalar,cancel,2,,5\np2,B1,s2,scalar,trigger,4,,5\np2,B1,c1,,,1,low,5\n"
	path := writeAnalyzeInput(t, "ratings.csv", five)
	for _, cmd := range []string{studies.ToplinesCommand(opt, 5), studies.PlanCommand(opt, 5)} {
		for _, want := range []string{"--scale-points 5", "--high-pass 4", "--low-pass 2", "--max-failed 2", "--exclude p9", "--include p3"} {
			if !strings.Contains(cmd, want) {
				t.Errorf("%q lacks %q", cmd, want)
			}
		}
		args := strings.Fields(strings.TrimPrefix(cmd, "pragmalab "))
		for i, a := range args {
			switch a {
			case "ratings.csv":
				args[i] = path
			case "N":
				args[i] = "20"
			}
		}
		_, errs, code := analyzeCLI(t, "", args...)
		// The two-participant file is too small a pilot for the planner,
		// which says so; what matters here is that every flag is taken.
		if strings.Contains(errs, "flag provided but not defined") || (code == 2 && !strings.Contains(errs, "analysed participant")) {
			t.Errorf("%v: exit %d: %s", args, code, errs)
		}
	}
}
