package store

import (
	"context"
	"strings"
	"testing"

	"pragmalab/domain"
)

// TestInvisibleNamesRefused (docs/deploy.md#one-rule-for-text): a study or an expert named
// with a Hangul filler or a Braille blank — nothing visible on the
// dashboard or the people page — is refused, and nothing is stored.
func TestInvisibleNamesRefused(t *testing.T) {
	ctx := context.Background()
	db := mustOpenDB(t)
	s := &domain.Study{Kind: domain.KindExpert, Name: "Visible", Lang: "en"}
	if err := db.CreateStudy(ctx, s); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"\u3164", "\u2800", "\u115f\u1160", "\uffa0", " \u3164 ", "Alice\u3164"} {
		if err := db.CreateStudy(ctx, &domain.Study{Kind: domain.KindExpert, Name: n, Lang: "en"}); err == nil || domain.ErrorCode(err) != domain.EINVALID {
			t.Errorf("a study named %q: %v", n, err)
		}
		if err := db.RenameStudy(ctx, s.ID, n); err == nil || !strings.Contains(err.Error(), "name") {
			t.Errorf("a study renamed %q: %v", n, err)
		}
		if _, err := db.CreateAnnotator(ctx, s.ID, n); err == nil || domain.ErrorCode(err) != domain.EINVALID {
			t.Errorf("an expert named %q: %v", n, err)
		}
	}
	if ss, _ := db.Studies(ctx); len(ss) != 1 || ss[0].Name != "Visible" {
		t.Errorf("studies after the refusals: %+v", ss)
	}
	if as, _ := db.Annotators(ctx, s.ID); len(as) != 0 {
		t.Errorf("%d experts stored with invisible names", len(as))
	}
}
