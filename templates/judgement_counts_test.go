package templates

import (
	"bytes"
	"context"
	"html"
	"strings"
	"testing"

	"pragmalab/domain"
)

// TestJudgementStudyCountsInTheSingular: the README's judgement study
// (docs/studies.md#judgement-study) marks one practice item; its page says
// "1 practice item" in the study's line and the batches panel, and a
// study with one batch and one attention check says so, not "1 practice
// items", "1 batches", "1 attention checks".
func TestJudgementStudyCountsInTheSingular(t *testing.T) {
	set := domain.DefaultJudgementSettings()
	set.Conditions = []string{"kontrolle", "zielsatz"}
	v := CrowdStudyView{
		Study:    &domain.Study{ID: 5, Kind: domain.KindJudgement, Name: "Meine Urteilsstudie", State: domain.StateDraft},
		Settings: set,
		Items: []domain.Item{
			{ID: 1, Key: "1", Type: domain.TypeJudgement},
			{ID: 2, Key: "hoch", Type: domain.TypeJudgement, Check: "high"},
			{ID: 3, Key: "uebung", Type: domain.TypeJudgement, Training: "4-5"},
		},
		Training: []CrowdTrainingRow{{Key: "uebung", Type: domain.TypeJudgement, Condition: "kontrolle"}},
		Progress: []CrowdBatchRow{{Number: 1, Screens: 2}},
	}
	if got := v.summary(); !strings.Contains(got, "1 item, 1 attention check (1 high, 0 low), 1 practice item,") {
		t.Errorf("the study's line: %q", got)
	}
	var b bytes.Buffer
	if err := CrowdStudy(v).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(b.String())
	if !strings.Contains(page, "1 batch, 1 practice item.") {
		t.Errorf("the batches panel does not say \"1 batch, 1 practice item.\"")
	}
	for _, wrong := range []string{"1 practice items", "1 batches", "1 attention checks", "1 items"} {
		if strings.Contains(page, wrong) {
			t.Errorf("the page says %q", wrong)
		}
	}
}
