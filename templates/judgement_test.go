package templates

import (
	"bytes"
	"context"
	"html"
	"regexp"
	"strings"
	"testing"

	"pragmalab/domain"
)

// TestJudgementScreenWording: a judgement study's rating screen and its
// practice feedback, in every shipped language, follow the study's scale
// and speak neutrally (docs/studies.md#judgement-practice): a range is
// named as the researcher set it (2 to 3, or the point 4), the question is
// the judgement one, the labels are the study's, and nothing of the
// likelihood study — its belief, its "likely side", its 7 points — shows.
func TestJudgementScreenWording(t *testing.T) {
	set := domain.DefaultJudgementSettings()
	set.Conditions = []string{"a", "b"}
	set.ScalePoints, set.CheckHighMin, set.CheckLowMax = 4, 3, 2
	set.ScaleLabels = map[string]string{"1": "odd", "4": "fine"}
	likely := regexp.MustCompile(`(?i)likely|wahrscheinlich|probabil|7`)
	for _, lang := range []string{"en", "de", "it"} {
		for _, c := range []struct {
			expect domain.PracticeRange
			want   []string
		}{
			{domain.PracticeRange{From: 2, To: 3}, []string{"2", "3"}},
			{domain.PracticeRange{From: 4, To: 4}, []string{"4"}},
		} {
			v := CrowdItemView{Lang: lang, Action: "/s/1/training", Training: true, Retry: true, Attempt: 1, Position: 1, Total: 2,
				Utterance: "The sentence.", Judgement: true, Expect: c.expect, Scale: ScaleOf(set)}
			var b bytes.Buffer
			if err := CrowdItem(v).Render(context.Background(), &b); err != nil {
				t.Fatal(err)
			}
			page := html.UnescapeString(b.String())
			fb := regexp.MustCompile(`data-testid="try-again">([^<]*)<`).FindStringSubmatch(page)
			if fb == nil {
				t.Fatalf("%s: no feedback", lang)
			}
			for _, w := range c.want {
				if !strings.Contains(fb[1], w) {
					t.Errorf("%s: feedback %q does not name %s", lang, fb[1], w)
				}
			}
			if likely.MatchString(fb[1]) || strings.Contains(page, `data-testid="belief"`) {
				t.Errorf("%s: the likelihood study's wording on a judgement screen: %q", lang, fb[1])
			}
			if c.expect.From == 2 && strings.Contains(fb[1], "4") {
				t.Errorf("%s: feedback %q names a point outside 2–3", lang, fb[1])
			}
			for _, want := range []string{CT(lang, "j_question"), "1 = odd", "4 = fine", `value="4"`, CT(lang, "j_label_utterance")} {
				if !strings.Contains(page, want) {
					t.Errorf("%s: the screen lacks %q", lang, want)
				}
			}
			if strings.Contains(page, `value="5"`) || strings.Contains(page, CT(lang, "question")) {
				t.Errorf("%s: the screen offers a fifth point or the likelihood question", lang)
			}
		}
	}
}
