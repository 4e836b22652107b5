package store_test

import (
	"context"
	"testing"

	"pragmalab/domain"
	"pragmalab/store/storetest"
)

// A study in a language with a catalog beyond English and Italian is
// stored (migration 0330 loosened the column's check) and read back.
func TestStudyInAnyCatalogLanguage(t *testing.T) {
	db := storetest.Open(t)
	ctx := context.Background()
	s := &domain.Study{Kind: domain.KindCrowd, Name: "Deutsch", Lang: "de"}
	if err := db.CreateStudy(ctx, s); err != nil {
		t.Fatalf("create a German study: %v", err)
	}
	got, err := db.Study(ctx, s.ID)
	if err != nil || got.Lang != "de" {
		t.Fatalf("read back: %+v, %v", got, err)
	}
	bad := &domain.Study{Kind: domain.KindCrowd, Name: "Klingon", Lang: "tlh"}
	if err := db.CreateStudy(ctx, bad); err == nil {
		t.Fatal("a language without a catalog was stored")
	}
}
