package store

import (
	"context"
	"strings"
	"testing"

	"pragmalab/domain"
)

// TestFrozenDesign: once a crowd study has opened, a save that changes a
// frozen setting — each one in turn, or its language — is refused with the
// setting named and the way forward, and nothing of it is stored; settings
// that are not frozen still save; a draft changes freely, and a study that
// went back to draft after opening stays frozen.
func TestFrozenDesign(t *testing.T) {
	ctx := context.Background()
	f := newCrowdFixture(t, 2, 3)
	stored := func() (string, domain.CrowdSettings) {
		t.Helper()
		st, set, err := f.db.CrowdStudy(ctx, f.study)
		if err != nil {
			t.Fatal(err)
		}
		return st.Lang, set
	}
	// A draft: the scale may change, and back.
	draft := f.s
	draft.ScalePoints, draft.ScaleLabels = 5, map[string]string{"1": "never", "5": "always"}
	if err := f.db.SaveCrowdSettings(ctx, f.study, draft); err != nil {
		t.Fatalf("a draft's scale: %v", err)
	}
	if err := f.db.SaveCrowdSettings(ctx, f.study, f.s); err != nil {
		t.Fatal(err)
	}
	if err := f.db.OpenStudyWithDesign(ctx, f.study, "admin", []byte(`{"format":1}`)); err != nil {
		t.Fatal(err)
	}
	_, opened := stored()
	changes := map[string]func(s *domain.CrowdSettings){
		"scale_points": func(s *domain.CrowdSettings) {
			s.ScalePoints, s.ScaleLabels = 5, map[string]string{"1": "never", "5": "always"}
		},
		"scale_labels":   func(s *domain.CrowdSettings) { s.ScaleLabels = map[string]string{"1": "never", "7": "always"} },
		"question":       func(s *domain.CrowdSettings) { s.Question = "How natural is this sentence?" },
		"conditions":     func(s *domain.CrowdSettings) { s.Conditions = append(s.Conditions, "negation") },
		"batch_size":     func(s *domain.CrowdSettings) { s.BatchSize++ },
		"check_high_min": func(s *domain.CrowdSettings) { s.CheckHighMin = 6 },
		"check_low_max":  func(s *domain.CrowdSettings) { s.CheckLowMax = 2 },
		"training": func(s *domain.CrowdSettings) {
			s.Training = []domain.CrowdTrainingSpec{{Key: "it002", Condition: "trigger"}}
		},
		"machine_check": func(s *domain.CrowdSettings) { s.MachineCheck = !s.MachineCheck },
		"questionnaire": func(s *domain.CrowdSettings) { s.Questionnaire.Age = !s.Questionnaire.Age },
		"title":         func(s *domain.CrowdSettings) { s.Title = "A new title" },
		"intro":         func(s *domain.CrowdSettings) { s.Intro = "A new introduction" },
		"consent":       func(s *domain.CrowdSettings) { s.Consent = "A new consent text" },
	}
	for _, name := range domain.FrozenCrowdSettingNames() {
		if name == "lang" {
			continue
		}
		change, ok := changes[name]
		if !ok {
			t.Errorf("no change tried for frozen setting %s", name)
			continue
		}
		next := opened
		next.ScaleLabels = nil
		change(&next)
		err := f.db.SaveCrowdSettings(ctx, f.study, next)
		if domain.ErrorCode(err) != domain.ECONFLICT || !strings.Contains(domain.ErrorMessage(err), name) || !strings.Contains(domain.ErrorMessage(err), "clone") {
			t.Errorf("%s changed on an open study: %v", name, err)
		}
		if _, now := stored(); domain.FrozenCrowdChanges(opened, now) != nil || now.Quota != opened.Quota {
			t.Errorf("%s: the refused save changed the stored settings", name)
		}
	}
	if err := f.db.SaveCrowdStudy(ctx, f.study, "it", opened); domain.ErrorCode(err) != domain.ECONFLICT || !strings.Contains(domain.ErrorMessage(err), "lang") {
		t.Errorf("the language changed on an open study: %v", err)
	}
	// What is not frozen still saves, through both ways in.
	next := opened
	next.Quota, next.CompletionCode, next.ExcludeFastPercent = opened.Quota+3, "NEWCODE", 40
	if err := f.db.SaveCrowdStudy(ctx, f.study, "en", next); err != nil {
		t.Fatalf("quota, code and an exclusion rule: %v", err)
	}
	if lang, now := stored(); lang != "en" || now.Quota != opened.Quota+3 || now.CompletionCode != "NEWCODE" {
		t.Errorf("the save of what is not frozen was not stored: %s %+v", lang, now)
	}
	// Closed, and even back to draft: still the design it opened with.
	for _, state := range []string{domain.StateClosed, domain.StateDraft} {
		if err := f.db.SetStudyState(ctx, f.study, state, "admin"); err != nil {
			t.Fatal(err)
		}
		changed := opened
		changed.ScalePoints, changed.ScaleLabels = 5, map[string]string{"1": "never", "5": "always"}
		if err := f.db.SaveCrowdSettings(ctx, f.study, changed); domain.ErrorCode(err) != domain.ECONFLICT {
			t.Errorf("%s after opening: scale change gave %v, want a refusal", state, err)
		}
	}
}

// TestOpeningDesignKept: the design a study opened with is kept byte for
// byte at its first opening and never replaced by a later one.
func TestOpeningDesignKept(t *testing.T) {
	ctx := context.Background()
	f := newCrowdFixture(t, 1, 3)
	if _, _, err := f.db.OpeningDesign(ctx, f.study); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Fatalf("a draft's opening design: %v", err)
	}
	first := []byte("{\n  \"format\": 1,\n  \"name\": \"crowd\"\n}\n")
	if err := f.db.OpenStudyWithDesign(ctx, f.study, "admin", first); err != nil {
		t.Fatal(err)
	}
	if err := f.db.SetStudyState(ctx, f.study, domain.StateClosed, "admin"); err != nil {
		t.Fatal(err)
	}
	if err := f.db.OpenStudyWithDesign(ctx, f.study, "admin", []byte(`{"format": 2}`)); err != nil {
		t.Fatal(err)
	}
	got, at, err := f.db.OpeningDesign(ctx, f.study)
	if err != nil || string(got) != string(first) || at == "" {
		t.Errorf("kept %q at %q (%v), want the first opening's %q", got, at, err, first)
	}
	if ok, err := f.db.HasOpeningDesign(ctx, f.study); !ok || err != nil {
		t.Errorf("HasOpeningDesign = %v, %v", ok, err)
	}
}
