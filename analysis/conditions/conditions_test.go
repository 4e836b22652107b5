package conditions

import (
	"math"
	"strings"
	"testing"

	"pragmalab/analysis"
)

func read(t *testing.T, csv string, opt ReadOptions) *Ratings {
	t.Helper()
	rs, err := ReadRatings(strings.NewReader(csv), opt)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

var defaults = Options{HighPass: 5, LowPass: 3, MaxFailed: 3}

// In a Latin square every participant and item is in both conditions
// equally often: the difference within participants and items is the
// difference of the two means.
func TestDifferenceInALatinSquareIsTheDifferenceOfMeans(t *testing.T) {
	rs := simStudy(analysis.NewRand(7), 12, 8, [2]float64{3, 4.5}, 0.8, 0.7, 1)
	res, err := Compute(rs, defaults)
	if err != nil {
		t.Fatal(err)
	}
	d := res.Differences[0]
	want := *res.Conditions[1].MeanRating - *res.Conditions[0].MeanRating
	if d.AdjustedFor != AdjustBoth || math.Abs(*d.MeanRating-want) > 1e-12 {
		t.Errorf("difference %v within %q, want the difference of means %v within participants and items", *d.MeanRating, d.AdjustedFor, want)
	}
	if d.Condition != "b" || d.Versus != "a" || d.ParticipantsInBoth != 12 || d.ItemsInBoth != 8 {
		t.Errorf("difference %+v: want b minus a, 12 participants and 8 items in both", d)
	}
}

// A between-participants design shares only items: the participant
// effects cannot be told from the condition's, and the fit leaves them
// out; with nothing shared it is the plain difference of means.
func TestDifferenceWithoutSharedParticipants(t *testing.T) {
	between := "participant_id,item_id,condition,rating,check\n" +
		"p1,i1,a,2,\np1,i2,a,3,\np2,i1,a,1,\np2,i2,a,3,\np3,i1,b,5,\np3,i2,b,4,\np4,i1,b,4,\np4,i2,b,6,\n"
	res, err := Compute(read(t, between, ReadOptions{}), defaults)
	if err != nil {
		t.Fatal(err)
	}
	d := res.Differences[0]
	if d.AdjustedFor != AdjustItems || math.Abs(*d.MeanRating-2.5) > 1e-12 || d.ParticipantsInBoth != 0 || d.ItemsInBoth != 2 {
		t.Errorf("between participants: %v within %q (%d participants, %d items in both), want 2.5 within items", *d.MeanRating, d.AdjustedFor, d.ParticipantsInBoth, d.ItemsInBoth)
	}
	apart := "participant_id,item_id,condition,rating,check\n" +
		"p1,i1,a,2,\np1,i2,a,3,\np2,i1,a,1,\np2,i2,a,3,\np3,i3,b,5,\np3,i4,b,4,\np4,i3,b,4,\np4,i4,b,6,\n"
	res, err = Compute(read(t, apart, ReadOptions{}), defaults)
	if err != nil {
		t.Fatal(err)
	}
	if d := res.Differences[0]; d.AdjustedFor != AdjustNothing || math.Abs(*d.MeanRating-2.5) > 1e-12 {
		t.Errorf("nothing shared: %v within %q, want 2.5 within nothing", *d.MeanRating, d.AdjustedFor)
	}
}

// Exclusion, checks-only and constant raters, and the reference.
func TestParticipantsAndReference(t *testing.T) {
	csv := "participant_id,item_id,condition,rating,check\n" +
		"p1,i1,x,2,\np1,i2,y,4,\np1,i3,z,3,\np1,c1,,5,high\n" +
		"p2,i1,y,3,\np2,i2,z,3,\np2,i3,x,3,\n" + // constant: no z
		"p3,i1,z,1,\np3,i2,x,5,\np3,i3,y,2,\np3,c1,,1,high\np3,c2,,7,low\np3,c3,,2,high\n" + // 3 failed: excluded
		"p4,c1,,6,high\n"
	res, err := Compute(read(t, csv, ReadOptions{}), Options{HighPass: 5, LowPass: 3, MaxFailed: 3, Reference: "y"})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Participants
	if p.Total != 4 || strings.Join(p.Excluded, ",") != "p3" || strings.Join(p.ChecksOnly, ",") != "p4" || strings.Join(p.ZeroVariance, ",") != "p2" || p.Analysed != 2 {
		t.Fatalf("participants %+v", p)
	}
	x := res.Conditions[0]
	if x.Name != "x" || x.Ratings != 2 || *x.MeanRating != 2.5 || x.ZRatings != 1 || x.Distribution[1].Count != 1 || x.Distribution[2].Count != 1 {
		t.Errorf("condition x: %+v", x)
	}
	// p1's z of 2 among 2, 4, 3: (2 − 3) / √(2/3).
	if want := -1 / math.Sqrt(2.0/3); math.Abs(*x.MeanZ-want) > 1e-12 {
		t.Errorf("mean z of x %v, want %v", *x.MeanZ, want)
	}
	if x.MeanRatingCI == nil || x.MeanZCI != nil || x.IntervalsNA["mean_z_ci95"] != "fewer than 2 participants" {
		t.Errorf("x has one z rater: want no z interval and the reason, got %v %v", x.MeanZCI, x.IntervalsNA)
	}
	if len(res.Differences) != 2 || res.Differences[0].Condition != "x" || res.Differences[0].Versus != "y" || res.Differences[1].Condition != "z" {
		t.Errorf("differences against y: %+v", res.Differences)
	}
	if _, err := Compute(read(t, csv, ReadOptions{}), Options{Reference: "w"}); err == nil || !strings.Contains(err.Error(), `"w" is not a condition`) {
		t.Errorf("an unknown reference: %v", err)
	}
}
