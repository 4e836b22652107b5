package kept

import (
	"errors"
	"slices"
	"testing"
)

// TestCacheBounded: the cache keeps the ids looked at last, and not a
// computation that failed.
func TestCacheBounded(t *testing.T) {
	c := New[int, string](3)
	s := "value"
	compute := func() (*string, error) { return &s, nil }
	for id := range int64(10) {
		c.Get(id, 1, compute)
	}
	c.Get(7, 1, compute) // used again: kept over 8
	c.Get(10, 1, compute)
	if got := c.Kept(); !slices.Equal(got, []int64{9, 7, 10}) {
		t.Errorf("kept %v, want 9, 7 and 10", got)
	}
	if c.Computed() != 11 {
		t.Errorf("computed %d, want 11", c.Computed())
	}
	if _, err := c.Get(11, 1, func() (*string, error) { return nil, errors.New("disk on fire") }); err == nil {
		t.Fatal("the failure was not returned")
	}
	if v, err := c.Get(11, 1, compute); err != nil || v == nil || c.Computed() != 13 {
		t.Errorf("after a failure: %v %v, computed %d, want a new computation", v, err, c.Computed())
	}
	// A new key for a kept id computes again.
	if c.Get(11, 2, compute); c.Computed() != 14 {
		t.Errorf("a new key was not computed: computed %d, want 14", c.Computed())
	}
}
