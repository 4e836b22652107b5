package store

import (
	"context"
	"fmt"
	"testing"

	"pragmalab/domain"
)

// An expert study's batches and a context study's surveys follow the same
// rule (rebuildUnlessAssigned): rebuilt freely until an expert is given
// one, fixed after.
func TestRebuildUnlessAssigned(t *testing.T) {
	db := mustOpenDB(t)
	ctx := context.Background()

	t.Run("batches", func(t *testing.T) {
		st := &domain.Study{Kind: domain.KindExpert, Name: "experts", Lang: "en"}
		if err := db.CreateStudy(ctx, st); err != nil {
			t.Fatal(err)
		}
		var items []domain.Item
		for i := range 4 {
			items = append(items, domain.Item{Key: fmt.Sprintf("it%d", i), Type: "scalar", Utterance: "u", Implicature: "b", Cancellation: "x"})
		}
		if err := db.ImportItems(ctx, st.ID, items); err != nil {
			t.Fatal(err)
		}
		stored, err := db.ListItems(ctx, st.ID)
		if err != nil {
			t.Fatal(err)
		}
		ids := []int64{stored[0].ID, stored[1].ID, stored[2].ID, stored[3].ID}
		if err := db.SaveBatches(ctx, st.ID, [][]int64{ids[:2], ids[2:]}); err != nil {
			t.Fatal(err)
		}
		// A rebuild replaces the batches, numbered from 1 again.
		if err := db.SaveBatches(ctx, st.ID, [][]int64{ids[:3]}); err != nil {
			t.Fatal(err)
		}
		bs, err := db.Batches(ctx, st.ID)
		if err != nil || len(bs) != 1 || bs[0].Number != 1 || bs[0].Size != 3 {
			t.Fatalf("after the rebuild: %+v, %v; want one batch 1 of 3 items", bs, err)
		}
		var experts []int64
		for _, name := range []string{"Ada", "Bea"} {
			a, err := db.CreateAnnotator(ctx, st.ID, name)
			if err != nil {
				t.Fatal(err)
			}
			experts = append(experts, a.ID)
		}
		if err := db.AssignRound1(ctx, st.ID, bs[0].ID, experts); err != nil {
			t.Fatal(err)
		}
		if err := db.SaveBatches(ctx, st.ID, [][]int64{ids}); domain.ErrorCode(err) != domain.ECONFLICT {
			t.Fatalf("rebuild after an assignment: %v; want a conflict", err)
		}
		if after, _ := db.Batches(ctx, st.ID); len(after) != 1 || after[0].ID != bs[0].ID || after[0].Size != 3 {
			t.Fatalf("the refused rebuild changed the batches: %+v", after)
		}
	})

	t.Run("surveys", func(t *testing.T) {
		st := &domain.Study{Kind: domain.KindContext, Name: "context", Lang: "it"}
		if err := db.CreateStudy(ctx, st); err != nil {
			t.Fatal(err)
		}
		var ps []domain.Passage
		for i := range 3 {
			ps = append(ps, domain.Passage{Key: fmt.Sprintf("p%d", i), Kind: domain.PassageImpl, Text: "Uno. Due.",
				Sentences: []string{"Uno.", "Due."}, Explanation: "e"})
		}
		if err := db.ImportPassages(ctx, st.ID, ps); err != nil {
			t.Fatal(err)
		}
		if err := db.SaveContextSurveys(ctx, st.ID, [][]string{{"p0"}, {"p1", "p2"}}); err != nil {
			t.Fatal(err)
		}
		// A key not in the study rejects the whole rebuild.
		if err := db.SaveContextSurveys(ctx, st.ID, [][]string{{"p0", "nope"}}); domain.ErrorCode(err) != domain.EINVALID {
			t.Fatalf("unknown passage: %v; want invalid", err)
		}
		ss, err := db.ContextSurveys(ctx, st.ID)
		if err != nil || len(ss) != 2 || ss[1].Number != 2 || ss[1].Size != 2 {
			t.Fatalf("after the refused rebuild: %+v, %v; want the two surveys kept", ss, err)
		}
		a, err := db.CreateAnnotator(ctx, st.ID, "Bruno")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.AssignContextSurvey(ctx, st.ID, a.ID, ss[0].ID); err != nil {
			t.Fatal(err)
		}
		if err := db.SaveContextSurveys(ctx, st.ID, [][]string{{"p2"}}); domain.ErrorCode(err) != domain.ECONFLICT {
			t.Fatalf("rebuild after an assignment: %v; want a conflict", err)
		}
	})
}
