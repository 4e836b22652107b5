package cli

import (
	"strings"
	"testing"
)

// TestAnalyzeDesignVersions: a ratings file holding two design versions
// is refused by analyze conditions and analyze toplines, naming the
// versions (exit 2); --design-version K analyses version K's rows only,
// and an error still names the file's own line
// (docs/studies.md#design-versions, docs/cli.md#analyze-conditions).
func TestAnalyzeDesignVersions(t *testing.T) {
	head := "participant_id,batch_id,item_id,item_type,condition,rating,check,scale_points,design_version\n"
	v1 := "p1,1,s1,scalar,trigger,3,,5,1\np1,1,s2,scalar,cancel,4,,5,1\np2,2,s1,scalar,cancel,2,,5,1\np2,2,s2,scalar,trigger,5,,5,1\n"
	v2 := "p3,3,s1,scalar,trigger,7,,7,2\np3,3,s2,scalar,cancel,6,,7,2\np4,4,s1,scalar,cancel,1,,7,2\np4,4,s2,scalar,trigger,7,,7,2\n"
	in := writeAnalyzeInput(t, "ratings.csv", head+v1+v2)
	for _, cmd := range [][]string{{"conditions"}, {"toplines"}, {"reliability"}, {"reliability", "--by-condition"}} {
		args := append([]string{"analyze"}, append(cmd, "--ratings", in)...)
		out, errOut, code := analyzeCLI(t, "", args...)
		if code != 2 || out != "" || !strings.Contains(errOut, "design versions 1, 2") || !strings.Contains(errOut, "--design-version") {
			t.Errorf("analyze %s of two versions: exit %d, stdout %q, stderr %s", cmd, code, out, errOut)
		}
		if _, errOut, code := analyzeCLI(t, "", append(args, "--design-version", "3")...); code != 2 || !strings.Contains(errOut, "holds ratings of design versions 1, 2") {
			t.Errorf("analyze %s --design-version 3: exit %d: %s", cmd, code, errOut)
		}
	}
	if _, errOut, code := analyzeCLI(t, "", "analyze", "toplines", "--ratings", in, "--design-version", "1"); code != 0 {
		t.Errorf("analyze toplines --design-version 1: exit %d: %s", code, errOut)
	}
	// Version 2 alone: its 7-point scale, its two participants.
	out, errOut, code := analyzeCLI(t, "", "analyze", "conditions", "--ratings", in, "--design-version", "2", "--json")
	if code != 0 {
		t.Fatalf("--design-version 2: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, `"scale_points": 7`) && !strings.Contains(out, `"ScalePoints": 7`) {
		t.Errorf("version 2 is read on its 7-point scale:\n%s", out)
	}
	// A bad row of version 2 is named by its line in the file.
	bad := writeAnalyzeInput(t, "ratings.csv", head+v1+strings.Replace(v2, "p3,3,s1,scalar,trigger,7", "p3,3,s1,scalar,trigger,9", 1))
	if _, errOut, code := analyzeCLI(t, "", "analyze", "conditions", "--ratings", bad, "--design-version", "2"); code != 2 || !strings.Contains(errOut, "line 6") {
		t.Errorf("a rating of 9 on version 2's 7 points: exit %d: %s", code, errOut)
	}
}
