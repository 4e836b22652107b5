package store

import (
	"context"
	"database/sql"
	"fmt"
	"pragmalab/domain"
	"strings"
	"time"
	"unicode/utf8"
)

// A lab's everyday admin of its studies (docs/studies.md#managing-studies):
// rename, archive, clone, delete, and the dashboard's overview.

// RenameStudy gives a study a new name.
func (db *DB) RenameStudy(ctx context.Context, id int64, name string) error {
	name = strings.TrimSpace(name)
	if err := domain.CheckStudyName(name); err != nil {
		return err
	}
	res, err := db.exec(ctx, `UPDATE studies SET name = ? WHERE id = ?`, name, id)
	if err != nil {
		return fmt.Errorf("rename study: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return domain.Errorf(domain.ENOTFOUND, "study %d not found", id)
	}
	return nil
}

// SetStudyArchived archives a study (hidden from the dashboard, read-only)
// or restores it.
func (db *DB) SetStudyArchived(ctx context.Context, id int64, archived bool) error {
	at := ""
	if archived {
		at = db.now()
	}
	res, err := db.exec(ctx, `UPDATE studies SET archived_at = ? WHERE id = ?`, at, id)
	if err != nil {
		return fmt.Errorf("archive study: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return domain.Errorf(domain.ENOTFOUND, "study %d not found", id)
	}
	return nil
}

// MarkExported records that a file of the study's responses has just been
// downloaded or written: the answers up to now are safe to delete.
func (db *DB) MarkExported(ctx context.Context, id int64) error {
	if _, err := db.exec(ctx, `UPDATE studies SET exported_at = ? WHERE id = ?`, db.now(), id); err != nil {
		return fmt.Errorf("mark exported: %w", err)
	}
	return nil
}

// responseSources are the answers of every kind: expert judgements, crowd
// ratings, final context answers, explanation ratings; each gives its
// tables joined down to the study (alias s, its id as key) and the
// answer's time. CROSS JOIN fixes the join order from the study's people
// down, along their indexes, so each source is grouped by study without
// sorting every answer.
var responseSources = []struct{ from, key, at, pilot string }{
	{`annotators n CROSS JOIN assignments a ON a.annotator_id = n.id CROSS JOIN judgements x ON x.assignment_id = a.id
		JOIN studies s ON s.id = n.study_id`, "n.study_id", "x.answered_at", "n.pilot"},
	{`crowd_participants p CROSS JOIN crowd_ratings x ON x.participant_id = p.id
		JOIN studies s ON s.id = p.study_id`, "p.study_id", "x.answered_at", "p.pilot"},
	{`annotators n CROSS JOIN context_assignments a ON a.annotator_id = n.id CROSS JOIN context_answers x ON x.assignment_id = a.id
		JOIN studies s ON s.id = n.study_id`, "n.study_id", "x.updated_at", "n.pilot"},
	{`annotators n CROSS JOIN explain_assignments a ON a.annotator_id = n.id CROSS JOIN explain_ratings x ON x.assignment_id = a.id
		JOIN studies s ON s.id = n.study_id`, "n.study_id", "x.answered_at", "n.pilot"},
}

// responsesQuery counts, per study and kind of answer, the answers, those
// newer than the study's last export, and the time of the latest; where
// filters every source (on key, the study's id). Pilot answers are left
// out, as from every export (docs/studies.md#pilots).
//
// RFC 3339 times with trimmed fractions sort as text except within one
// second ("…:05Z" after "…:05.3Z"), so an answer is compared with the
// export as julian days, after a text test on the whole seconds has left
// out the many plainly older. The latest answer is taken as text: at most
// a second off, and shown to the minute.
func responsesQuery(where string) string {
	parts := make([]string, len(responseSources))
	for i, src := range responseSources {
		cond := "(" + strings.ReplaceAll(where, "key", src.key) + ") AND NOT " + src.pilot
		if i == 2 {
			cond = "(" + cond + ") AND x.sufficient != ''"
		}
		parts[i] = fmt.Sprintf(`
		SELECT %[2]s, COUNT(*),
			SUM(s.exported_at = '' OR (substr(%[3]s, 1, 19) >= substr(s.exported_at, 1, 19)
				AND julianday(%[3]s) > julianday(s.exported_at))),
			MAX(%[3]s)
		FROM %[1]s WHERE %[4]s GROUP BY %[2]s`, src.from, src.key, src.at, cond)
	}
	return strings.Join(parts, "\n\t\tUNION ALL")
}

func scanResponses(sc interface{ Scan(...any) error }) (int64, domain.Responses, error) {
	var id int64
	var r domain.Responses
	var last sql.NullString
	if err := sc.Scan(&id, &r.Answers, &r.Unexported, &last); err != nil {
		return 0, r, err
	}
	if last.Valid {
		r.Last = parseTime(last.String)
	}
	return id, r, nil
}

// studyResponses sums up the answers of one study, on the read pool or in
// a transaction.
func studyResponses(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, id int64) (domain.Responses, error) {
	rows, err := q.QueryContext(ctx, responsesQuery("key = ?1"), id)
	if err != nil {
		return domain.Responses{}, fmt.Errorf("study responses: %w", err)
	}
	defer rows.Close()
	var total domain.Responses
	for rows.Next() {
		_, r, err := scanResponses(rows)
		if err != nil {
			return domain.Responses{}, fmt.Errorf("study responses: %w", err)
		}
		total.Add(r)
	}
	return total, rows.Err()
}

// StudyResponses sums up the answers of one study.
func (db *DB) StudyResponses(ctx context.Context, id int64) (domain.Responses, error) {
	return studyResponses(ctx, db.read, id)
}

// Dashboard lists every study, newest first, with its counts. It runs a
// fixed number of queries (four), however many studies there are.
func (db *DB) Dashboard(ctx context.Context) ([]domain.StudyOverview, error) {
	all, err := db.Studies(ctx)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]*domain.StudyOverview, len(all))
	out := make([]domain.StudyOverview, len(all))
	for i, s := range all {
		out[i].Study, out[i].State = s, s.State
		byID[s.ID] = &out[i]
	}
	each := func(op, query string) error {
		rows, err := db.read.QueryContext(ctx, query)
		if err != nil {
			return fmt.Errorf("dashboard %s: %w", op, err)
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			var o domain.StudyOverview
			if err := scanOverview(rows, &id, &o); err != nil {
				return fmt.Errorf("dashboard %s: %w", op, err)
			}
			if dst := byID[id]; dst != nil {
				dst.Items += o.Items
				dst.Done += o.Done
				dst.UnderWay += o.UnderWay
				dst.Responses.Add(o.Responses)
			}
		}
		return rows.Err()
	}
	if err := each("items", `
		SELECT study_id, COUNT(*) FROM items WHERE `+dataItemSQL+` GROUP BY study_id
		UNION ALL
		SELECT study_id, COUNT(*) FROM passages GROUP BY study_id`); err != nil {
		return nil, err
	}
	if err := each("people", peopleQuery); err != nil {
		return nil, err
	}
	if err := each("responses", responsesQuery("1")); err != nil {
		return nil, err
	}
	return out, nil
}

