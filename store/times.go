package store

import (
	"context"
	"database/sql"
	"fmt"
	"pragmalab/domain"
	"strconv"
	"time"
)

// The participant pages whose screens are timed (docs/formats.md#answer-times).
const (
	FlowCrowd    = "crowd"    // a crowd batch screen; owner: the participant
	FlowTraining = "training" // a crowd training screen; owner: the participant
	FlowExpert   = "expert"   // owner: the expert assignment
	FlowContext  = "context"  // owner: the context assignment
	FlowExplain  = "explain"  // owner: the annotator
)

// RT returns a browser's response time in ms as stored: nil when not
// measured or out of range.
func RT(ms int) any {
	if ms <= 0 || ms > domain.MaxRT {
		return nil
	}
	return ms
}

// AnswerTimes are the times every exported answer carries.
type AnswerTimes struct {
	ShownAt    time.Time // when its screen was first shown (server clock)
	AnsweredAt time.Time // when the answer arrived (server clock)
	RTms       int       // measured in the browser; 0: not measured
}

// TimeColumns are the columns every answer export ends with.
var TimeColumns = []string{"shown_at", "answered_at", "rt_ms"}

// timeStamp is RFC 3339 in UTC with milliseconds.
const timeStamp = "2006-01-02T15:04:05.000Z07:00"

// Fields are the values of TimeColumns: RFC 3339 UTC, "" when unknown.
func (t AnswerTimes) Fields() []string {
	f := []string{"", "", ""}
	if !t.ShownAt.IsZero() {
		f[0] = t.ShownAt.UTC().Format(timeStamp)
	}
	if !t.AnsweredAt.IsZero() {
		f[1] = t.AnsweredAt.UTC().Format(timeStamp)
	}
	if t.RTms > 0 {
		f[2] = strconv.Itoa(t.RTms)
	}
	return f
}

// dest returns the scan destinations of shown_at, answered_at, rt_ms.
func (t *AnswerTimes) dest() (dst []any, done func()) {
	var shown, answered string
	var rt sql.NullInt64
	return []any{&shown, &answered, &rt}, func() {
		if shown != "" {
			t.ShownAt = parseTime(shown)
		}
		if answered != "" {
			t.AnsweredAt = parseTime(answered)
		}
		t.RTms = int(rt.Int64)
	}
}

// qShownAt is the first showing of a screen (flow, owner, position), or ”.
const qShownAt = `COALESCE((SELECT shown_at FROM screen_views WHERE flow = ? AND owner = ? AND position = ?), '')`

// ScreenShown records that a screen is shown; its first showing stays.
// Pages call it before rendering a screen that takes an answer. The
// record joins the participants' write queue without waiting for the disk
// (docs/architecture.md#write-queue): a screen GET costs no fsync, and the
// answer to the screen, queued later, commits after it.
func (db *DB) ScreenShown(ctx context.Context, flow string, owner int64, position int) error {
	return db.screenShown(ctx, flow, owner, position, false)
}

// ScreenShownNow is ScreenShown for a page whose next request depends on
// the record (the first screen of a crowd batch ends the practice): it
// returns once the record is committed.
func (db *DB) ScreenShownNow(ctx context.Context, flow string, owner int64, position int) error {
	return db.screenShown(ctx, flow, owner, position, true)
}

// qScreenShown records a screen's first showing.
const qScreenShown = `
	INSERT INTO screen_views (flow, owner, position, shown_at) VALUES (?, ?, ?, ?)
	ON CONFLICT DO NOTHING`

// ScreenFirstShown is ScreenShown (wait: ScreenShownNow) for a screen the
// caller knows was not shown before (domain.CrowdScreen.Shown), which
// saves reading it again.
func (db *DB) ScreenFirstShown(ctx context.Context, flow string, owner int64, position int, wait bool) error {
	return db.recordShown(ctx, flow, owner, position, wait)
}

func (db *DB) screenShown(ctx context.Context, flow string, owner int64, position int, wait bool) error {
	shown, err := db.ScreenWasShown(ctx, flow, owner, position)
	if err != nil || shown {
		return err
	}
	return db.recordShown(ctx, flow, owner, position, wait)
}

// recordShown queues the record of a screen's first showing; a second
// record of the same screen changes nothing.
func (db *DB) recordShown(ctx context.Context, flow string, owner int64, position int, wait bool) error {
	at := db.now()
	write := func(ctx context.Context, tx *sql.Tx) error {
		if _, err := db.q(tx).ExecContext(ctx, qScreenShown, flow, owner, position, at); err != nil {
			return err
		}
		if fx := effectOf(ctx); fx != nil && (flow == FlowCrowd || flow == FlowTraining) {
			fx.shown = &shownEffect{id: owner, flow: flow, position: position}
		}
		return nil
	}
	if !wait {
		db.queueWrite(prioAnswer, write)
		return nil
	}
	if err := db.enqueue(ctx, prioAnswer, write, true, true); err != nil {
		return fmt.Errorf("screen shown: %w", err)
	}
	return nil
}

// ScreenWasShown tells whether a screen has been shown before.
func (db *DB) ScreenWasShown(ctx context.Context, flow string, owner int64, position int) (bool, error) {
	var one int
	err := db.q(nil).QueryRowContext(ctx, `SELECT 1 FROM screen_views WHERE flow = ? AND owner = ? AND position = ?`,
		flow, owner, position).Scan(&one)
	if err == sql.ErrNoRows {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("screen shown: %w", err)
	}
	return true, nil
}
