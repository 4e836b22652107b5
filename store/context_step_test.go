package store

import (
	"testing"

	"pragmalab/domain"
)

// TestContextStep walks a question of three sentences (two can be
// revealed) through the actions, at a study limit of 5.
func TestContextStep(t *testing.T) {
	q := domain.ContextQuestion{}
	q.Passage.Sentences = []string{"a", "b", "c"}
	steps := []struct {
		action     string
		write      bool
		shown      int
		sufficient string
	}{
		{domain.ContextMore, true, 1, ""},
		{domain.ContextMore, true, 2, ""},
		{domain.ContextMore, true, 2, "no"}, // at the passage's limit: final
		{domain.ContextMore, false, 2, "no"},
		{domain.ContextRestart, true, 0, ""},
		{domain.ContextSufficient, true, 0, "yes"},
	}
	for i, st := range steps {
		if got := contextStep(&q, st.action, 5); got != st.write || q.Shown != st.shown || q.Sufficient != st.sufficient {
			t.Fatalf("step %d (%s): write %v, shown %d, sufficient %q; want %v, %d, %q", i, st.action, got, q.Shown, q.Sufficient, st.write, st.shown, st.sufficient)
		}
	}
}