// scanOverview scans one row of a dashboard query by its column count:
// (study, items), (study, done, under way) or a responses row.
func scanOverview(rows *sql.Rows, id *int64, o *domain.StudyOverview) error {
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	switch len(cols) {
	case 2:
		return rows.Scan(id, &o.Items)
	case 3:
		return rows.Scan(id, &o.Done, &o.UnderWay)
	default:
		var err error
		*id, o.Responses, err = scanResponses(rows)
		return err
	}
}

// peopleQuery counts, per study, the people done and under way: an expert
// is done once every batch, survey or screen given to them is answered; a
// crowd participant once their batch is complete.
const peopleQuery = `
	WITH work (study_id, annotator_id, total, answered) AS (
		SELECT n.study_id, a.annotator_id,
			(SELECT COUNT(*) FROM batch_items bi WHERE bi.batch_id = a.batch_id),
			(SELECT COUNT(*) FROM judgements j WHERE j.assignment_id = a.id)
		FROM assignments a JOIN annotators n ON n.id = a.annotator_id WHERE NOT n.pilot
		UNION ALL
		SELECT n.study_id, a.annotator_id,
			(SELECT COUNT(*) FROM context_survey_passages sp WHERE sp.survey_id = a.survey_id),
			(SELECT COUNT(*) FROM context_answers c WHERE c.assignment_id = a.id AND c.sufficient != '')
		FROM context_assignments a JOIN annotators n ON n.id = a.annotator_id WHERE NOT n.pilot
		UNION ALL
		SELECT n.study_id, a.annotator_id, COUNT(*), COUNT(r.assignment_id)
		FROM explain_assignments a JOIN annotators n ON n.id = a.annotator_id
		LEFT JOIN explain_ratings r ON r.assignment_id = a.id
		WHERE NOT n.pilot
		GROUP BY n.study_id, a.annotator_id
	), per AS (
		SELECT study_id, MIN(answered >= total) AS done FROM work GROUP BY study_id, annotator_id
	)
	SELECT study_id, SUM(done), SUM(1 - done) FROM per GROUP BY study_id
	UNION ALL
	SELECT study_id, SUM(status = 'completed'), SUM(status = 'active') FROM crowd_participants WHERE NOT pilot GROUP BY study_id`

