package store_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"pragmalab/domain"
	"pragmalab/store"
)

// A study in a language with a catalog beyond English and Italian is
// stored (migration 0330 loosened the column's check), read back by a new
// connection after a restart, and the file stays sound; a language with
// no catalog is refused.
func TestStudyInAnyCatalogLanguage(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "lang.db")
	db, err := store.Open(ctx, file)
	if err != nil {
		t.Fatal(err)
	}
	s := &domain.Study{Kind: domain.KindCrowd, Name: "Deutsch", Lang: "de"}
	if err := db.CreateStudy(ctx, s); err != nil {
		t.Fatalf("create a German study: %v", err)
	}
	bad := &domain.Study{Kind: domain.KindCrowd, Name: "Klingon", Lang: "tlh"}
	if err := db.CreateStudy(ctx, bad); err == nil || domain.ErrorCode(err) != domain.EINVALID {
		t.Fatalf("a language without a catalog: %v", err)
	}
	db.Close()

	c, err := store.Verify(ctx, file)
	if err != nil || !slices.Equal(c.QuickCheck, []string{"ok"}) || c.ForeignKeyErrors != 0 || len(c.PendingMigrations) != 0 {
		t.Fatalf("verify after the schema edit: %+v, %v", c, err)
	}
	db, err = store.Open(ctx, file)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := db.Study(ctx, s.ID)
	if err != nil || got.Lang != "de" {
		t.Fatalf("read back: %+v, %v", got, err)
	}
	again := &domain.Study{Kind: domain.KindExpert, Name: "Noch eine", Lang: "de"}
	if err := db.CreateStudy(ctx, again); err != nil {
		t.Fatalf("create after a restart: %v", err)
	}
}
