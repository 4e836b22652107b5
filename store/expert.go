package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"pragmalab/domain"
	"slices"
	"strconv"
)

// DefaultExpertSettings are the paper's (domain.DefaultExpertSettings).
func DefaultExpertSettings() domain.ExpertSettings { return domain.DefaultExpertSettings() }

// SaveBatches replaces a study's batches with the given lists of item ids
// (conditions all empty). Once an annotator is assigned a batch the batches
// are fixed, since answers refer to them.
func (db *DB) SaveBatches(ctx context.Context, studyID int64, batches [][]int64) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		if err := studyExists(ctx, tx, studyID); err != nil {
			return err
		}
		return rebuildUnlessAssigned(ctx, tx, studyID, groups{noun: "batches", table: "batches", assigned: `
			SELECT COUNT(*) FROM assignments a JOIN batches b ON b.id = a.batch_id
			WHERE b.study_id = ?`}, batches, func(bid int64, _, pos int, id int64) error {
			if _, err := tx.ExecContext(ctx, `
				INSERT INTO batch_items (batch_id, position, item_id)
				SELECT ?, ?, id FROM items WHERE id = ? AND study_id = ?`, bid, pos, id, studyID); err != nil {
				return fmt.Errorf("save batches: %w", err)
			}
			return nil
		})
	})
}