// CloneStudy copies a study's design for a re-run with a new sample: its
// kind, language, settings and seed, its items (current text, version 1,
// attention checks and dropped items as they are) or passages, its batches,
// crowd training, context surveys, model outputs to rate and prompt
// templates. domain.No participant, answer or scoring job is copied. An empty name
// gives "Copy of …".
func (db *DB) CloneStudy(ctx context.Context, id int64, name string) (*domain.Study, error) {
	src, err := db.Study(ctx, id)
	if err != nil {
		return nil, err
	}
	if name = strings.TrimSpace(name); name == "" {
		name = "Copy of " + src.Name
		if utf8.RuneCountInString(name) > 200 {
			name = string([]rune(name)[:200])
		}
	}
	dst := &domain.Study{Kind: src.Kind, Name: name, Lang: src.Lang, Settings: src.Settings, Seed: src.Seed}
	if err := dst.Validate(); err != nil {
		return nil, err
	}
	dst.CreatedAt = db.Now()
	err = db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `
			INSERT INTO studies (kind, name, lang, settings, seed, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
			dst.Kind, dst.Name, dst.Lang, string(dst.Settings), dst.Seed, dst.CreatedAt.Format(time.RFC3339Nano))
		if err != nil {
			return err
		}
		if dst.ID, err = res.LastInsertId(); err != nil {
			return err
		}
		for _, q := range cloneQueries {
			if _, err := tx.ExecContext(ctx, q, sql.Named("src", id), sql.Named("dst", dst.ID)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("clone study: %w", err)
	}
	return dst, nil
}

// cloneQueries copy a study's design from :src to :dst, in dependency
// order; rows are matched across the two studies by their own keys and
// numbers, never by row id.
var cloneQueries = []string{
	`INSERT INTO items (study_id, key, type, context, utterance, implicature, cancellation,
		negation, strengthening, neutral, check_kind, status, training, variants)
	SELECT :dst, key, type, context, utterance, implicature, cancellation,
		negation, strengthening, neutral, check_kind, status, training, variants
	FROM items WHERE study_id = :src ORDER BY id`,
	`INSERT INTO batches (study_id, number) SELECT :dst, number FROM batches WHERE study_id = :src AND retired = 0 ORDER BY number`,
	`INSERT INTO batch_items (batch_id, position, item_id, condition)
	SELECT nb.id, bi.position, ni.id, bi.condition
	FROM batch_items bi
	JOIN batches ob ON ob.id = bi.batch_id
	JOIN batches nb ON nb.study_id = :dst AND nb.number = ob.number
	JOIN items oi ON oi.id = bi.item_id
	JOIN items ni ON ni.study_id = :dst AND ni.key = oi.key
	WHERE ob.study_id = :src`,
	`INSERT INTO crowd_training (study_id, position, item_id, condition)
	SELECT :dst, t.position, ni.id, t.condition
	FROM crowd_training t
	JOIN items oi ON oi.id = t.item_id
	JOIN items ni ON ni.study_id = :dst AND ni.key = oi.key
	WHERE t.study_id = :src`,
	`INSERT INTO passages (study_id, key, tag, kind, source, period, text, sentences, explanation,
		topic, option_a, option_b, option_c, option_d, answer)
	SELECT :dst, key, tag, kind, source, period, text, sentences, explanation,
		topic, option_a, option_b, option_c, option_d, answer
	FROM passages WHERE study_id = :src ORDER BY id`,
	`INSERT INTO context_surveys (study_id, number) SELECT :dst, number FROM context_surveys WHERE study_id = :src ORDER BY number`,
	`INSERT INTO context_survey_passages (survey_id, position, passage_id)
	SELECT ns.id, sp.position, np.id
	FROM context_survey_passages sp
	JOIN context_surveys os ON os.id = sp.survey_id
	JOIN context_surveys ns ON ns.study_id = :dst AND ns.number = os.number
	JOIN passages op ON op.id = sp.passage_id
	JOIN passages np ON np.study_id = :dst AND np.key = op.key
	WHERE os.study_id = :src`,
	`INSERT INTO explain_outputs (study_id, passage_id, strategy, model, output)
	SELECT :dst, np.id, o.strategy, o.model, o.output
	FROM explain_outputs o
	JOIN passages op ON op.id = o.passage_id
	JOIN passages np ON np.study_id = :dst AND np.key = op.key
	WHERE o.study_id = :src ORDER BY o.id`,
	`INSERT INTO scoring_templates (study_id, templates, updated_at)
	SELECT :dst, templates, updated_at FROM scoring_templates WHERE study_id = :src`,
}

// DeleteStudy deletes a study with everything in it. confirmName must be
// the study's name, typed by the researcher. While the study holds answers
// given after its last export, it is refused (domain.ECONFLICT) unless force.
func (db *DB) DeleteStudy(ctx context.Context, id int64, confirmName string, force bool) error {
	s, err := db.Study(ctx, id)
	if err != nil {
		return err
	}
	if strings.TrimSpace(confirmName) != s.Name {
		return domain.Errorf(domain.EINVALID, "type the study's name exactly (%q) to delete it", s.Name)
	}
	err = db.tx(ctx, func(tx *sql.Tx) error {
		// A call to Prolific that may have reached it keeps its record:
		// what was approved or paid must stay known (docs/prolific.md).
		var pending int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM prolific_calls WHERE study_id = ? AND state = 'pending'`, id).Scan(&pending); err != nil {
			return err
		}
		if pending > 0 {
			return domain.Errorf(domain.EINVALID, "%s to Prolific may or may not have been sent: settle it on the Prolific page before deleting the study", plural(pending, "call", "calls"))
		}
		if !force {
			r, err := studyResponses(ctx, tx, id)
			if err != nil {
				return err
			}
			if r.Unexported > 0 {
				return domain.Errorf(domain.ECONFLICT, "%s never exported: confirm again to delete them with the study", plural(r.Unexported, "answer was", "answers were"))
			}
		}
		// Answers point at items and batches without cascading: delete
		// the people (and with them their answers) first.
		for _, q := range []string{
			`DELETE FROM annotators WHERE study_id = ?`,
			`DELETE FROM crowd_participants WHERE study_id = ?`,
			`DELETE FROM studies WHERE id = ?`,
		} {
			if _, err := tx.ExecContext(ctx, q, id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		if domain.ErrorCode(err) != domain.EINTERNAL {
			return err
		}
		return fmt.Errorf("delete study: %w", err)
	}
	return nil
}

// plural writes a count with the singular or plural form of what follows.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
