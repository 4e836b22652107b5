package handlers_test

import (
	"context"
	"fmt"
	"net/url"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"pragmalab/domain"
)

// judgementForm is the settings form of the German judgement study as the
// page sends it.
func judgementForm() url.Values {
	return url.Values{
		"batch_size": {"8"}, "quota": {"5"}, "timeout_minutes": {"60"}, "check_high_min": {"4"},
		"check_low_max": {"2"}, "max_failed_checks": {"3"}, "lang": {"de"}, "completion_code": {"C0MPLETE"},
		"places_per_address": {"0"}, "conditions": {"kontrolle, zielsatz"}, "practice_screen_out": {"0"},
		"scale_points": {"5"}, "scale_labels": {"1 = völlig unnatürlich\n5 = völlig natürlich"},
	}
}

// TestJudgementAdminPages: the create-study form offers the judgement kind;
// a new judgement study cannot open without its conditions and end labels,
// the checklist naming them; the settings form takes the researcher's own
// conditions in one field and refuses a missing end label naming it; the
// study page lists the items by condition with their roles and shows the
// batch plan (docs/studies.md#judgement-study, #judgement-settings).
func TestJudgementAdminPages(t *testing.T) {
	e := newDraftJudgementEnv(t, nil)
	a := e.admin()
	a.get("/admin")
	if !strings.Contains(a.body, `<option value="judgement">Judgement (acceptability / rating)</option>`) {
		t.Fatalf("the create-study form does not offer the judgement kind:\n%.3000s", a.body)
	}
	a.post("/admin/studies", url.Values{"name": {"Neue Studie"}, "kind": {"judgement"}, "lang": {"de"}})
	a.must("settings-form")
	a.must("conditions-field")
	a.must("practice-screen-out")
	if strings.Contains(a.body, `name="training"`) {
		t.Error("a judgement study's settings offer the implicature training list")
	}
	id := studyIDRE.FindStringSubmatch(a.resp.Request.URL.Path)
	if id == nil {
		t.Fatalf("no study page after creating: %s", a.resp.Request.URL)
	}
	page := "/admin/studies/" + id[1]
	a.post(page+"/state", url.Values{"state": {domain.StateOpen}})
	txt := a.text()
	for _, want := range []string{"cannot open yet", "the study's conditions, named in the settings", "a label for the low end of the 7-point scale (point 1)", "a label for the high end of the 7-point scale (point 7)"} {
		if !strings.Contains(txt, want) {
			t.Errorf("the go-live refusal does not name %q:\n%.3000s", want, a.body)
		}
	}

	// The settings: a missing end label is refused naming it, nothing saved.
	form := judgementForm()
	form.Set("scale_labels", "1 = völlig unnatürlich")
	a.post(page+"/crowd/settings", form)
	if !strings.Contains(a.text(), "the high end, point 5 of 5, has no label") {
		t.Errorf("a missing high label was not refused by name:\n%.3000s", a.body)
	}
	a.post(page+"/crowd/settings", judgementForm())
	a.must("flash")
	st, set, err := e.db.CrowdStudy(context.Background(), atoi64(id[1]))
	if err != nil || st.Kind != domain.KindJudgement {
		t.Fatal(st, err)
	}
	if !reflect.DeepEqual(set.Conditions, []string{"kontrolle", "zielsatz"}) || set.ScalePoints != 5 || set.ScaleLabels["5"] != "völlig natürlich" {
		t.Errorf("settings saved = %+v", set)
	}

	// The env's own study: items by condition, roles, and the plan.
	a.get(fmt.Sprintf("/admin/studies/%d", e.study))
	a.must("judgement-items")
	for _, want := range []string{
		"5-point scale · conditions kontrolle, zielsatz · 8 items, 2 attention checks (1 high, 1 low), 2 practice items",
		"Kontext 3:", "Zielsatz 3.", "Kontrollsatz 3.", "check, expected high", "practice, expects 4–5", "practice, any answer",
		"Building with seed 5 now gives 2 batches (2 × 8 items, + 2 attention checks each)",
		"The study has 2 practice items, marked in the items file.",
	} {
		if !strings.Contains(a.text(), want) {
			t.Errorf("the study page lacks %q:\n%.6000s", want, a.body)
		}
	}
	for _, row := range []string{"item-paar03-kontrolle", "item-paar03-zielsatz", "item-check-hoch-zielsatz", "item-uebung-1-kontrolle"} {
		a.must(row)
	}
	if strings.Contains(a.body, "7-point") {
		t.Error("the page of a 5-point study says 7-point")
	}

	// The pages a crowd study has besides: Prolific, progress, the
	// dashboard's participants.
	for _, p := range []string{"/prolific", "/crowd/progress"} {
		if a.get(fmt.Sprintf("/admin/studies/%d%s", e.study, p)); a.resp.StatusCode != 200 {
			t.Errorf("%s of a judgement study: %d", p, a.resp.StatusCode)
		}
	}
	a.get("/admin")
	if !strings.Contains(a.body, `data-label="Participants done / under way"`) {
		t.Errorf("the dashboard does not count a judgement study's participants:\n%.3000s", a.body)
	}
}

