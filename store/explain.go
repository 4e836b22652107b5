package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"pragmalab/domain"
	"slices"
)

// DefaultExplainSettings are the paper's (domain.DefaultExplainSettings).
func DefaultExplainSettings() domain.ExplainSettings { return domain.DefaultExplainSettings() }

// domain.Judgments are the five classes of an explanation rating (domain.Judgments).

// IsJudgment reports whether s is one of domain.Judgments.
func IsJudgment(s string) bool { return domain.IsJudgment(s) }

// ImportOutputs stores model outputs for an explanation-rating study, all
// or nothing: each must name a passage of the study by its id, and a
// passage × strategy × model already present rejects the import. Both the
// CSV upload and model-scoring generation jobs come through here; the error
// names the output's position (1-based) as its row.
func (db *DB) ImportOutputs(ctx context.Context, studyID int64, outs []domain.Output) error {
	if len(outs) == 0 {
		return domain.Errorf(domain.EINVALID, "no outputs to import")
	}
	for i := range outs {
		if err := outs[i].Validate(); err != nil {
			return domain.Errorf(domain.EINVALID, "row %d: %s", i+1, err)
		}
	}
	return db.tx(ctx, func(tx *sql.Tx) error {
		var kind string
		err := tx.QueryRowContext(ctx, `SELECT kind FROM studies WHERE id = ?`, studyID).Scan(&kind)
		if errors.Is(err, sql.ErrNoRows) {
			return domain.Errorf(domain.ENOTFOUND, "study %d not found", studyID)
		}
		if err != nil {
			return fmt.Errorf("import outputs: %w", err)
		}
		if kind != domain.KindExplain {
			return domain.Errorf(domain.EINVALID, "study %d is a %s study; model outputs belong to explain studies", studyID, kind)
		}
		ids, err := passageIDs(ctx, tx, studyID)
		if err != nil {
			return fmt.Errorf("import outputs: %w", err)
		}
		stmt, err := tx.PrepareContext(ctx, `
			INSERT INTO explain_outputs (study_id, passage_id, strategy, model, output)
			VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`)
		if err != nil {
			return fmt.Errorf("import outputs: %w", err)
		}
		defer stmt.Close()
		for i := range outs {
			o := &outs[i]
			pid, ok := ids[o.ItemKey]
			if !ok {
				return domain.Errorf(domain.EINVALID, "row %d, field \"item_id\": no passage %q in this study (import the passages first)", i+1, o.ItemKey)
			}
			res, err := stmt.ExecContext(ctx, studyID, pid, o.Strategy, o.Model, o.Output)
			if err != nil {
				return fmt.Errorf("import outputs: row %d: %w", i+1, err)
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return domain.Errorf(domain.ECONFLICT, "row %d: passage %q already has an output of %s with strategy %s", i+1, o.ItemKey, o.Model, o.Strategy)
			}
			o.ID, _ = res.LastInsertId()
			o.StudyID = studyID
		}
		return nil
	})
}

