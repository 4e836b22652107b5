package store

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"pragmalab/csvsafe"
	"pragmalab/domain"
)

// maxAuditDetail bounds the detail of one entry.
const maxAuditDetail = 2000

// Audit records that actor did action on the study (0 when the action
// concerns no study), with a free-text detail. Every state-changing admin
// action calls it, from the web, the command line or the job runner.
func (db *DB) Audit(ctx context.Context, actor string, studyID int64, action, detail string) error {
	if len(detail) > maxAuditDetail {
		detail = detail[:maxAuditDetail] + "…"
	}
	var study any
	if studyID > 0 {
		study = studyID
	}
	if _, err := db.execKeeping(ctx, `INSERT INTO audit_log (at, actor, study_id, action, detail) VALUES (?, ?, ?, ?, ?)`,
		db.now(), actor, study, action, detail); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return nil
}

// AuditLog lists the entries of a study (0: those of no study), newest
// first; limit <= 0 means all.
func (db *DB) AuditLog(ctx context.Context, studyID int64, limit int) ([]domain.AuditEntry, error) {
	q := `SELECT id, at, actor, COALESCE(study_id, 0), action, detail FROM audit_log WHERE COALESCE(study_id, 0) = ? ORDER BY id DESC`
	args := []any{studyID}
	if limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limit)
	}
	rows, err := db.read.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	defer rows.Close()
	var out []domain.AuditEntry
	for rows.Next() {
		var e domain.AuditEntry
		var at string
		if err := rows.Scan(&e.ID, &at, &e.Actor, &e.StudyID, &e.Action, &e.Detail); err != nil {
			return nil, fmt.Errorf("audit log: %w", err)
		}
		e.At = parseTime(at)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	return out, nil
}

// WriteAuditCSV writes a study's log, oldest first, as CSV with the columns
// id, at, actor, study_id, action, detail.
func (db *DB) WriteAuditCSV(ctx context.Context, studyID int64, w io.Writer) error {
	es, err := db.AuditLog(ctx, studyID, 0)
	if err != nil {
		return err
	}
	cw := csvsafe.NewWriter(w)
	cw.Write([]string{"id", "at", "actor", "study_id", "action", "detail"})
	for i := len(es) - 1; i >= 0; i-- {
		e := es[i]
		cw.Write([]string{strconv.FormatInt(e.ID, 10), e.At.Format(time.RFC3339), e.Actor, strconv.FormatInt(e.StudyID, 10), e.Action, e.Detail})
	}
	cw.Flush()
	return cw.Error()
}
