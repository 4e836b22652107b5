package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"pragmalab/domain"
	"pragmalab/itemfiles"
	"strings"
	"testing"

	"pragmalab/csvsafe"
	"pragmalab/store"
)

// TestExpertExportRoundTrip stores two experts' judgements on the demo
// items, exports them as the platform does, and analyses the export with
// `pragmalab analyze agreement`: the platform's export is a valid input and
// the figures match what was stored.
func TestExpertExportRoundTrip(t *testing.T) {
	expertRoundTrip(t, []string{"Ada", "Ben"}, "")
}

// TestExpertExportRoundTripFormulaTexts: experts named like formulas and
// item ids starting with "-" are neutralised in the export, so a
// spreadsheet runs nothing, and the analysis still reads them as they are.
func TestExpertExportRoundTripFormulaTexts(t *testing.T) {
	path := expertRoundTrip(t, []string{"-foo", "=1+1"}, "-")
	raw, _ := os.ReadFile(path)
	for _, cell := range []string{"'=1+1", "'-foo", "'-sc1"} {
		if !strings.Contains(string(raw), cell) {
			t.Errorf("the export lacks the neutralised cell %q", cell)
		}
	}
	for _, line := range strings.Split(string(raw), "\n") {
		for _, c := range strings.Split(line, ",") {
			if c != "" && strings.ContainsRune("=+-@", rune(c[0])) && !csvsafe.IsNumber(c) {
				t.Fatalf("a cell a spreadsheet would run: %q in %q", c, line)
			}
		}
	}
}

// expertRoundTrip runs the round trip with two experts of the given names
// (in sorted order) and item ids given a prefix; it returns the export.
func expertRoundTrip(t *testing.T, names []string, keyPrefix string) string {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := store.Open(ctx, filepath.Join(dir, "rt.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := &domain.Study{Kind: domain.KindExpert, Name: "Round trip", Lang: "en"}
	if err := db.CreateStudy(ctx, s); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("demo/items.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	items, err := itemfiles.ParseItemFile("items.jsonl", f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	for i := range items {
		items[i].Key = keyPrefix + items[i].Key
	}
	if err := db.ImportItems(ctx, s.ID, items); err != nil {
		t.Fatal(err)
	}
	stored, _ := db.ListItems(ctx, s.ID)
	var ids []int64
	for _, it := range stored {
		ids = append(ids, it.ID)
	}
	if err := db.SaveBatches(ctx, s.ID, [][]int64{ids}); err != nil {
		t.Fatal(err)
	}
	batches, _ := db.Batches(ctx, s.ID)
	var experts []*domain.Annotator
	for _, name := range names {
		a, err := db.CreateAnnotator(ctx, s.ID, name)
		if err != nil {
			t.Fatal(err)
		}
		experts = append(experts, a)
	}
	if err := db.AssignRound1(ctx, s.ID, batches[0].ID, []int64{experts[0].ID, experts[1].ID}); err != nil {
		t.Fatal(err)
	}
	// Ada finds every third data item implausible; Ben every second
	// cancellation incorrect. Confusion indices: 0 = yes, 1 = no.
	var plaus, canc [2][2]int
	answers := map[int64][2]domain.Judgement{}
	n := 0
	for _, it := range stored {
		ada := domain.Judgement{Plausible: "yes", CancellationCorrect: "yes"}
		ben := ada
		if it.Check == "" {
			n++
			if n%3 == 0 {
				ada = domain.Judgement{Plausible: "no", AltImplicature: "another", AltCancellation: "another"}
			}
			if n%2 == 0 {
				ben.CancellationCorrect, ben.AltCancellation = "no", "better"
			}
			pa, pb := judgementIndex(ada.Plausible), judgementIndex(ben.Plausible)
			plaus[pa][pb]++
			if pa == 0 && pb == 0 {
				canc[judgementIndex(ada.CancellationCorrect)][judgementIndex(ben.CancellationCorrect)]++
			}
		}
		answers[it.ID] = [2]domain.Judgement{ada, ben}
	}
	for k, ex := range experts {
		as, _ := db.AnnotatorAssignments(ctx, ex.ID)
		screens, err := db.Screens(ctx, as[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		for pos, sc := range screens {
			if err := db.SaveJudgement(ctx, ex.ID, as[0].ID, pos+1, answers[sc.Item.ID][k]); err != nil {
				t.Fatal(err)
			}
		}
	}
	path := filepath.Join(dir, "judgements.csv")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.ExportJudgements(ctx, s.ID, out); err != nil {
		t.Fatal(err)
	}
	out.Close()

	stdout, stderr, code := analyzeCLI(t, "", "analyze", "agreement", "--judgements", path, "--json")
	if code != 0 {
		t.Fatalf("analyze agreement on the platform's export: exit %d: %s", code, stderr)
	}
	var got struct {
		Annotators   []string `json:"annotators"`
		Plausibility struct {
			Items     int       `json:"items"`
			Confusion [2][2]int `json:"confusion"`
		} `json:"plausibility"`
		Cancellation struct {
			Items     int       `json:"items"`
			Confusion [2][2]int `json:"confusion"`
		} `json:"cancellation"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got.Annotators) != fmt.Sprint(names) || got.Plausibility.Items != n || got.Plausibility.Confusion != plaus || got.Cancellation.Confusion != canc {
		t.Errorf("analysis of the export = %+v, want %d items, plausibility %v, cancellation %v", got, n, plaus, canc)
	}
	return path
}

func judgementIndex(s string) int {
	if s == "yes" {
		return 0
	}
	return 1
}
