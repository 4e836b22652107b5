package cli

import (
	"strings"
	"testing"
)

// TestAnalyzeRefusesRatingsOffTheScale: since scales became 2–11, a
// rating of 8 in a 7-point study's file passed analyze toplines (exit 0).
// Every analyze command that reads ratings now refuses a rating off the
// file's scale — its scale_points column, else 7 unless --scale-points
// says otherwise — naming the line, with exit 2 (#45 §6, §3).
func TestAnalyzeRefusesRatingsOffTheScale(t *testing.T) {
	withScale := func(points string) string {
		var b strings.Builder
		for i, line := range strings.Split(strings.TrimSpace(cliRatings), "\n") {
			b.WriteString(line)
			if i == 0 {
				b.WriteString(",scale_points\n")
			} else {
				b.WriteString("," + points + "\n")
			}
		}
		return b.String()
	}
	eight := strings.Replace(cliRatings, "p2,B1,s1,scalar,trigger,7,", "p2,B1,s1,scalar,trigger,8,", 1)
	for _, c := range []struct {
		name    string
		content string
		args    []string
		code    int
		want    []string
	}{
		{"8 on the file's 7 points", strings.Replace(withScale("7"), "p2,B1,s1,scalar,trigger,7,,7", "p2,B1,s1,scalar,trigger,8,,7", 1), nil, 2,
			[]string{"line 7", `"rating"`, "rating 8 is outside the 7-point scale"}},
		{"8 without the column", eight, nil, 2, []string{"line 7", "rating 8 is outside the 7-point scale", "--scale-points"}},
		{"8 without the column on 9 points", eight, []string{"--scale-points", "9"}, 0, nil},
		{"the file's 9 points", strings.Replace(withScale("9"), "p2,B1,s1,scalar,trigger,7,,9", "p2,B1,s1,scalar,trigger,8,,9", 1), nil, 0, nil},
		{"the file's 5 points against --scale-points 7", withScale("5"), []string{"--scale-points", "7"}, 2,
			[]string{"line 2", "the file says 5 points but --scale-points says 7"}},
		{"default thresholds off a 4-point file", strings.NewReplacer(",5,", ",4,", ",6,", ",4,", ",7,", ",4,").Replace(withScale("4")), nil, 2,
			[]string{"--high-pass 5 and --low-pass 3 must lie on the file's 4-point scale"}},
		{"overlapping thresholds", cliRatings, []string{"--high-pass", "3", "--low-pass", "4"}, 2, []string{"--low-pass 4 must be below --high-pass 3"}},
	} {
		path := writeAnalyzeInput(t, "ratings.csv", c.content)
		for _, cmd := range []string{"toplines", "reliability", "plan"} {
			args := append([]string{"analyze", cmd, "--ratings", path, "--json"}, c.args...)
			switch cmd {
			case "toplines", "reliability":
				args = append(args, "--within-participant")
			case "plan":
				args = append(args, "--participants", "20", "--bootstrap", "100", "--draws", "1")
			}
			out, errs, code := analyzeCLI(t, "", args...)
			// The little file is no pilot and rates items within
			// participants: plan and reliability are held to the refusals
			// that come before the analysis.
			if cmd != "toplines" && (c.code == 0 || strings.HasPrefix(c.name, "default thresholds")) {
				continue
			}
			if code != c.code {
				t.Errorf("%s, %s: exit %d, want %d: %s", c.name, cmd, code, c.code, errs)
				continue
			}
			if c.code != 0 && out != "" {
				t.Errorf("%s, %s: stdout %q", c.name, cmd, out)
			}
			for _, w := range c.want {
				if !strings.Contains(errs, w) {
					t.Errorf("%s, %s: stderr %q lacks %q", c.name, cmd, errs, w)
				}
			}
		}
	}
}
