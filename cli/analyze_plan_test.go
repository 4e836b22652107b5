package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pragmalab/analysis/plan"
)

// pilotFile writes a pilot of 40 participants for analyze plan.
func pilotFile(t *testing.T) string {
	t.Helper()
	var b bytes.Buffer
	if err := plan.WriteSyntheticRatings(&b, 2000, 40, 7); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "pilot.csv")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestAnalyzePlanRefusesSizes: every size flag beyond the planner's bounds
// is refused with exit status 2 and a sentence naming the flag and its
// limit, before the pilot is read (docs/cli.md#analyze-plan: --participants 1000000000
// took 24 GB, --draws 1e9 ran for ever).
func TestAnalyzePlanRefusesSizes(t *testing.T) {
	pilot := pilotFile(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--participants", "1000000000"}, "--participants: 1000000000 is not a number of participants the planner simulates (1 to 5000)"},
		{[]string{"--participants", "1e9"}, "--participants: 1e9 is more than the planner simulates (1 to 5000)"},
		{[]string{"--participants", "120,0"}, "--participants: 0 is not a number of participants the planner simulates (1 to 5000)"},
		{[]string{"--participants", "120,many"}, `--participants: "many" is not a number of participants`},
		{[]string{"--participants", "1,2,3,4,5,6,7,8,9,10,11,12,13"}, "--participants: 13 numbers of participants; the planner takes at most 12"},
		{[]string{"--participants", "120", "--draws", "1000000000"}, "--draws: 1000000000 is not a number of simulated studies the planner makes (1 to 50)"},
		{[]string{"--participants", "120", "--draws", "0"}, "--draws: 0 is not"},
		{[]string{"--participants", "120", "--bootstrap", "100000000"}, "--bootstrap: 100000000 replicates; the planner takes 100 to 5000"},
		{[]string{"--participants", "120", "--refits", "1000"}, "--refits: 1000 re-fitted pilots; the planner takes 0 (none) to 100"},
		{[]string{"--participants", "120", "--refits", "-1"}, "--refits: -1 re-fitted pilots"},
		{[]string{"--participants", "120", "--items", "100000000"}, "--items: 100000000 is not a number of items the planner simulates (0 for the pilot's, or 1 to 5000)"},
		{[]string{"--target-width", "0"}, "--target-width: the target width 0 is not a width"},
		{[]string{"--target-width", "NaN"}, "--target-width: the target width NaN is not a width"},
		{[]string{"--target-width", "0.1", "--participants", "120"}, "one of --participants or --target-width"},
		{[]string{"--target-width", "0.1", "--quantity", "kappa"}, `--quantity: "kappa" is not a topline`},
	} {
		code, out, errOut := runCLI(t, "", nil, append([]string{"analyze", "plan", "--ratings", pilot}, c.args...)...)
		if code != 2 || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.args, code, out, errOut, c.want)
		}
	}
}

// TestAnalyzePlanStopsOnSignal: the context cli.Main cancels on SIGINT or
// SIGTERM stops the plan, which prints nothing and says it was
// interrupted (exit 1).
func TestAnalyzePlanStopsOnSignal(t *testing.T) {
	pilot := pilotFile(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	env := &Env{getenv: func(string) string { return "" }, stdin: strings.NewReader(""), stdout: &out, stderr: &errb}
	code := exitCode(env.stderr, Run(ctx, []string{"analyze", "plan", "--ratings", pilot, "--participants", "5000", "--draws", "50"}, env))
	if code != 1 || out.Len() != 0 || !strings.Contains(errb.String(), "analyze plan: interrupted") {
		t.Errorf("cancelled: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}

// TestAnalyzePlanTargetWidth: --target-width prints the participants one
// topline's interval needs, and its JSON the simulated points.
func TestAnalyzePlanTargetWidth(t *testing.T) {
	pilot := pilotFile(t)
	args := []string{"analyze", "plan", "--ratings", pilot, "--target-width", "0.3", "--quantity", "belief_update", "--draws", "2", "--bootstrap", "200"}
	code, out, errOut := runCLI(t, "", nil, args...)
	if code != 0 || !strings.Contains(out, "A 95% interval 0.300 wide takes about") || !strings.Contains(out, "simulated participants") || !strings.Contains(out, "The planned width is uncertain: with ") {
		t.Fatalf("exit %d, stderr %q, stdout:\n%s", code, errOut, out)
	}
	code, out, errOut = runCLI(t, "", nil, append(args, "--json")...)
	var wp plan.WidthPlan
	if code != 0 || json.Unmarshal([]byte(out), &wp) != nil || !wp.Reachable || wp.Participants < 1 || len(wp.Points) < 2 || wp.Quantity != "belief_update" {
		t.Fatalf("--json: exit %d, stderr %q, plan %+v", code, errOut, wp)
	}
	// the width's range over re-fitted pilots holds the planned width
	// (docs/statistics.md#how-sure-is-a-planned-width)
	if r := wp.WidthRange; r == nil || r.Low > wp.Width || r.High < wp.Width || r.High <= r.Low {
		t.Errorf("--json: width %.3f, range %+v", wp.Width, wp.WidthRange)
	}
}

// TestAnalyzePlanParticipants: --participants prints one table per N,
// the observed r and the disattenuated r among the rows.
func TestAnalyzePlanParticipants(t *testing.T) {
	pilot := pilotFile(t)
	code, out, errOut := runCLI(t, "", nil, "analyze", "plan", "--ratings", pilot, "--participants", "60,240", "--draws", "2", "--bootstrap", "200")
	if code != 0 || !strings.Contains(out, "\n240 participants,") || !strings.Contains(out, "pearson_r ") || !strings.Contains(out, "pearson_r_disattenuated ") || !strings.Contains(out, "width may be") {
		t.Fatalf("exit %d, stderr %q, stdout:\n%s", code, errOut, out)
	}
	t.Log(out)
	// --json: each plan's width_range holds the planned width, per type
	// and quantity (docs/statistics.md#how-sure-is-a-planned-width)
	code, out, errOut = runCLI(t, "", nil, "analyze", "plan", "--ratings", pilot, "--participants", "240", "--draws", "2", "--bootstrap", "200", "--json")
	var rep plan.PlanReport
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || len(rep.Plans) != 1 {
		t.Fatalf("--json: exit %d, stderr %q", code, errOut)
	}
	ranged := 0
	for typ, tt := range rep.Plans[0].ByType {
		for _, q := range plan.PlanQuantities {
			_, ci := plan.Quantity(tt, q)
			r := rep.Plans[0].WidthRange[typ][q]
			if ci == nil || r == nil {
				continue
			}
			ranged++
			if w := ci[1] - ci[0]; r.Low > w || r.High < w {
				t.Errorf("%s %s: width %.3f outside its range %+v", typ, q, w, r)
			}
		}
	}
	if ranged < 10 {
		t.Errorf("only %d widths have a range: %+v", ranged, rep.Plans[0].WidthRange)
	}
}
