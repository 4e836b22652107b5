package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// A lab's everyday admin of its studies (docs/studies.md#managing-studies):
// rename, archive, clone, delete, and the dashboard's overview.

// RenameStudy gives a study a new name.
func (db *DB) RenameStudy(ctx context.Context, id int64, name string) error {
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > 200 {
		return Errorf(EINVALID, "name must be 1–200 characters")
	}
	res, err := db.write.ExecContext(ctx, `UPDATE studies SET name = ? WHERE id = ?`, name, id)
	if err != nil {
		return fmt.Errorf("rename study: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return Errorf(ENOTFOUND, "study %d not found", id)
	}
	db.forgetCrowdStudy(id)
	return nil
}

// SetStudyArchived archives a study (hidden from the dashboard, read-only)
// or restores it.
func (db *DB) SetStudyArchived(ctx context.Context, id int64, archived bool) error {
	at := ""
	if archived {
		at = db.now()
	}
	res, err := db.write.ExecContext(ctx, `UPDATE studies SET archived_at = ? WHERE id = ?`, at, id)
	if err != nil {
		return fmt.Errorf("archive study: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return Errorf(ENOTFOUND, "study %d not found", id)
	}
	db.forgetCrowdStudy(id)
	return nil
}

// MarkExported records that a file of the study's responses has just been
// downloaded or written: the answers up to now are safe to delete.
func (db *DB) MarkExported(ctx context.Context, id int64) error {
	if _, err := db.write.ExecContext(ctx, `UPDATE studies SET exported_at = ? WHERE id = ?`, db.now(), id); err != nil {
		return fmt.Errorf("mark exported: %w", err)
	}
	db.forgetCrowdStudy(id)
	return nil
}

// responsesCTE is every answer of every kind as (study_id, at): expert
// judgements, crowd ratings, final context answers, explanation ratings.
const responsesCTE = `
	WITH responses (study_id, at) AS (
		SELECT n.study_id, j.answered_at FROM judgements j
		JOIN assignments a ON a.id = j.assignment_id JOIN annotators n ON n.id = a.annotator_id
		UNION ALL
		SELECT p.study_id, r.answered_at FROM crowd_ratings r
		JOIN crowd_participants p ON p.id = r.participant_id
		UNION ALL
		SELECT n.study_id, c.updated_at FROM context_answers c
		JOIN context_assignments a ON a.id = c.assignment_id JOIN annotators n ON n.id = a.annotator_id
		WHERE c.sufficient != ''
		UNION ALL
		SELECT n.study_id, e.answered_at FROM explain_ratings e
		JOIN explain_assignments a ON a.id = e.assignment_id JOIN annotators n ON n.id = a.annotator_id
	)`

// responsesQuery counts each study's answers, the answers newer than its
// last export, and the time of the latest. Times are compared as julian
// days: RFC 3339 strings with trimmed fractions do not sort as text.
const responsesQuery = responsesCTE + `
	SELECT r.study_id, COUNT(*),
		SUM(s.exported_at = '' OR julianday(r.at) > julianday(s.exported_at)),
		strftime('%Y-%m-%dT%H:%M:%fZ', MAX(julianday(r.at)))
	FROM responses r JOIN studies s ON s.id = r.study_id`

// Responses sums up a study's answers of every kind.
type Responses struct {
	Answers int
	// Unexported counts the answers given after the last export (all of
	// them if the study was never exported).
	Unexported int
	Last       time.Time
}

func scanResponses(sc interface{ Scan(...any) error }) (int64, Responses, error) {
	var id int64
	var r Responses
	var last sql.NullString
	if err := sc.Scan(&id, &r.Answers, &r.Unexported, &last); err != nil {
		return 0, r, err
	}
	if last.Valid {
		r.Last, _ = time.Parse("2006-01-02T15:04:05.000Z", last.String)
	}
	return id, r, nil
}

// StudyResponses sums up the answers of one study.
func (db *DB) StudyResponses(ctx context.Context, id int64) (Responses, error) {
	_, r, err := scanResponses(db.read.QueryRowContext(ctx, responsesQuery+` WHERE r.study_id = ? GROUP BY r.study_id`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Responses{}, nil
	}
	if err != nil {
		return r, fmt.Errorf("study responses: %w", err)
	}
	return r, nil
}

// StudyOverview is one row of the dashboard.
type StudyOverview struct {
	Study *Study
	// State is the study's state (draft, open, paused, closed); "" where
	// studies have no state.
	State string
	// Items counts its items or, for IMPAQTS studies, its passages.
	Items int
	// Done and UnderWay count the people who finished everything given to
	// them and those who have not yet: experts by their assignments, crowd
	// participants by their status.
	Done, UnderWay int
	Responses
}

// Dashboard lists every study, newest first, with its counts. It runs a
// fixed number of queries (four), however many studies there are.
func (db *DB) Dashboard(ctx context.Context) ([]StudyOverview, error) {
	all, err := db.Studies(ctx)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]*StudyOverview, len(all))
	out := make([]StudyOverview, len(all))
	for i, s := range all {
		out[i].Study = s
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
			var o StudyOverview
			if err := scanOverview(rows, &id, &o); err != nil {
				return fmt.Errorf("dashboard %s: %w", op, err)
			}
			if dst := byID[id]; dst != nil {
				dst.Items += o.Items
				dst.Done += o.Done
				dst.UnderWay += o.UnderWay
				if o.Answers > 0 {
					dst.Responses = o.Responses
				}
			}
		}
		return rows.Err()
	}
	if err := each("items", `
		SELECT study_id, COUNT(*) FROM items GROUP BY study_id
		UNION ALL
		SELECT study_id, COUNT(*) FROM passages GROUP BY study_id`); err != nil {
		return nil, err
	}
	if err := each("people", peopleQuery); err != nil {
		return nil, err
	}
	if err := each("responses", responsesQuery+` GROUP BY r.study_id`); err != nil {
		return nil, err
	}
	return out, nil
}