// Batches lists a study's batches with their sizes.
func (db *DB) Batches(ctx context.Context, studyID int64) ([]domain.Batch, error) {
	rows, err := db.read.QueryContext(ctx, `
		SELECT b.id, b.study_id, b.number, (SELECT COUNT(*) FROM batch_items bi WHERE bi.batch_id = b.id)
		FROM batches b WHERE b.study_id = ? ORDER BY b.number`, studyID)
	if err != nil {
		return nil, fmt.Errorf("batches: %w", err)
	}
	defer rows.Close()
	var out []domain.Batch
	for rows.Next() {
		var b domain.Batch
		if err := rows.Scan(&b.ID, &b.StudyID, &b.Number, &b.Size); err != nil {
			return nil, fmt.Errorf("batches: %w", err)
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// CreateAnnotator invites an expert, giving them an unguessable token.
func (db *DB) CreateAnnotator(ctx context.Context, studyID int64, name string) (*domain.Annotator, error) {
	name, err := annotatorName(name)
	if err != nil {
		return nil, err
	}
	a := &domain.Annotator{StudyID: studyID, Name: name, Token: RandomToken()}
	err = db.tx(ctx, func(tx *sql.Tx) error {
		if err := studyExists(ctx, tx, studyID); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM annotators WHERE study_id = ? AND name = ?`, studyID, name).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return domain.Errorf(domain.ECONFLICT, "the study already has an expert named %q", name)
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO annotators (study_id, name, token, created_at) VALUES (?, ?, ?, ?)`, studyID, name, a.Token, db.now())
		if err != nil {
			return err
		}
		a.ID, err = res.LastInsertId()
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("invite expert: %w", err)
	}
	return a, nil
}

// AnnotatorByToken finds the expert holding an invitation token.
func (db *DB) AnnotatorByToken(ctx context.Context, token string) (*domain.Annotator, error) {
	var a domain.Annotator
	err := db.read.QueryRowContext(ctx, `SELECT id, study_id, name, token, pilot FROM annotators WHERE token = ? AND revoked_at = ''`, token).
		Scan(&a.ID, &a.StudyID, &a.Name, &a.Token, &a.Pilot)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, domain.Errorf(domain.ENOTFOUND, "this invitation link is not valid")
	}
	if err != nil {
		return nil, fmt.Errorf("annotator: %w", err)
	}
	return &a, nil
}

// Annotators lists a study's invited experts (the pilot expert is not one).
func (db *DB) Annotators(ctx context.Context, studyID int64) ([]domain.Annotator, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT id, study_id, name, token, revoked_at != '' FROM annotators WHERE study_id = ? AND pilot = 0 ORDER BY id`, studyID)
	if err != nil {
		return nil, fmt.Errorf("annotators: %w", err)
	}
	defer rows.Close()
	var out []domain.Annotator
	for rows.Next() {
		var a domain.Annotator
		if err := rows.Scan(&a.ID, &a.StudyID, &a.Name, &a.Token, &a.Revoked); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// AssignRound1 gives round 1's batch to the experts: two or more to start
// the round on batchID; once round 1 has experts (pilots aside), the
// experts added join its batch — one is enough — and another batch is
// refused in a sentence naming round 1's (docs/studies.md#expert-rounds).
func (db *DB) AssignRound1(ctx context.Context, studyID, batchID int64, annotatorIDs []int64) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		if err := batchInStudy(ctx, tx, studyID, batchID); err != nil {
			return err
		}
		var cur int64
		var number int
		err := tx.QueryRowContext(ctx, `
			SELECT b.id, b.number FROM assignments a JOIN batches b ON b.id = a.batch_id JOIN annotators n ON n.id = a.annotator_id
			WHERE b.study_id = ? AND a.round = 1 AND n.pilot = 0 ORDER BY a.id LIMIT 1`, studyID).Scan(&cur, &number)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			if len(annotatorIDs) < 2 {
				return domain.Errorf(domain.EINVALID, "round 1 needs two or more experts on the same batch")
			}
		case err != nil:
			return err
		case cur != batchID:
			return domain.Errorf(domain.EINVALID, "round 1 is on batch #%d: the experts you add join that batch, so choose #%d", number, number)
		case len(annotatorIDs) == 0:
			return domain.Errorf(domain.EINVALID, "choose the experts to add to round 1's batch #%d", number)
		}
		for _, aid := range annotatorIDs {
			if err := assign(ctx, tx, studyID, aid, batchID, 1); err != nil {
				return err
			}
		}
		return nil
	})
}

// AssignRound2 splits the batches no expert has yet among the given experts,
// in turn, and returns how many it assigned.
func (db *DB) AssignRound2(ctx context.Context, studyID int64, annotatorIDs []int64) (int, error) {
	if len(annotatorIDs) == 0 {
		return 0, domain.Errorf(domain.EINVALID, "choose at least one expert for round 2")
	}
	count := 0
	err := db.tx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `
			SELECT id FROM batches b WHERE study_id = ?
			AND NOT EXISTS (SELECT 1 FROM assignments a JOIN annotators n ON n.id = a.annotator_id
				WHERE a.batch_id = b.id AND n.pilot = 0)
			ORDER BY number`, studyID)
		if err != nil {
			return err
		}
		var free []int64
		for rows.Next() {
			var id int64
			rows.Scan(&id)
			free = append(free, id)
		}
		rows.Close()
		if len(free) == 0 {
			return domain.Errorf(domain.ECONFLICT, "every batch is already assigned")
		}
		for i, bid := range free {
			if err := assign(ctx, tx, studyID, annotatorIDs[i%len(annotatorIDs)], bid, 2); err != nil {
				return err
			}
			count++
		}
		return nil
	})
	return count, err
}

func batchInStudy(ctx context.Context, tx *sql.Tx, studyID, batchID int64) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM batches WHERE id = ? AND study_id = ?`, batchID, studyID).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return domain.Errorf(domain.ENOTFOUND, "batch not found in this study")
	}
	return nil
}