func passageIDs(ctx context.Context, tx *sql.Tx, studyID int64) (map[string]int64, error) {
	rows, err := tx.QueryContext(ctx, `SELECT key, id FROM passages WHERE study_id = ?`, studyID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ids := map[string]int64{}
	for rows.Next() {
		var k string
		var id int64
		if err := rows.Scan(&k, &id); err != nil {
			return nil, err
		}
		ids[k] = id
	}
	return ids, rows.Err()
}

// AssignExplainScreens gives an expert of the study up to n more screens:
// the outputs rated by the fewest experts so far and by fewer than overlap,
// never one the expert already has, in an order drawn from the study's
// seed. It returns how many screens were added.
func (db *DB) AssignExplainScreens(ctx context.Context, studyID, annotatorID int64, n, overlap int) (int, error) {
	added := 0
	err := db.tx(ctx, func(tx *sql.Tx) error {
		var seed int64
		err := tx.QueryRowContext(ctx, `
			SELECT s.seed FROM annotators a JOIN studies s ON s.id = a.study_id
			WHERE a.id = ? AND s.id = ? AND s.kind = ?`, annotatorID, studyID, domain.KindExplain).Scan(&seed)
		if errors.Is(err, sql.ErrNoRows) {
			return domain.Errorf(domain.ENOTFOUND, "expert not found in this study")
		}
		if err != nil {
			return fmt.Errorf("assign screens: %w", err)
		}
		rows, err := tx.QueryContext(ctx, `
			SELECT o.id, (SELECT COUNT(*) FROM explain_assignments x JOIN annotators n ON n.id = x.annotator_id
				WHERE x.output_id = o.id AND n.pilot = 0) AS c
			FROM explain_outputs o
			WHERE o.study_id = ? AND o.id NOT IN (SELECT output_id FROM explain_assignments WHERE annotator_id = ?)
			ORDER BY o.id`, studyID, annotatorID)
		if err != nil {
			return fmt.Errorf("assign screens: %w", err)
		}
		type cand struct {
			id    int64
			count int
		}
		var cands []cand
		for rows.Next() {
			var c cand
			if err := rows.Scan(&c.id, &c.count); err != nil {
				rows.Close()
				return fmt.Errorf("assign screens: %w", err)
			}
			if c.count < overlap {
				cands = append(cands, c)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("assign screens: %w", err)
		}
		rng := rand.New(rand.NewPCG(uint64(seed), uint64(annotatorID)))
		rng.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
		slices.SortStableFunc(cands, func(a, b cand) int { return cmp.Compare(a.count, b.count) })
		cands = cands[:min(n, len(cands))]
		var pos int
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(position), 0) FROM explain_assignments WHERE annotator_id = ?`, annotatorID).Scan(&pos); err != nil {
			return fmt.Errorf("assign screens: %w", err)
		}
		for _, c := range cands {
			pos++
			if _, err := tx.ExecContext(ctx, `INSERT INTO explain_assignments (annotator_id, position, output_id) VALUES (?, ?, ?)`,
				annotatorID, pos, c.id); err != nil {
				return fmt.Errorf("assign screens: %w", err)
			}
			added++
		}
		return nil
	})
	return added, err
}

// ExplainScreens returns an expert's screens in order.
func (db *DB) ExplainScreens(ctx context.Context, annotatorID int64) ([]domain.ExplainScreen, error) {
	rows, err := db.read.QueryContext(ctx, `
		SELECT x.position, o.id, o.strategy, o.model, o.output, COALESCE(r.judgment, ''), `+passageColumnsSQL+`
		FROM explain_assignments x
		JOIN explain_outputs o ON o.id = x.output_id
		JOIN passages p ON p.id = o.passage_id
		LEFT JOIN explain_ratings r ON r.assignment_id = x.id
		WHERE x.annotator_id = ? ORDER BY x.position`, annotatorID)
	if err != nil {
		return nil, fmt.Errorf("explain screens: %w", err)
	}
	defer rows.Close()
	var out []domain.ExplainScreen
	for rows.Next() {
		var s domain.ExplainScreen
		p := &s.Passage
		var sents string
		if err := rows.Scan(&s.Position, &s.OutputID, &s.Strategy, &s.Model, &s.Output, &s.Judgment,
			&p.ID, &p.StudyID, &p.Key, &p.Tag, &p.Kind, &p.Source, &p.Period, &p.Text, &sents,
			&p.Explanation, &p.Topic, &p.Options[0], &p.Options[1], &p.Options[2], &p.Options[3], &p.Answer); err != nil {
			return nil, fmt.Errorf("explain screens: %w", err)
		}
		if err := jsonUnmarshalString(sents, &p.Sentences); err != nil {
			return nil, fmt.Errorf("explain screens: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// SaveExplainRating stores an expert's judgment on one of their own
// screens, as one write of the write queue (durable on return); sending it again replaces it. rt is the
// browser's response time in ms (0: not measured); in, the page's integrity
// record, is stored in the same write (docs/studies.md#integrity-signals).
func (db *DB) SaveExplainRating(ctx context.Context, annotatorID int64, position int, judgment string, rt int, in domain.Integrity) error {
	if !IsJudgment(judgment) {
		return domain.Errorf(domain.EINVALID, "please choose one of the five answers")
	}
	return db.sessionTx(ctx, prioAnswer, func(ctx context.Context, tx *sql.Tx) error {
		var id int64
		err := tx.QueryRowContext(ctx, `SELECT id FROM explain_assignments WHERE annotator_id = ? AND position = ?`,
			annotatorID, position).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return domain.Errorf(domain.ENOTFOUND, "screen not found")
		}
		if err != nil {
			return fmt.Errorf("save rating: %w", err)
		}
		_, err = tx.ExecContext(ctx, `
			INSERT INTO explain_ratings (assignment_id, judgment, answered_at, rt_ms, shown_at, link_no, `+integrityCols(false)+`)
			VALUES (?, ?, ?, ?, `+qShownAt+`, (SELECT link_no FROM annotators WHERE id = ?), ?, ?, ?, ?, ?)
			ON CONFLICT (assignment_id) DO UPDATE SET judgment = excluded.judgment, answered_at = excluded.answered_at,
				link_no = excluded.link_no,
				rt_ms = excluded.rt_ms, shown_at = excluded.shown_at,`+integrityUpdate(false)+``,
			append([]any{id, judgment, db.now(), RT(rt), FlowExplain, annotatorID, position, annotatorID}, integrityValues(in, false)...)...)
		if err != nil {
			return fmt.Errorf("save rating: %w", err)
		}
		return nil
	})
}

// ExplainStudyProgress lists every expert of a study with their progress,
// and counts the outputs and those still short of the overlap.
func (db *DB) ExplainStudyProgress(ctx context.Context, studyID int64, overlap int) ([]domain.ExplainProgress, int, int, error) {
	rows, err := db.read.QueryContext(ctx, `
		SELECT a.id, a.name, CASE WHEN a.revoked_at = '' THEN a.token ELSE '' END,
			(SELECT COUNT(*) FROM explain_assignments x WHERE x.annotator_id = a.id),
			(SELECT COUNT(*) FROM explain_assignments x JOIN explain_ratings r ON r.assignment_id = x.id WHERE x.annotator_id = a.id)
		FROM annotators a WHERE a.study_id = ? AND a.pilot = 0 ORDER BY a.name`, studyID)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("explain progress: %w", err)
	}
	defer rows.Close()
	var out []domain.ExplainProgress
	for rows.Next() {
		var p domain.ExplainProgress
		if err := rows.Scan(&p.AnnotatorID, &p.Annotator, &p.Token, &p.Screens, &p.Rated); err != nil {
			return nil, 0, 0, fmt.Errorf("explain progress: %w", err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, 0, fmt.Errorf("explain progress: %w", err)
	}
	var outputs, short int
	err = db.read.QueryRowContext(ctx, `
		SELECT COUNT(*), COALESCE(SUM((SELECT COUNT(*) FROM explain_assignments x JOIN annotators n ON n.id = x.annotator_id
			WHERE x.output_id = o.id AND n.pilot = 0) < ?), 0)
		FROM explain_outputs o WHERE o.study_id = ?`, overlap, studyID).Scan(&outputs, &short)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("explain progress: %w", err)
	}
	return out, outputs, short, nil
}

// ExplanationRatingColumns is the header of the explanation ratings file.
var ExplanationRatingColumns = slices.Concat([]string{"annotator_id", "item_id", "kind", "strategy", "judgment", "model"}, TimeColumns, SignalColumns)

// ExplanationRatingRow is one expert's judgment of a model output: the
// expert's name, the passage's own id and kind, the prompting strategy, the
// judgment and the model.
type ExplanationRatingRow struct {
	Annotator, Item, Kind, Strategy, Judgment, Model string
	AnswerTimes
	IntegrityRecord
}

// ExplanationRatingRows lists the judgments of a study's experts, by
// expert and position.
func (db *DB) ExplanationRatingRows(ctx context.Context, studyID int64) ([]ExplanationRatingRow, error) {
	return queryRows(ctx, db, "explanation ratings", `
		SELECT n.name, p.key, p.kind, o.strategy, r.judgment, o.model, r.shown_at, r.answered_at, r.rt_ms, `+integritySQL("r", false)+`
		FROM explain_ratings r
		JOIN explain_assignments x ON x.id = r.assignment_id
		JOIN annotators n ON n.id = x.annotator_id
		JOIN explain_outputs o ON o.id = x.output_id
		JOIN passages p ON p.id = o.passage_id
		WHERE o.study_id = ? AND (n.pilot = 0 OR ?)
		ORDER BY n.name, x.position`, []any{studyID, pilotIncluded(ctx)}, func(rows *sql.Rows, r *ExplanationRatingRow) error {
		times, done := r.AnswerTimes.dest()
		in, filled := r.IntegrityRecord.dest(false)
		err := rows.Scan(slices.Concat([]any{&r.Annotator, &r.Item, &r.Kind, &r.Strategy, &r.Judgment, &r.Model}, times, in)...)
		done()
		filled()
		return err
	})
}

// ExportExplanationRatings writes the explanation ratings file
// (docs/formats.md#explanation-ratings-file): one row per judgment.
func (db *DB) ExportExplanationRatings(ctx context.Context, studyID int64, w io.Writer) error {
	rows, err := db.ExplanationRatingRows(ctx, studyID)
	if err != nil {
		return err
	}
	return writeCSV(w, ExplanationRatingColumns, rows, func(r ExplanationRatingRow) []string {
		return slices.Concat([]string{r.Annotator, r.Item, r.Kind, r.Strategy, r.Judgment, r.Model}, r.Fields(), r.IntegrityRecord.fields(false))
	})
}
