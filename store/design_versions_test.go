package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"pragmalab/domain"
)

// TestMigrationDesignVersionOne: migration 0410 keeps, as version 1 of
// every study that kept its opening design, that design with its language
// and settings (docs/studies.md#design-versions).
func TestMigrationDesignVersionOne(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "v.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st := &domain.Study{Kind: domain.KindJudgement, Name: "j", Lang: "en"}
	if err := db.CreateStudy(ctx, st); err != nil {
		t.Fatal(err)
	}
	design := `{"format": "pragmalab-study-design/1", "lang": "de", "settings": {"scale_points": 5}}`
	if _, err := db.write.ExecContext(ctx, `INSERT INTO study_opening_designs (study_id, opened_at, design) VALUES (?, '2026-01-02T03:04:05Z', ?)`, st.ID, design); err != nil {
		t.Fatal(err)
	}
	body, err := migrationFiles.ReadFile("migrations/0410_design_versions.sql")
	if err != nil {
		t.Fatal(err)
	}
	_, backfill, ok := strings.Cut(string(body), "-- Version 1 of every study that kept its opening design: that design.")
	if !ok {
		t.Fatal("the migration's backfill is not where the test looks")
	}
	if _, err := db.write.ExecContext(ctx, backfill); err != nil {
		t.Fatal(err)
	}
	vs, err := db.DesignVersions(ctx, st.ID)
	if err != nil || len(vs) != 1 {
		t.Fatalf("versions %+v (%v), want version 1", vs, err)
	}
	v := vs[0]
	if v.Version != 1 || v.Lang != "de" || string(v.Settings) != `{"scale_points":5}` || string(v.Design) != design || v.CreatedAt != "2026-01-02T03:04:05Z" {
		t.Fatalf("version 1: %+v", v)
	}
	if k, err := db.CurrentDesignVersion(ctx, st.ID); err != nil || k != 1 {
		t.Fatalf("current version %d (%v)", k, err)
	}
}