func assign(ctx context.Context, tx *sql.Tx, studyID, annotatorID, batchID int64, round int) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM annotators WHERE id = ? AND study_id = ?`, annotatorID, studyID).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return domain.Errorf(domain.ENOTFOUND, "expert not found in this study")
	}
	_, err := tx.ExecContext(ctx, `
		INSERT INTO assignments (annotator_id, batch_id, round) VALUES (?, ?, ?)
		ON CONFLICT (annotator_id, batch_id) DO NOTHING`, annotatorID, batchID, round)
	return err
}

const assignmentQuery = `
	SELECT a.id, a.annotator_id, n.name, a.batch_id, b.number, a.round,
		(SELECT COUNT(*) FROM batch_items bi WHERE bi.batch_id = a.batch_id),
		(SELECT COUNT(*) FROM judgements j WHERE j.assignment_id = a.id),
		(SELECT COUNT(*) FROM batch_items bi JOIN items i ON i.id = bi.item_id
			WHERE bi.batch_id = a.batch_id AND i.check_kind != ''),
		(SELECT COUNT(*) FROM judgements j JOIN items i ON i.id = j.item_id
			WHERE j.assignment_id = a.id AND (
				(i.check_kind = 'low' AND j.plausible = 'yes' AND j.cancellation_correct != 'no') OR
				(i.check_kind = 'high' AND (j.plausible = 'no' OR j.cancellation_correct = 'no'))))
	FROM assignments a
	JOIN annotators n ON n.id = a.annotator_id
	JOIN batches b ON b.id = a.batch_id`

func scanAssignments(rows *sql.Rows) ([]domain.Assignment, error) {
	defer rows.Close()
	var out []domain.Assignment
	for rows.Next() {
		var a domain.Assignment
		if err := rows.Scan(&a.ID, &a.AnnotatorID, &a.Annotator, &a.BatchID, &a.BatchNumber, &a.Round,
			&a.Total, &a.Answered, &a.ChecksTotal, &a.ChecksFailed); err != nil {
			return nil, fmt.Errorf("assignments: %w", err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// Assignments lists every assignment of a study with progress, for the
// researcher's progress table.
func (db *DB) Assignments(ctx context.Context, studyID int64) ([]domain.Assignment, error) {
	rows, err := db.read.QueryContext(ctx, assignmentQuery+` WHERE n.study_id = ? AND n.pilot = 0 ORDER BY a.round, b.number, n.name`, studyID)
	if err != nil {
		return nil, fmt.Errorf("assignments: %w", err)
	}
	return scanAssignments(rows)
}

// AnnotatorAssignments lists one expert's batches.
func (db *DB) AnnotatorAssignments(ctx context.Context, annotatorID int64) ([]domain.Assignment, error) {
	rows, err := db.read.QueryContext(ctx, assignmentQuery+` WHERE a.annotator_id = ? ORDER BY a.round, b.number`, annotatorID)
	if err != nil {
		return nil, fmt.Errorf("assignments: %w", err)
	}
	return scanAssignments(rows)
}

// AnnotatorAssignment returns an assignment only if it belongs to the
// expert: editing the URL cannot open someone else's batch.
func (db *DB) AnnotatorAssignment(ctx context.Context, annotatorID, assignmentID int64) (*domain.Assignment, error) {
	rows, err := db.read.QueryContext(ctx, assignmentQuery+` WHERE a.annotator_id = ? AND a.id = ?`, annotatorID, assignmentID)
	if err != nil {
		return nil, fmt.Errorf("assignment: %w", err)
	}
	as, err := scanAssignments(rows)
	if err != nil {
		return nil, err
	}
	if len(as) == 0 {
		return nil, domain.Errorf(domain.ENOTFOUND, "batch not found")
	}
	return &as[0], nil
}

// Screens returns the screens of an assignment in order.
func (db *DB) Screens(ctx context.Context, assignmentID int64) ([]domain.Screen, error) {
	rows, err := db.read.QueryContext(ctx, `
		SELECT bi.position, i.id, i.key, i.type, i.context, i.utterance, i.implicature, i.cancellation,
			i.negation, i.strengthening, i.neutral, i.check_kind, i.status, i.version,
			j.plausible, j.cancellation_correct, j.alt_implicature, j.alt_cancellation
		FROM assignments a
		JOIN batch_items bi ON bi.batch_id = a.batch_id
		JOIN items i ON i.id = bi.item_id
		LEFT JOIN judgements j ON j.assignment_id = a.id AND j.position = bi.position
		WHERE a.id = ? ORDER BY bi.position`, assignmentID)
	if err != nil {
		return nil, fmt.Errorf("screens: %w", err)
	}
	defer rows.Close()
	var out []domain.Screen
	for rows.Next() {
		var s domain.Screen
		var pl, cc, ai, ac sql.NullString
		it := &s.Item
		if err := rows.Scan(&s.Position, &it.ID, &it.Key, &it.Type, &it.Context, &it.Utterance, &it.Implicature,
			&it.Cancellation, &it.Negation, &it.Strengthening, &it.Neutral, &it.Check, &it.Status, &it.Version,
			&pl, &cc, &ai, &ac); err != nil {
			return nil, fmt.Errorf("screens: %w", err)
		}
		if pl.Valid {
			s.Answer = &domain.Judgement{Plausible: pl.String, CancellationCorrect: cc.String, AltImplicature: ai.String, AltCancellation: ac.String}
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// SaveJudgement stores an expert's answer on one screen of their own
// assignment, as one write of the write queue (durable on return); sending the same screen again replaces
// the answer, so a double click or a changed answer never makes two rows.
func (db *DB) SaveJudgement(ctx context.Context, annotatorID, assignmentID int64, position int, j domain.Judgement) error {
	return db.sessionTx(ctx, prioAnswer, func(ctx context.Context, tx *sql.Tx) error {
		var itemID int64
		var itemType string
		var version int
		err := tx.QueryRowContext(ctx, `
			SELECT i.id, i.type, i.version FROM assignments a
			JOIN batch_items bi ON bi.batch_id = a.batch_id AND bi.position = ?
			JOIN items i ON i.id = bi.item_id
			WHERE a.id = ? AND a.annotator_id = ?`, position, assignmentID, annotatorID).Scan(&itemID, &itemType, &version)
		if errors.Is(err, sql.ErrNoRows) {
			return domain.Errorf(domain.ENOTFOUND, "screen not found")
		}
		if err != nil {
			return fmt.Errorf("save judgement: %w", err)
		}
		if err := j.Validate(itemType); err != nil {
			return domain.Errorf(domain.EINVALID, "%s", err.(*domain.FieldError).Msg)
		}
		_, err = tx.ExecContext(ctx, `
			INSERT INTO judgements (assignment_id, position, item_id, item_version, plausible,
				cancellation_correct, alt_implicature, alt_cancellation, answered_at, shown_at, rt_ms, link_no,
				`+integrityCols(true)+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, `+qShownAt+`, ?, (SELECT link_no FROM annotators WHERE id = ?),
				?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (assignment_id, position) DO UPDATE SET
				link_no = excluded.link_no,
				plausible = excluded.plausible,
				cancellation_correct = excluded.cancellation_correct,
				alt_implicature = excluded.alt_implicature,
				alt_cancellation = excluded.alt_cancellation,
				item_version = excluded.item_version,
				answered_at = excluded.answered_at,
				shown_at = excluded.shown_at,
				rt_ms = excluded.rt_ms,`+integrityUpdate(true)+``,
			append([]any{assignmentID, position, itemID, version, j.Plausible, j.CancellationCorrect, j.AltImplicature, j.AltCancellation, db.now(),
				FlowExpert, assignmentID, position, RT(j.RTms), annotatorID}, integrityValues(j.Integrity, true)...)...)
		if err != nil {
			return fmt.Errorf("save judgement: %w", err)
		}
		return nil
	})
}

