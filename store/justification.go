package store

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"strconv"
	"strings"

	"pragmalab/csvsafe"
	"pragmalab/domain"
)

// Typed justifications (docs/studies.md#typed-justifications): which
// screens ask for one is drawn per participant (domain.Traps.Justifies)
// and decided by the server; what the page sends is stored with the
// screen's rating, in the same transaction.

// justifyAsked tells whether screen position of batch batchID asks the
// participant whose traps are t for a justification.
func (db *DB) justifyAsked(ctx context.Context, tx *sql.Tx, batchID int64, position int, t domain.Traps, s domain.CrowdSettings) (bool, error) {
	if s.Justifications == 0 {
		return false, nil
	}
	var rank, n, ordinary int
	if err := db.q(tx).QueryRowContext(ctx, qMachineRank, batchID, position).Scan(&rank, &n, &ordinary); err != nil {
		return false, fmt.Errorf("justification: %w", err)
	}
	if ordinary == 0 {
		return false, nil
	}
	points := 0
	if s.MachineCheck {
		points = s.ScalePoints
	}
	return t.Justifies(rank, n, s.Justifications, points), nil
}

// CrowdJustifies tells whether screen position of batch batchID asks the
// participant whose session is token for a justification (the page shows
// the text box).
func (db *DB) CrowdJustifies(ctx context.Context, batchID int64, position int, token string, s domain.CrowdSettings) (bool, error) {
	if s.Justifications == 0 {
		return false, nil
	}
	t, err := db.Traps(ctx, token)
	if err != nil {
		return false, err
	}
	return db.justifyAsked(ctx, nil, batchID, position, t, s)
}

// justificationCols are crowd_justifications' summary columns, in
// domain.TypingFields' order.
var justificationCols = []string{"keys", "revisions", "typed_chars", "inserted_chars", "pastes", "iki_median_ms",
	"iki_iqr_ms", "iki_cv_pct", "within_word_ms", "word_pause_ms", "clause_pause_ms", "long_pauses", "bursts"}

// saveJustification stores the justification of a screen that asks for
// one; on any other screen what was sent is left out. j nil (no text box
// sent: a tampered form) stores an empty text without a summary.
func (db *DB) saveJustification(ctx context.Context, tx *sql.Tx, pid, batchID int64, position int, t domain.Traps, j *domain.Justification, s domain.CrowdSettings) error {
	asked, err := db.justifyAsked(ctx, tx, batchID, position, t, s)
	if err != nil || !asked {
		return err
	}
	if j == nil {
		j = &domain.Justification{}
	}
	args := []any{pid, position, j.Text}
	for _, f := range j.Typing.Fields() {
		args = append(args, signalValue(*f))
	}
	_, err = db.q(tx).ExecContext(ctx, `INSERT INTO crowd_justifications (participant_id, position, text, `+
		strings.Join(justificationCols, ", ")+`) VALUES (?, ?, ?`+strings.Repeat(", ?", len(justificationCols))+`)
		ON CONFLICT (participant_id, position) DO NOTHING`, args...)
	if err != nil {
		return fmt.Errorf("save justification: %w", err)
	}
	return nil
}

// CrowdJustification is one stored justification, for the export.
type CrowdJustification struct {
	PID      string
	Position int
	domain.Justification
}

// CrowdJustifications are a study's justifications, by participant and
// screen.
func (db *DB) CrowdJustifications(ctx context.Context, studyID int64) ([]CrowdJustification, error) {
	return queryRows(ctx, db, "justifications", `
		SELECT p.prolific_pid, j.position, j.text, `+strings.Join(colsOf("j.", justificationCols), ", ")+`
		FROM crowd_justifications j JOIN crowd_participants p ON p.id = j.participant_id
		WHERE p.study_id = ? AND (p.pilot = 0 OR ?)
		ORDER BY p.id, j.position`, []any{studyID, pilotIncluded(ctx)}, func(rows *sql.Rows, r *CrowdJustification) error {
		fields := r.Typing.Fields()
		ns := make([]sql.NullInt64, len(fields))
		dst := []any{&r.PID, &r.Position, &r.Text}
		for i := range ns {
			dst = append(dst, &ns[i])
		}
		if err := rows.Scan(dst...); err != nil {
			return err
		}
		for i, f := range fields {
			*f = domain.Signal{Valid: ns[i].Valid, N: int(ns[i].Int64)}
		}
		return nil
	})
}

// typingVerdicts counts, by participant, the justifications judged, those
// judged transcribed (domain.TypingSummary.Verdict), and the pastes into
// them (a field that asks to be typed, so its pastes count for
// paste_in_text).
func (db *DB) typingVerdicts(ctx context.Context, studyID int64) (map[int64][3]int, error) {
	type row struct {
		pid int64
		CrowdJustification
	}
	rows, err := queryRows(ctx, db, "typing", `
		SELECT j.participant_id, `+strings.Join(colsOf("j.", justificationCols), ", ")+`
		FROM crowd_justifications j JOIN crowd_participants p ON p.id = j.participant_id
		WHERE p.study_id = ?`, []any{studyID}, func(rows *sql.Rows, r *row) error {
		fields := r.Typing.Fields()
		ns := make([]sql.NullInt64, len(fields))
		dst := []any{&r.pid}
		for i := range ns {
			dst = append(dst, &ns[i])
		}
		if err := rows.Scan(dst...); err != nil {
			return err
		}
		for i, f := range fields {
			*f = domain.Signal{Valid: ns[i].Valid, N: int(ns[i].Int64)}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := map[int64][3]int{}
	for _, r := range rows {
		c := out[r.pid]
		if r.Typing.Pastes.Valid {
			c[2] += r.Typing.Pastes.N
		}
		switch r.Typing.Verdict() {
		case domain.TypingTranscribed:
			c[0]++
			c[1]++
		case domain.TypingComposed:
			c[0]++
		}
		out[r.pid] = c
	}
	return out, nil
}

func colsOf(p string, cols []string) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = p + c
	}
	return out
}

// ExportCrowdJustifications writes a study's typed justifications as CSV
// (docs/formats.md#justifications-export): the participant, the screen,
// the text and the typing summary, empty where the page's script did not
// run.
func (db *DB) ExportCrowdJustifications(ctx context.Context, studyID int64, w io.Writer) error {
	js, err := db.CrowdJustifications(ctx, studyID)
	if err != nil {
		return err
	}
	cw := csvsafe.NewWriter(w)
	if err := cw.Write(append([]string{"participant_id", "position", "justification"}, justificationCols...)); err != nil {
		return err
	}
	for _, j := range js {
		rec := []string{j.PID, strconv.Itoa(j.Position), j.Text}
		for _, f := range j.Typing.Fields() {
			rec = append(rec, signalField(*f))
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