// scanOverview scans one row of a dashboard query by its column count:
// (study, items), (study, done, under way) or a responses row.
func scanOverview(rows *sql.Rows, id *int64, o *StudyOverview) error {
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
		FROM assignments a JOIN annotators n ON n.id = a.annotator_id
		UNION ALL
		SELECT n.study_id, a.annotator_id,
			(SELECT COUNT(*) FROM context_survey_passages sp WHERE sp.survey_id = a.survey_id),
			(SELECT COUNT(*) FROM context_answers c WHERE c.assignment_id = a.id AND c.sufficient != '')
		FROM context_assignments a JOIN annotators n ON n.id = a.annotator_id
		UNION ALL
		SELECT n.study_id, a.annotator_id, COUNT(*), COUNT(r.assignment_id)
		FROM explain_assignments a JOIN annotators n ON n.id = a.annotator_id
		LEFT JOIN explain_ratings r ON r.assignment_id = a.id
		GROUP BY n.study_id, a.annotator_id
	), per AS (
		SELECT study_id, MIN(answered >= total) AS done FROM work GROUP BY study_id, annotator_id
	)
	SELECT study_id, SUM(done), SUM(1 - done) FROM per GROUP BY study_id
	UNION ALL
	SELECT study_id, SUM(status = 'completed'), SUM(status = 'active') FROM crowd_participants GROUP BY study_id`

// CloneStudy copies a study's design for a re-run with a new sample: its
// kind, language, settings and seed, its items (current text, version 1,
// attention checks and dropped items as they are) or passages, its batches,
// crowd training, context surveys, model outputs to rate and prompt
// templates. No participant, answer or scoring job is copied. An empty name
// gives "Copy of …".
func (db *DB) CloneStudy(ctx context.Context, id int64, name string) (*Study, error) {
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
	dst := &Study{Kind: src.Kind, Name: name, Lang: src.Lang, Settings: src.Settings, Seed: src.Seed}
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
		negation, strengthening, neutral, check_kind, status)
	SELECT :dst, key, type, context, utterance, implicature, cancellation,
		negation, strengthening, neutral, check_kind, status
	FROM items WHERE study_id = :src ORDER BY id`,
	`INSERT INTO batches (study_id, number) SELECT :dst, number FROM batches WHERE study_id = :src ORDER BY number`,
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
// given after its last export, it is refused (ECONFLICT) unless force.
func (db *DB) DeleteStudy(ctx context.Context, id int64, confirmName string, force bool) error {
	s, err := db.Study(ctx, id)
	if err != nil {
		return err
	}
	if strings.TrimSpace(confirmName) != s.Name {
		return Errorf(EINVALID, "type the study's name exactly (%q) to delete it", s.Name)
	}
	err = db.tx(ctx, func(tx *sql.Tx) error {
		// A call to Prolific that may have reached it keeps its record:
		// what was approved or paid must stay known (docs/prolific.md).
		var pending int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM prolific_calls WHERE study_id = ? AND state = 'pending'`, id).Scan(&pending); err != nil {
			return err
		}
		if pending > 0 {
			return Errorf(EINVALID, "%s to Prolific may or may not have been sent: settle it on the Prolific page before deleting the study", plural(pending, "call", "calls"))
		}
		if !force {
			_, r, err := scanResponses(tx.QueryRowContext(ctx, responsesQuery+` WHERE r.study_id = ? GROUP BY r.study_id`, id))
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			if r.Unexported > 0 {
				return Errorf(ECONFLICT, "%s never exported: confirm again to delete them with the study", plural(r.Unexported, "answer was", "answers were"))
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
		if ErrorCode(err) != EINTERNAL {
			return err
		}
		return fmt.Errorf("delete study: %w", err)
	}
	db.forgetCrowdStudy(id)
	return nil
}

// plural writes a count with the singular or plural form of what follows.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
