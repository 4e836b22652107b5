package templates

import (
	"bytes"
	"context"
	"html"
	"strings"
	"testing"

	"pragmalab/domain"
)

// TestJudgementPracticeIntroCountsItsItems: the README's German study
// marks one practice item (docs/studies.md#judgement-practice); its screen,
// "Übungsfrage 1 von 1", no longer opens with "Zuerst einige Übungssätze"
// ("first a few practice sentences"), in any language, with or without an
// expected range. Two practice items still say "a few".
func TestJudgementPracticeIntroCountsItsItems(t *testing.T) {
	set := domain.DefaultJudgementSettings()
	set.Conditions = []string{"a", "b"}
	few := map[string]string{"en": "a few", "de": "einige", "it": "alcune"}
	for _, lang := range []string{"en", "de", "it"} {
		for _, expect := range []domain.PracticeRange{{From: 4, To: 5}, {}} {
			for _, total := range []int{1, 2} {
				v := CrowdItemView{Lang: lang, Action: "/s/1/training", Training: true, Position: 1, Total: total,
					Utterance: "Der Satz.", Judgement: true, Expect: expect, Scale: ScaleOf(set)}
				var b bytes.Buffer
				if err := CrowdItem(v).Render(context.Background(), &b); err != nil {
					t.Fatal(err)
				}
				page := html.UnescapeString(b.String())
				key := "j_training_intro"
				if expect.Any() {
					key += "_any"
				}
				if total == 1 {
					key += "_single"
				}
				if !strings.Contains(page, CT(lang, key)) {
					t.Errorf("%s, %d practice items, range %v: the intro is not %s", lang, total, expect, key)
				}
				if got := strings.Contains(page, few[lang]); got != (total > 1) {
					t.Errorf("%s, %d practice items, range %v: says %q: %v", lang, total, expect, few[lang], got)
				}
			}
		}
	}
}
