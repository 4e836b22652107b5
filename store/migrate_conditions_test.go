package store

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"pragmalab/domain"
)

// TestMigrationDeclaredConditions: migration 0320 gives every crowd study
// without declared conditions those its batches show (trigger and cancel
// with none), and leaves declared ones and other kinds alone
// (docs/studies.md#conditions).
func TestMigrationDeclaredConditions(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mk := func(kind, settings string) int64 {
		s := &domain.Study{Kind: kind, Name: kind, Lang: "en"}
		if err := db.CreateStudy(ctx, s); err != nil {
			t.Fatal(err)
		}
		if _, err := db.write.ExecContext(ctx, `UPDATE studies SET settings = ? WHERE id = ?`, settings, s.ID); err != nil {
			t.Fatal(err)
		}
		return s.ID
	}
	empty := mk(domain.KindCrowd, `{}`)
	null := mk(domain.KindCrowd, `{"batch_size": 12, "conditions": null}`)
	ran := mk(domain.KindCrowd, `{"conditions": []}`)
	declared := mk(domain.KindCrowd, `{"conditions": ["trigger", "cancel", "strengthen"]}`)
	expert := mk(domain.KindExpert, `{}`)
	// ran's batch shows neutral and negation (in that order).
	if err := db.ImportItems(ctx, ran, []domain.Item{{Key: "a", Type: "scalar", Utterance: "u", Implicature: "b", Cancellation: "x", Negation: "n", Neutral: "z"}}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO batches (id, study_id, number) VALUES (900, ` + strconv.FormatInt(ran, 10) + `, 1)`,
		`INSERT INTO batch_items (batch_id, position, item_id, condition) SELECT 900, 1, id, 'neutral' FROM items WHERE study_id = ` + strconv.FormatInt(ran, 10),
		`INSERT INTO batch_items (batch_id, position, item_id, condition) SELECT 900, 2, id, 'negation' FROM items WHERE study_id = ` + strconv.FormatInt(ran, 10),
		`INSERT INTO batch_items (batch_id, position, item_id, condition) SELECT 900, 3, id, 'trigger' FROM items WHERE study_id = ` + strconv.FormatInt(ran, 10),
	} {
		if _, err := db.write.ExecContext(ctx, q); err != nil {
			t.Fatal(q, err)
		}
	}
	body, err := migrationFiles.ReadFile("migrations/0320_w33a_declared_conditions.sql")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.write.ExecContext(ctx, string(body)); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[int64]string{
		empty: `{"conditions":["trigger","cancel"]}`, null: `{"batch_size":12,"conditions":["trigger","cancel"]}`,
		ran: `{"conditions":["trigger","cancel","negation","neutral"]}`, declared: `{"conditions": ["trigger", "cancel", "strengthen"]}`,
		expert: `{}`,
	} {
		var got string
		if err := db.read.QueryRowContext(ctx, `SELECT settings FROM studies WHERE id = ?`, id).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("study %d: settings %s, want %s", id, got, want)
		}
	}
}
