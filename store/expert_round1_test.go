package store

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"pragmalab/domain"
)

// TestAssignRound1JoinsItsBatch: round 1 starts with two or more experts;
// afterwards one expert added joins its batch, and another batch is
// refused naming round 1's, assigning nobody (docs/studies.md#expert-rounds).
func TestAssignRound1JoinsItsBatch(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "r.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st := &domain.Study{Kind: domain.KindExpert, Name: "experts", Lang: "en"}
	if err := db.CreateStudy(ctx, st); err != nil {
		t.Fatal(err)
	}
	var items []domain.Item
	for _, k := range []string{"a", "b", "c", "d"} {
		items = append(items, domain.Item{Key: k, Type: domain.TypeScalar, Utterance: "u", Implicature: "b", Cancellation: "x"})
	}
	if err := db.ImportItems(ctx, st.ID, items); err != nil {
		t.Fatal(err)
	}
	stored, _ := db.ListItems(ctx, st.ID)
	if err := db.SaveBatches(ctx, st.ID, [][]int64{{stored[0].ID, stored[1].ID}, {stored[2].ID, stored[3].ID}}); err != nil {
		t.Fatal(err)
	}
	bs, _ := db.Batches(ctx, st.ID)
	var ids []int64
	for _, name := range []string{"Ada", "Ben", "Cy", "Di"} {
		a, err := db.CreateAnnotator(ctx, st.ID, name)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, a.ID)
	}
	if err := db.AssignRound1(ctx, st.ID, bs[1].ID, ids[:1]); err == nil || !strings.Contains(err.Error(), "two or more experts") {
		t.Fatalf("round 1 started with one expert: %v", err)
	}
	if err := db.AssignRound1(ctx, st.ID, bs[1].ID, ids[:2]); err != nil {
		t.Fatal(err)
	}
	if err := db.AssignRound1(ctx, st.ID, bs[1].ID, ids[2:3]); err != nil {
		t.Fatalf("one expert added to round 1: %v", err)
	}
	err = db.AssignRound1(ctx, st.ID, bs[0].ID, ids[3:])
	if err == nil || domain.ErrorCode(err) != domain.EINVALID || !strings.Contains(err.Error(), "round 1 is on batch #2") {
		t.Fatalf("another batch for round 1: %v", err)
	}
	as, _ := db.Assignments(ctx, st.ID)
	var got []string
	for _, a := range as {
		got = append(got, a.Annotator+"#"+strconv.Itoa(a.BatchNumber))
	}
	if strings.Join(got, " ") != "Ada#2 Ben#2 Cy#2" {
		t.Fatalf("assignments %v, want Ada, Ben, Cy on batch #2", got)
	}
}
