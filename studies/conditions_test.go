package studies

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"pragmalab/domain"
)

// TestUndeclaredConditionRefused: a crowd study declaring trigger and
// cancel refuses an items file whose third line fills a negation text,
// naming the line and field, and stores nothing; the same file imports
// once the study declares negation (docs/studies.md#conditions).
func TestUndeclaredConditionRefused(t *testing.T) {
	ctx := context.Background()
	v := New(mustOpenDB(t), nil)
	s := mustStudy(t, v.db, domain.KindCrowd)
	file := "id,type,context,utterance,implicature,cancellation,negation\n" +
		"s1,scalar,,Some left.,Not all left.,In fact all did.,\n" +
		"s2,scalar,,Most came.,Not all came.,In fact all did.,In fact every one of them came.\n"
	for _, name := range []string{"items.csv", "items.jsonl"} {
		data := []byte(file)
		if name == "items.jsonl" {
			data = []byte(`{"id":"s1","type":"scalar","utterance":"u","implicature":"b","cancellation":"x"}` + "\n" +
				`{"id":"s2","type":"scalar","utterance":"u","implicature":"b","cancellation":"x","neutral":"The weather was fine."}` + "\n")
		}
		_, err := v.ImportItemFile(ctx, s.ID, name, data)
		if err == nil || domain.ErrorCode(err) != domain.EINVALID {
			t.Fatalf("%s: err = %v, want a refusal", name, err)
		}
		want := map[string][]string{"items.csv": {"line 3", `field "negation"`, "does not declare the condition negation"},
			"items.jsonl": {"line 2", `field "neutral"`, "does not declare the condition neutral"}}[name]
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", name, err, w)
			}
		}
		if items, err := v.db.ListItems(ctx, s.ID); err != nil || len(items) != 0 {
			t.Fatalf("%s: %d items stored after a refused file (%v)", name, len(items), err)
		}
	}
	// A corrected file is held to the same rule.
	if _, err := v.UploadCorrectedItems(ctx, s.ID, "items.csv", []byte(file)); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("corrected file: err = %v, want line 3 refused", err)
	}
	// Declared, the same file imports.
	set := domain.DefaultCrowdSettings()
	set.Conditions = []string{domain.ConditionTrigger, domain.ConditionCancel, domain.ConditionNegation}
	if err := v.db.SaveCrowdSettings(ctx, s.ID, set); err != nil {
		t.Fatal(err)
	}
	if n, err := v.ImportItemFile(ctx, s.ID, "items.csv", []byte(file)); err != nil || n != 2 {
		t.Fatalf("declared negation: %d items, %v", n, err)
	}
	// An expert study has no conditions to declare: the file imports.
	e := mustStudy(t, v.db, domain.KindExpert)
	if _, err := v.ImportItemFile(ctx, e.ID, "items.csv", []byte(file)); err != nil {
		t.Errorf("expert study: %v", err)
	}
}

// TestDesignUndeclaredConditionRefused: a design file whose items fill a
// follow-up its settings do not declare creates nothing.
func TestDesignUndeclaredConditionRefused(t *testing.T) {
	ctx := context.Background()
	v := New(mustOpenDB(t), nil)
	d := map[string]any{
		"format": "pragmalab-study-design/1", "kind": domain.KindCrowd, "name": "d", "lang": "en",
		"settings": map[string]any{"conditions": []string{"trigger", "cancel"}},
		"items": []map[string]string{
			{"id": "s1", "type": "scalar", "utterance": "u", "implicature": "b", "cancellation": "x"},
			{"id": "s2", "type": "scalar", "utterance": "u", "implicature": "b", "cancellation": "x", "strengthening": "More so."},
		},
	}
	data, _ := json.Marshal(d)
	_, _, err := v.CreateStudyFromDesign(ctx, data, "")
	if err == nil || !strings.Contains(err.Error(), "item 2") || !strings.Contains(err.Error(), "strengthen") {
		t.Fatalf("err = %v, want item 2 refused for strengthen", err)
	}
	if ss, err := v.db.Studies(ctx); err != nil || len(ss) != 0 {
		t.Fatalf("%d studies made from a refused design (%v)", len(ss), err)
	}
}

// TestItemEditUndeclaredCondition: correcting one item may keep a
// follow-up text it had, but not add one of an undeclared condition.
func TestItemEditUndeclaredCondition(t *testing.T) {
	old := domain.Item{Key: "s1", Negation: "kept"}
	declared := []string{domain.ConditionTrigger, domain.ConditionCancel}
	if err := (domain.Item{Key: "s1", Negation: "kept"}).CheckEditedConditions(old, declared); err != nil {
		t.Errorf("unchanged text refused: %v", err)
	}
	if err := (domain.Item{Key: "s1", Negation: "kept", Neutral: "new"}).CheckEditedConditions(old, declared); err == nil {
		t.Error("a new neutral text of an undeclared condition was accepted")
	}
}
