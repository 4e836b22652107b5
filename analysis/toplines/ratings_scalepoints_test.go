package toplines

import (
	"strings"
	"testing"
)

const scaleHeader = "participant_id,batch_id,item_id,item_type,condition,rating,check"

// TestRatingsOnTheirScale: a rating outside the file's scale is refused
// naming its line: the scale_points column's, else 7 points unless
// ReadOptions.ScalePoints (--scale-points) says otherwise (#45 §6, §3).
func TestRatingsOnTheirScale(t *testing.T) {
	for _, c := range []struct {
		name   string
		file   string
		opt    ReadOptions
		points int    // the scale read, when accepted
		want   string // the error, when refused
	}{
		{"8 in a 7-point file", scaleHeader + ",scale_points\np1,B1,s1,scalar,trigger,7,,7\np1,B1,s2,scalar,cancel,8,,7\n", ReadOptions{}, 0,
			`line 3, column "rating": rating 8 is outside the 7-point scale (1–7; the file's scale_points)`},
		{"8 without the column", scaleHeader + "\np1,B1,s1,scalar,trigger,8,\n", ReadOptions{}, 0,
			`line 2, column "rating": rating 8 is outside the 7-point scale (1–7; a file without scale_points is read as 7 points unless --scale-points says otherwise)`},
		{"8 without the column, 9 points said", scaleHeader + "\np1,B1,s1,scalar,trigger,8,\n", ReadOptions{ScalePoints: 9}, 9, ""},
		{"6 on 5 points said", scaleHeader + "\np1,B1,s1,scalar,trigger,6,\n", ReadOptions{ScalePoints: 5}, 0,
			`rating 6 is outside the 5-point scale (1–5; --scale-points)`},
		{"11 on 11 points", scaleHeader + ",scale_points\np1,B1,s1,scalar,trigger,11,,11\n", ReadOptions{}, 11, ""},
		{"the column against the flag", scaleHeader + ",scale_points\np1,B1,s1,scalar,trigger,3,,5\n", ReadOptions{ScalePoints: 7}, 0,
			`column "scale_points": the file says 5 points but --scale-points says 7`},
		{"the column agreeing with the flag", scaleHeader + ",scale_points\np1,B1,s1,scalar,trigger,3,,5\n", ReadOptions{ScalePoints: 5}, 5, ""},
		{"two scales", scaleHeader + ",scale_points\np1,B1,s1,scalar,trigger,3,,5\np1,B1,s2,scalar,cancel,3,,7\n", ReadOptions{}, 0,
			`line 3, column "scale_points": 7 points here but 5 on line 2`},
		{"not a scale", scaleHeader + ",scale_points\np1,B1,s1,scalar,trigger,1,,1\n", ReadOptions{}, 0,
			`scale_points "1" is not a whole number of points from 2 to 11`},
		{"an empty scale after one", scaleHeader + ",scale_points\np1,B1,s1,scalar,trigger,3,,5\np1,B1,s2,scalar,cancel,3,,\n", ReadOptions{}, 0,
			`line 3, column "scale_points": empty, but line 2 gives the scale`},
		{"a check on its scale", scaleHeader + ",scale_points\np1,B1,c1,,,5,high,5\np1,B1,s1,scalar,trigger,3,,5\n", ReadOptions{}, 5, ""},
	} {
		rs, err := ReadRatingsWith(strings.NewReader(c.file), c.opt)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want == "" && rs.ScalePoints != c.points:
			t.Errorf("%s: read on %d points, want %d", c.name, rs.ScalePoints, c.points)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