// JudgementRow is one expert's answer on a data item as the judgements
// file holds it: the expert's name, the item's own id and type, and the
// answers ("yes", "no", or "" for a cancellation not asked).
type JudgementRow struct {
	Annotator, Item, Type, Plausible, CancellationCorrect string
	// Version is the version of the item the answer was given on.
	Version int
	AnswerTimes
	IntegrityRecord
}

// JudgementsHeader is the header of the expert judgements file.
// item_version, then the answer times (docs/formats.md#answer-times), come
// last: files written before they existed read the same.
// The integrity signals and the keystroke summary follow
// (docs/studies.md#integrity-signals).
var JudgementsHeader = slices.Concat([]string{"annotator_id", "item_id", "item_type", "plausible", "cancellation_correct", "item_version"}, TimeColumns, SignalColumns, KeyColumns)

// JudgementRows lists the answers of a study's experts on its data items
// (attention checks left out), by expert and item.
func (db *DB) JudgementRows(ctx context.Context, studyID int64) ([]JudgementRow, error) {
	return queryRows(ctx, db, "judgements", `
		SELECT n.name, i.key, i.type, j.plausible, j.cancellation_correct, j.item_version, j.shown_at, j.answered_at, j.rt_ms, `+integritySQL("j", true)+`
		FROM judgements j
		JOIN assignments a ON a.id = j.assignment_id
		JOIN annotators n ON n.id = a.annotator_id
		JOIN items i ON i.id = j.item_id
		WHERE n.study_id = ? AND i.check_kind = '' AND (n.pilot = 0 OR ?)
		ORDER BY n.name, i.key`, []any{studyID, pilotIncluded(ctx)}, func(rows *sql.Rows, r *JudgementRow) error {
		times, done := r.AnswerTimes.dest()
		in, filled := r.IntegrityRecord.dest(true)
		err := rows.Scan(slices.Concat([]any{&r.Annotator, &r.Item, &r.Type, &r.Plausible, &r.CancellationCorrect, &r.Version}, times, in)...)
		done()
		filled()
		return err
	})
}