// TestJudgementFrozenDesign: once a judgement study has opened, each
// frozen setting — scale, labels, question, conditions, check thresholds,
// batch size — is refused from the settings form, naming it, and nothing
// is saved; its items can be neither replaced, corrected, re-marked nor
// added to (docs/studies.md#frozen-design).
func TestJudgementFrozenDesign(t *testing.T) {
	e := newJudgementEnv(t, nil)
	ctx := context.Background()
	a := e.admin()
	page := fmt.Sprintf("/admin/studies/%d", e.study)
	a.post(page+"/crowd/settings", judgementForm())
	a.must("flash") // the same design saves
	_, before, _ := e.db.CrowdStudy(ctx, e.study)
	itemsBefore, _ := e.db.ListItems(ctx, e.study)
	for _, c := range []struct{ field, value, name string }{
		{"scale_points", "7", "scale_points"},
		{"scale_labels", "1 = ganz unnatürlich\n5 = völlig natürlich", "scale_labels"},
		{"question", "Wie gut klingt der Satz?", "question"},
		{"conditions", "kontrolle, zielsatz, füller", "conditions"},
		{"check_high_min", "5", "check_high_min"},
		{"check_low_max", "1", "check_low_max"},
		{"batch_size", "10", "batch_size"},
	} {
		form := judgementForm()
		form.Set(c.field, c.value)
		if c.field == "scale_points" {
			form.Set("scale_labels", "1 = völlig unnatürlich\n7 = völlig natürlich")
		}
		a.post(page+"/crowd/settings", form)
		if a.resp.StatusCode != 400 || !strings.Contains(a.text(), "its design is frozen") || !strings.Contains(a.text(), c.name) {
			t.Errorf("%s: a change on an open study was not refused by name (%d):\n%.2000s", c.field, a.resp.StatusCode, a.body)
		}
		if _, now, _ := e.db.CrowdStudy(ctx, e.study); !reflect.DeepEqual(now, before) {
			t.Errorf("%s: the refused save changed the settings: %+v", c.field, now)
		}
	}

	pair := itemsBefore[0]
	changed := pair
	changed.Variants = map[string]domain.Variant{"kontrolle": {Sentence: "Anders."}, "zielsatz": {Sentence: "Auch anders."}}
	extra := domain.Item{Key: "neu", Type: domain.TypeJudgement, Variants: map[string]domain.Variant{"kontrolle": {Sentence: "Neu."}, "zielsatz": {Sentence: "Neu!"}}}
	for name, err := range map[string]error{
		"import":  e.db.ImportItems(ctx, e.study, []domain.Item{extra}),
		"re-mark": e.db.SetItemCheck(ctx, e.study, pair.ID, "high"),
		"update":  applyUpdate(e, []domain.Item{changed}),
		"edit":    editErr(e.db.EditItem(ctx, e.study, pair.ID, changed, "")),
	} {
		if domain.ErrorCode(err) != domain.ECONFLICT || !strings.Contains(domain.ErrorMessage(err), "its design is frozen") {
			t.Errorf("%s of an open judgement study's items: got %v, want the frozen-design refusal", name, err)
		}
	}
	if after, _ := e.db.ListItems(ctx, e.study); !reflect.DeepEqual(after, itemsBefore) {
		t.Error("a refused change altered the items")
	}
}

func applyUpdate(e *crowdEnv, items []domain.Item) error {
	u, err := e.db.PreviewItemUpdate(context.Background(), e.study, items)
	if err != nil {
		return err
	}
	_, err = e.db.ApplyItemUpdate(context.Background(), e.study, items, u.Digest, "")
	return err
}

func editErr(_ bool, err error) error { return err }

var studyIDRE = regexp.MustCompile(`^/admin/studies/(\d+)$`)

func atoi64(s string) int64 { n, _ := strconv.ParseInt(s, 10, 64); return n }
