package studies

import (
	"strings"
	"testing"

	"pragmalab/domain"
)

func TestReviewDecision(t *testing.T) {
	flags := []domain.Flag{
		{Annotator: "Ada", AltImplicature: "better implicature"},
		{Annotator: "Bea", AltCancellation: "better cancellation"},
	}
	for _, tc := range []struct {
		name                 string
		c                    ReviewChoice
		decision, impl, canc string
		note, problem        string
	}{
		{name: "nothing chosen", problem: "Nothing was chosen"},
		{name: "keep both", c: ReviewChoice{Implicature: "keep", Cancellation: "keep"}, decision: domain.ReviewKept},
		{name: "an expert's alternative", c: ReviewChoice{Implicature: "0", Cancellation: "keep"},
			decision: domain.ReviewAccepted, impl: "better implicature", note: "implicature from Ada"},
		{name: "own fix wins over an alternative", c: ReviewChoice{Implicature: "own", OwnImplicature: "  mine ", Cancellation: "1"},
			decision: domain.ReviewOwn, impl: "mine", canc: "better cancellation", note: "own implicature; cancellation from Bea"},
		{name: "own fix left empty", c: ReviewChoice{Implicature: "own"}, problem: "type it in the box"},
		{name: "an alternative nobody typed", c: ReviewChoice{Cancellation: "0"}, problem: "no longer exists"},
		{name: "an alternative out of range", c: ReviewChoice{Implicature: "7"}, problem: "no longer exists"},
	} {
		d, impl, canc, note, problem := reviewDecision(tc.c, flags)
		if tc.problem != "" {
			if !strings.Contains(problem, tc.problem) || d != "" {
				t.Errorf("%s: decision %q, problem %q; want the problem %q", tc.name, d, problem, tc.problem)
			}
			continue
		}
		if problem != "" || d != tc.decision || impl != tc.impl || canc != tc.canc || note != tc.note {
			t.Errorf("%s: got %q %q %q %q (problem %q); want %q %q %q %q", tc.name, d, impl, canc, note, problem, tc.decision, tc.impl, tc.canc, tc.note)
		}
	}
}
