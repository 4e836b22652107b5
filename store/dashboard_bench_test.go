package store

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
)

// BenchmarkDashboard times the dashboard over 20 crowd studies of 50
// participants × 100 ratings (100,000 ratings): four queries, whatever the
// number of studies.
func BenchmarkDashboard(b *testing.B) {
	db := mustOpenDB(b)
	ctx := context.Background()
	now := db.now()
	err := db.tx(ctx, func(tx *sql.Tx) error {
		for s := 0; s < 20; s++ {
			res, err := tx.Exec(`INSERT INTO studies (kind, name, created_at) VALUES ('crowd', ?, ?)`, fmt.Sprint("study ", s), now)
			if err != nil {
				return err
			}
			sid, _ := res.LastInsertId()
			res, _ = tx.Exec(`INSERT INTO batches (study_id, number) VALUES (?, 1)`, sid)
			bid, _ := res.LastInsertId()
			for i := 1; i <= 100; i++ {
				res, err := tx.Exec(`INSERT INTO items (study_id, key, type, utterance, implicature, cancellation) VALUES (?, ?, 'scalar', 'u', 'i', 'c')`, sid, fmt.Sprint("it", i))
				if err != nil {
					return err
				}
				iid, _ := res.LastInsertId()
				tx.Exec(`INSERT INTO batch_items (batch_id, position, item_id, condition) VALUES (?, ?, ?, 'trigger')`, bid, i, iid)
			}
			for p := 0; p < 50; p++ {
				res, err := tx.Exec(`INSERT INTO crowd_participants (study_id, batch_id, prolific_pid, token, status, training, screens, answered, started_at, last_seen_at)
					VALUES (?, ?, ?, ?, 'completed', 0, 100, 100, ?, ?)`, sid, bid, fmt.Sprint(sid, "-", p), fmt.Sprint(sid, "-", p), now, now)
				if err != nil {
					return err
				}
				pid, _ := res.LastInsertId()
				if _, err := tx.Exec(`INSERT INTO crowd_ratings (participant_id, position, item_id, condition, rating, answered_at)
					SELECT ?, position, item_id, condition, 4, ? FROM batch_items WHERE batch_id = ?`, pid, now, bid); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		all, err := db.Dashboard(ctx)
		if err != nil || len(all) != 20 || all[0].Answers != 5000 || all[0].Done != 50 {
			b.Fatalf("dashboard: %v %+v", err, all[0])
		}
	}
}
