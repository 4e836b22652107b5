package templates

import "testing"

// TestScaleLabelsNeverBorrowed: a scale without labels shows the
// language's end labels; one with labels of its own shows only those, so
// a study stored with one end label never reads "7 = absolut sicher"
// beside "5 = völlig natürlich".
func TestScaleLabelsNeverBorrowed(t *testing.T) {
	bare := CrowdScale{Points: 7}
	if bare.PointLabel("de", 7) == "" || bare.PointLabel("de", 1) == "" {
		t.Errorf("the default scale lost its end labels: %q, %q", bare.PointLabel("de", 1), bare.PointLabel("de", 7))
	}
	own := CrowdScale{Points: 7, Labels: map[string]string{"1": "völlig unnatürlich", "5": "völlig natürlich"}}
	if got := own.PointLabel("de", 7); got != "" {
		t.Errorf("point 7 of a scale with its own labels reads %q, want no label", got)
	}
	if got := own.labelled("de"); len(got) != 2 || got[0] != "1 = völlig unnatürlich" || got[1] != "5 = völlig natürlich" {
		t.Errorf("the line under the scale is %v", got)
	}
}
