package recruit

import (
	"slices"
	"testing"

	"pragmalab/store"
)

// TestRecipients pins who each message selection reaches: only people
// with a submission; one participant also among those who never reached
// pragmalab.
func TestRecipients(t *testing.T) {
	rev := &Review{
		Rows: []ReviewRow{
			{PID: "Done1", Here: store.CrowdCompleted, SubmissionID: "s1"},
			{PID: "Excl1", Here: store.CrowdCompleted, SubmissionID: "s2", Excluded: true},
			{PID: "Left1", Here: store.CrowdActive, SubmissionID: "s3"},
			{PID: "NoSub", Here: store.CrowdCompleted},
		},
		NeverReached: []ReviewRow{{PID: "Away1", SubmissionID: "s4"}},
	}
	for _, tc := range []struct {
		selection, pid string
		want           []string
	}{
		{ToCompleted, "", []string{"Done1", "Excl1"}},
		{ToExcluded, "", []string{"Excl1"}},
		{ToUnfinished, "", []string{"Left1"}},
		{ToOne, " left1 ", []string{"Left1"}},
		{ToOne, "away1", []string{"Away1"}},
		{ToOne, "NoSub", nil},
		{"everyone", "", nil},
	} {
		got, err := rev.recipients(tc.selection, tc.pid)
		if (err != nil) != (tc.want == nil) || !slices.Equal(got, tc.want) {
			t.Errorf("recipients(%q, %q) = %v, %v; want %v", tc.selection, tc.pid, got, err, tc.want)
		}
	}
}
