package studies

import (
	"bytes"
	"context"
	"encoding/csv"
	"pragmalab/domain"
	"pragmalab/itemfiles"
	"strings"
	"testing"

	"pragmalab/csvsafe"
	"pragmalab/store"
)

func explainFixture(t *testing.T) (*store.DB, *domain.Study) {
	t.Helper()
	db := mustOpenDB(t)
	s := mustPassageStudy(t, db, domain.KindExplain)
	if err := db.ImportPassages(context.Background(), s.ID, mustParseSample(t)); err != nil {
		t.Fatal(err)
	}
	return db, s
}

func TestParseOutputsCSV(t *testing.T) {
	outs, err := itemfiles.ParseOutputsCSV(strings.NewReader("model,item_id,strategy,output\nm1,22185,zero-shot,\"Gli altri, dice, svendono.\"\nm1,37246,few-shot,\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != 2 || outs[0].ItemKey != "22185" || outs[0].Output != "Gli altri, dice, svendono." || outs[1].Strategy != "few-shot" || outs[1].Output != "" {
		t.Errorf("outs = %+v", outs)
	}
	bad := map[string]string{
		"item_id,strategy,output\n1,a,b\n":               `missing column "model"`,
		"item_id,strategy,model,output\n,a,m,b\n":        `line 2, field "item_id": is empty`,
		"item_id,strategy,model,output\n1,,m,b\n":        `line 2, field "strategy"`,
		"item_id,strategy,model,output\n1,a,m\n":         "line 2: has 3 fields",
		"item_id,strategy,model,output\n":                "no outputs",
		"item_id,strategy,model,output\n1,All,m,b\n":     `line 2, field "strategy": "All" is reserved`,
		"item_id,strategy,model,output\n1,OVERALL,m,b\n": `line 2, field "strategy": "OVERALL" is reserved`,
		"item_id,strategy,model,output\n1,a,ALL,b\n":     `line 2, field "model": "ALL" is reserved`,
		"item_id,strategy,model,output\n1,a,Overall,b\n": `line 2, field "model": "Overall" is reserved`,
		"item_id,strategy,model,output\n1,a,m,b\x00\n":   `line 2, field "output": character 2 is the control character U+0000 (NUL)`,
		"item_id,strategy,model,output\n1,a\x07,m,b\n":   `line 2, field "strategy": character 2`,
	}
	for in, want := range bad {
		if _, err := itemfiles.ParseOutputsCSV(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", in, err, want)
		}
	}
}

// TestOutputsRoundTripFormulaTexts: an output written neutralised (as the
// jobs' results export does) imports as the model wrote it.
func TestOutputsRoundTripFormulaTexts(t *testing.T) {
	var buf bytes.Buffer
	cw := csvsafe.NewWriter(&buf)
	cw.WriteAll([][]string{{"item_id", "strategy", "model", "output"}, {"-7", "zero-shot", "=m", "=1+1"}, {"8", "few-shot", "m", "-foo"}})
	outs, err := itemfiles.ParseOutputsCSV(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if outs[0].ItemKey != "-7" || outs[0].Model != "=m" || outs[0].Output != "=1+1" || outs[1].Output != "-foo" {
		t.Errorf("outputs read back as %+v", outs)
	}
}

func TestImportOutputsAllOrNothing(t *testing.T) {
	db, s := explainFixture(t)
	ctx := context.Background()
	outs := []domain.Output{{ItemKey: "22185", Strategy: "zero-shot", Model: "m", Output: "x"}, {ItemKey: "nope", Strategy: "zero-shot", Model: "m", Output: "y"}}
	err := db.ImportOutputs(ctx, s.ID, outs)
	if err == nil || !strings.Contains(err.Error(), `row 2, field "item_id": no passage "nope"`) {
		t.Fatalf("err = %v", err)
	}
	_, n, _, err := db.ExplainStudyProgress(ctx, s.ID, 1)
	if err != nil || n != 0 {
		t.Fatalf("%d outputs stored after a failed import (%v)", n, err)
	}
	outs[1].ItemKey = "37246"
	if err := db.ImportOutputs(ctx, s.ID, outs); err != nil {
		t.Fatal(err)
	}
	if err := db.ImportOutputs(ctx, s.ID, outs[:1]); domain.ErrorCode(err) != domain.ECONFLICT {
		t.Errorf("same output twice: %v", err)
	}
}

func TestExplainAssignRateExport(t *testing.T) {
	db, s := explainFixture(t)
	ctx := context.Background()
	ps := mustParseSample(t)
	var outs []domain.Output
	for _, strat := range []string{"zero-shot", "few-shot", "cot"} {
		for _, p := range ps[:50] {
			outs = append(outs, domain.Output{ItemKey: p.Key, Strategy: strat, Model: "m", Output: "spiegazione di " + p.Key})
		}
	}
	if err := db.ImportOutputs(ctx, s.ID, outs); err != nil {
		t.Fatal(err)
	}
	seen := map[int64]int{}
	var experts []*domain.Annotator
	for i := range 4 {
		a, err := db.CreateAnnotator(ctx, s.ID, "E"+string(rune('1'+i)))
		if err != nil {
			t.Fatal(err)
		}
		experts = append(experts, a)
		n, err := db.AssignExplainScreens(ctx, s.ID, a.ID, 45, 1)
		if err != nil {
			t.Fatal(err)
		}
		want := min(45, 150-45*i)
		if n != want {
			t.Errorf("expert %d got %d screens, want %d", i+1, n, want)
		}
		screens, err := db.ExplainScreens(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, sc := range screens {
			seen[sc.OutputID]++
		}
	}
	if len(seen) != 150 {
		t.Errorf("%d outputs assigned, want all 150", len(seen))
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("output %d rated by %d experts, want 1 (no overlap asked)", id, n)
		}
	}
	// Overlap 2: a fifth expert gets outputs already rated once.
	e5, _ := db.CreateAnnotator(ctx, s.ID, "E5")
	if n, err := db.AssignExplainScreens(ctx, s.ID, e5.ID, 45, 2); err != nil || n != 45 {
		t.Errorf("overlap 2: %d, %v", n, err)
	}
	first := experts[0]
	if err := db.SaveExplainRating(ctx, first.ID, 1, "partially_correct", 0, domain.Integrity{}); err != nil {
		t.Fatal(err)
	}
	if err := db.SaveExplainRating(ctx, first.ID, 1, "totally_correct", 0, domain.Integrity{}); err != nil { // changed on Back
		t.Fatal(err)
	}
	if err := db.SaveExplainRating(ctx, first.ID, 2, "maybe", 0, domain.Integrity{}); domain.ErrorCode(err) != domain.EINVALID {
		t.Errorf("bad judgment: %v", err)
	}
	if err := db.SaveExplainRating(ctx, first.ID, 46, "totally_wrong", 0, domain.Integrity{}); domain.ErrorCode(err) != domain.ENOTFOUND {
		t.Errorf("screen beyond the assignment: %v", err)
	}
	screens, _ := db.ExplainScreens(ctx, first.ID)
	var buf bytes.Buffer
	if err := db.ExportExplanationRatings(ctx, s.ID, &buf); err != nil {
		t.Fatal(err)
	}
	recs, _ := csv.NewReader(&buf).ReadAll()
	// The answer times follow, then the integrity signals: answered_at
	// from the clock, no shown_at or rt_ms (no page showed the screen
	// here), and no signal (no page's script sent one).
	if len(recs) != 2 || strings.Join(recs[0][6:], ",") != "shown_at,answered_at,rt_ms,untrusted_events,pastes,webdriver,pointer_or_key,honeypot" || strings.Join(recs[1][9:], ",") != ",,,," || recs[1][7] != "2026-11-29T12:00:00.000Z" || recs[1][8] != "" {
		t.Fatalf("export times = %q", recs)
	}
	for i := range recs {
		recs[i] = recs[i][:6]
	}
	want := [][]string{
		{"annotator_id", "item_id", "kind", "strategy", "judgment", "model"},
		{"E1", screens[0].Passage.Key, screens[0].Passage.Kind, screens[0].Strategy, "totally_correct", screens[0].Model},
	}
	if !equalRecords(recs, want) {
		t.Errorf("export = %q\nwant %q", recs, want)
	}
	prog, outputs, short, err := db.ExplainStudyProgress(ctx, s.ID, 1)
	if err != nil || outputs != 150 || short != 0 || len(prog) != 5 || prog[0].Screens != 45 || prog[0].Rated != 1 {
		t.Errorf("progress = %+v, %d, %d, %v", prog, outputs, short, err)
	}
}