// ExportJudgements writes the expert judgements file
// (docs/formats.md#judgements-file): one row per answer on a data item.
func (db *DB) ExportJudgements(ctx context.Context, studyID int64, w io.Writer) error {
	rows, err := db.JudgementRows(ctx, studyID)
	if err != nil {
		return err
	}
	return writeCSV(w, JudgementsHeader, rows, func(r JudgementRow) []string {
		return slices.Concat([]string{r.Annotator, r.Item, r.Type, r.Plausible, r.CancellationCorrect, strconv.Itoa(r.Version)}, r.Fields(), r.IntegrityRecord.fields(true))
	})
}

// Flagged lists the flagged data items of a study for review, with every
// expert's alternatives.
func (db *DB) Flagged(ctx context.Context, studyID int64) ([]domain.FlaggedItem, error) {
	rows, err := db.read.QueryContext(ctx, `
		SELECT i.id, i.key, i.type, i.context, i.utterance, i.implicature, i.cancellation, i.negation,
			i.strengthening, i.neutral, i.check_kind, i.status, i.version, i.review_decision,
			n.name, j.plausible, j.cancellation_correct, j.alt_implicature, j.alt_cancellation
		FROM judgements j
		JOIN assignments a ON a.id = j.assignment_id
		JOIN annotators n ON n.id = a.annotator_id
		JOIN items i ON i.id = j.item_id
		WHERE i.study_id = ? AND i.check_kind = '' AND (j.plausible = 'no' OR j.cancellation_correct = 'no')
			AND (n.pilot = 0 OR ?)
		ORDER BY i.id, n.name`, studyID, pilotIncluded(ctx))
	if err != nil {
		return nil, fmt.Errorf("flagged: %w", err)
	}
	defer rows.Close()
	var out []domain.FlaggedItem
	for rows.Next() {
		var it domain.Item
		var f domain.Flag
		if err := rows.Scan(&it.ID, &it.Key, &it.Type, &it.Context, &it.Utterance, &it.Implicature, &it.Cancellation,
			&it.Negation, &it.Strengthening, &it.Neutral, &it.Check, &it.Status, &it.Version, &it.Decision,
			&f.Annotator, &f.Plausible, &f.CancellationCorrect, &f.AltImplicature, &f.AltCancellation); err != nil {
			return nil, fmt.Errorf("flagged: %w", err)
		}
		// Rows come ordered by item: a new item starts a new entry.
		if len(out) == 0 || out[len(out)-1].Item.ID != it.ID {
			out = append(out, domain.FlaggedItem{Item: it})
		}
		last := &out[len(out)-1]
		last.Flags = append(last.Flags, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("flagged: %w", err)
	}
	return out, nil
}

// CleanedItems returns the data set after review: active data items, with
// accepted replacements, attention checks left out.
func (db *DB) CleanedItems(ctx context.Context, studyID int64) ([]domain.Item, error) {
	all, err := db.ListItems(ctx, studyID)
	if err != nil {
		return nil, err
	}
	var out []domain.Item
	for _, it := range all {
		if it.Status == domain.ItemActive && it.IsData() {
			out = append(out, it)
		}
	}
	return out, nil
}
