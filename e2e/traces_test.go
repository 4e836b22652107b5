package e2e

import (
	"context"
	"database/sql"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestAnswerTracesInBrowser: where JavaScript runs, each answer carries its
// behavioural trace, filled in by static/traces.js and stored with the
// rating — a rating changed once before Next counts one change, an answer
// by key none; the page stayed visible, so nothing was hidden.
func TestAnswerTracesInBrowser(t *testing.T) {
	ts, db, studyID, _ := startCrowdStudy(t)
	ctx := newBrowser(t)
	trapProlific(t, ctx)
	bctx := context.Background()
	const pid = "70f1a2b3c4d5e6f7a8b9c0d3"
	step(t, ctx, "a narrow window", chromedp.EmulateViewport(390, 844))
	walk := crowdWalk{ts: ts, db: db, studyID: studyID, pid: pid, byKey: true}
	walk.toBatch(t, ctx)
	step(t, ctx, "answer 1: 3, changed to 5, then Next",
		chromedp.Click(testID("rating-3")), chromedp.Click(testID("rating-5")), chromedp.Click(testID("next")))
	waitScreen(t, ctx, 2)
	step(t, ctx, "answer 2 by key", chromedp.KeyEvent("4"))
	waitScreen(t, ctx, 3)

	p := crowdParticipant(t, db, studyID, pid)
	rows, err := db.Reader().QueryContext(bctx, `SELECT rating, answer_changes, hidden_ms, first_input_ms FROM crowd_ratings WHERE participant_id = ? ORDER BY position`, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got [][4]sql.NullInt64
	for rows.Next() {
		var r [4]sql.NullInt64
		if err := rows.Scan(&r[0], &r[1], &r[2], &r[3]); err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	if len(got) != 2 {
		t.Fatalf("%d ratings, want 2", len(got))
	}
	for i, want := range []struct{ rating, changes int64 }{{5, 1}, {4, 0}} {
		r := got[i]
		if !r[1].Valid || !r[2].Valid || !r[3].Valid {
			t.Fatalf("screen %d stored without a trace: %+v", i+1, r)
		}
		if r[0].Int64 != want.rating || r[1].Int64 != want.changes || r[2].Int64 != 0 || r[3].Int64 < 0 {
			t.Errorf("screen %d: rating %d, changes %d, hidden %d ms, first input %d ms; want rating %d, %d changes, 0 hidden",
				i+1, r[0].Int64, r[1].Int64, r[2].Int64, r[3].Int64, want.rating, want.changes)
		}
	}
}
