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

// DefaultContextSettings are the paper's (domain.DefaultContextSettings).
func DefaultContextSettings() domain.ContextSettings { return domain.DefaultContextSettings() }

// SaveContextSurveys replaces a study's surveys with the given lists of
// passage keys. Once an expert is assigned a survey the surveys are fixed.
func (db *DB) SaveContextSurveys(ctx context.Context, studyID int64, surveys [][]string) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		if err := passageStudy(ctx, tx, studyID); err != nil {
			return err
		}
		return rebuildUnlessAssigned(ctx, tx, studyID, groups{noun: "surveys", table: "context_surveys", assigned: `
			SELECT COUNT(*) FROM context_assignments a JOIN context_surveys s ON s.id = a.survey_id
			WHERE s.study_id = ?`}, surveys, func(sid int64, survey, pos int, key string) error {
			res, err := tx.ExecContext(ctx, `
				INSERT INTO context_survey_passages (survey_id, position, passage_id)
				SELECT ?, ?, id FROM passages WHERE study_id = ? AND key = ?`, sid, pos, studyID, key)
			if err != nil {
				return fmt.Errorf("save surveys: %w", err)
			}
			if n, _ := res.RowsAffected(); n != 1 {
				return domain.Errorf(domain.EINVALID, "survey %d: passage %q is not in the study", survey, key)
			}
			return nil
		})
	})
}

// ContextSurveys lists a study's surveys with their progress.
func (db *DB) ContextSurveys(ctx context.Context, studyID int64) ([]domain.ContextSurvey, error) {
	rows, err := db.read.QueryContext(ctx, `
		SELECT s.id, s.study_id, s.number,
			(SELECT COUNT(*) FROM context_survey_passages sp WHERE sp.survey_id = s.id),
			(SELECT COUNT(*) FROM context_assignments a WHERE a.survey_id = s.id),
			(SELECT COUNT(*) FROM context_assignments a WHERE a.survey_id = s.id AND
				(SELECT COUNT(*) FROM context_answers c WHERE c.assignment_id = a.id AND c.sufficient != '') =
				(SELECT COUNT(*) FROM context_survey_passages sp WHERE sp.survey_id = s.id))
		FROM context_surveys s WHERE s.study_id = ? ORDER BY s.number`, studyID)
	if err != nil {
		return nil, fmt.Errorf("context surveys: %w", err)
	}
	defer rows.Close()
	var out []domain.ContextSurvey
	for rows.Next() {
		var s domain.ContextSurvey
		if err := rows.Scan(&s.ID, &s.StudyID, &s.Number, &s.Size, &s.Experts, &s.Finished); err != nil {
			return nil, fmt.Errorf("context surveys: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// AssignContextSurvey gives an expert of the study a survey: the given one,
// or (surveyID 0) the survey with the fewest experts so far, lowest number
// first. It returns the assignment id; assigning the same survey twice is
// a no-op that returns the existing assignment.
func (db *DB) AssignContextSurvey(ctx context.Context, studyID, annotatorID, surveyID int64) (int64, error) {
	var id int64
	err := db.tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM annotators WHERE id = ? AND study_id = ?`, annotatorID, studyID).Scan(&n); err != nil {
			return fmt.Errorf("assign survey: %w", err)
		}
		if n == 0 {
			return domain.Errorf(domain.ENOTFOUND, "expert not found in this study")
		}
		if surveyID == 0 {
			err := tx.QueryRowContext(ctx, `
				SELECT s.id FROM context_surveys s
				WHERE s.study_id = ? AND s.id NOT IN (SELECT survey_id FROM context_assignments WHERE annotator_id = ?)
				ORDER BY (SELECT COUNT(*) FROM context_assignments a JOIN annotators n ON n.id = a.annotator_id
					WHERE a.survey_id = s.id AND n.pilot = 0), s.number
				LIMIT 1`, studyID, annotatorID).Scan(&surveyID)
			if errors.Is(err, sql.ErrNoRows) {
				return domain.Errorf(domain.ECONFLICT, "no survey left to assign (build the surveys first)")
			}
			if err != nil {
				return fmt.Errorf("assign survey: %w", err)
			}
		} else if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM context_surveys WHERE id = ? AND study_id = ?`, surveyID, studyID).Scan(&n); err != nil || n == 0 {
			return domain.Errorf(domain.ENOTFOUND, "survey not found in this study")
		}
		if _, err := tx.ExecContext(ctx, `
			INSERT INTO context_assignments (annotator_id, survey_id) VALUES (?, ?)
			ON CONFLICT (annotator_id, survey_id) DO NOTHING`, annotatorID, surveyID); err != nil {
			return fmt.Errorf("assign survey: %w", err)
		}
		return tx.QueryRowContext(ctx, `SELECT id FROM context_assignments WHERE annotator_id = ? AND survey_id = ?`,
			annotatorID, surveyID).Scan(&id)
	})
	return id, err
}

const contextAssignmentQuery = `
	SELECT a.id, a.annotator_id, n.name, a.survey_id, s.number,
		(SELECT COUNT(*) FROM context_survey_passages sp WHERE sp.survey_id = a.survey_id),
		(SELECT COUNT(*) FROM context_answers c WHERE c.assignment_id = a.id AND c.sufficient != '')
	FROM context_assignments a
	JOIN annotators n ON n.id = a.annotator_id
	JOIN context_surveys s ON s.id = a.survey_id`

func (db *DB) contextAssignments(ctx context.Context, where string, args ...any) ([]domain.ContextAssignment, error) {
	rows, err := db.read.QueryContext(ctx, contextAssignmentQuery+where, args...)
	if err != nil {
		return nil, fmt.Errorf("context assignments: %w", err)
	}
	defer rows.Close()
	var out []domain.ContextAssignment
	for rows.Next() {
		var a domain.ContextAssignment
		if err := rows.Scan(&a.ID, &a.AnnotatorID, &a.Annotator, &a.SurveyID, &a.SurveyNumber, &a.Total, &a.Answered); err != nil {
			return nil, fmt.Errorf("context assignments: %w", err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// ContextAssignments lists every assignment of a study, for the progress page.
func (db *DB) ContextAssignments(ctx context.Context, studyID int64) ([]domain.ContextAssignment, error) {
	return db.contextAssignments(ctx, ` WHERE s.study_id = ? AND n.pilot = 0 ORDER BY s.number, n.name`, studyID)
}

// AnnotatorContextAssignments lists one expert's surveys.
func (db *DB) AnnotatorContextAssignments(ctx context.Context, annotatorID int64) ([]domain.ContextAssignment, error) {
	return db.contextAssignments(ctx, ` WHERE a.annotator_id = ? ORDER BY s.number`, annotatorID)
}

// AnnotatorContextAssignment returns an assignment only if it belongs to
// the expert: editing the URL cannot open someone else's survey.
func (db *DB) AnnotatorContextAssignment(ctx context.Context, annotatorID, assignmentID int64) (*domain.ContextAssignment, error) {
	as, err := db.contextAssignments(ctx, ` WHERE a.annotator_id = ? AND a.id = ?`, annotatorID, assignmentID)
	if err != nil {
		return nil, err
	}
	if len(as) == 0 {
		return nil, domain.Errorf(domain.ENOTFOUND, "survey not found")
	}
	return &as[0], nil
}

// ContextQuestions returns the questions of an assignment in order.
func (db *DB) ContextQuestions(ctx context.Context, assignmentID int64) ([]domain.ContextQuestion, error) {
	rows, err := db.read.QueryContext(ctx, `
		SELECT sp.position, `+passageColumnsSQL+`, COALESCE(c.shown, 0), COALESCE(c.sufficient, '')
		FROM context_assignments a
		JOIN context_survey_passages sp ON sp.survey_id = a.survey_id
		JOIN passages p ON p.id = sp.passage_id
		LEFT JOIN context_answers c ON c.assignment_id = a.id AND c.position = sp.position
		WHERE a.id = ? ORDER BY sp.position`, assignmentID)
	if err != nil {
		return nil, fmt.Errorf("context questions: %w", err)
	}
	defer rows.Close()
	var out []domain.ContextQuestion
	for rows.Next() {
		var q domain.ContextQuestion
		p := &q.Passage
		var sents string
		if err := rows.Scan(&q.Position, &p.ID, &p.StudyID, &p.Key, &p.Tag, &p.Kind, &p.Source, &p.Period, &p.Text, &sents,
			&p.Explanation, &p.Topic, &p.Options[0], &p.Options[1], &p.Options[2], &p.Options[3], &p.Answer,
			&q.Shown, &q.Sufficient); err != nil {
			return nil, fmt.Errorf("context questions: %w", err)
		}
		if err := jsonUnmarshalString(sents, &p.Sentences); err != nil {
			return nil, fmt.Errorf("context questions: %w", err)
		}
		out = append(out, q)
	}
	return out, rows.Err()
}

// ContextAct applies an expert's action to one question of their own
// assignment, as one write of the write queue (durable on return), and returns the question's new
// state. seen is the number of revealed sentences the page showed: an
// action sent from an outdated page (a double click, a second tab) is
// ignored, so no click is ever counted twice. limit is the study's
// MaxSentences. The final answer gets its times: answered_at now, and rt,
// the browser's response time in ms on the page it was given (0: not
// measured).
//
// in is the page's integrity record (docs/studies.md#integrity-signals),
// added in the same write to what the question's earlier pages recorded:
// the counts summed, webdriver and pointer_or_key the largest, the first
// filled honeypot kept.
func (db *DB) ContextAct(ctx context.Context, annotatorID, assignmentID int64, position, seen int, action string, limit, rt int, in domain.Integrity) (domain.ContextQuestion, error) {
	var q domain.ContextQuestion
	if action != domain.ContextSufficient && action != domain.ContextMore && action != domain.ContextRestart {
		return q, domain.Errorf(domain.EINVALID, "unknown answer %q", action)
	}
	err := db.sessionTx(ctx, prioAnswer, func(ctx context.Context, tx *sql.Tx) error {
		var sents string
		q.Position = position
		err := tx.QueryRowContext(ctx, `
			SELECT p.id, p.sentences, COALESCE(c.shown, 0), COALESCE(c.sufficient, '')
			FROM context_assignments a
			JOIN context_survey_passages sp ON sp.survey_id = a.survey_id AND sp.position = ?
			JOIN passages p ON p.id = sp.passage_id
			LEFT JOIN context_answers c ON c.assignment_id = a.id AND c.position = sp.position
			WHERE a.id = ? AND a.annotator_id = ?`, position, assignmentID, annotatorID).
			Scan(&q.Passage.ID, &sents, &q.Shown, &q.Sufficient)
		if errors.Is(err, sql.ErrNoRows) {
			return domain.Errorf(domain.ENOTFOUND, "question not found")
		}
		if err != nil {
			return fmt.Errorf("context answer: %w", err)
		}
		if err := jsonUnmarshalString(sents, &q.Passage.Sentences); err != nil {
			return fmt.Errorf("context answer: %w", err)
		}
		if seen != q.Shown && action != domain.ContextRestart {
			return nil // sent from a page that is out of date
		}
		if !contextStep(&q, action, limit) {
			return nil
		}
		answered, rtv := "", RT(0)
		if q.Sufficient != "" {
			answered, rtv = db.now(), RT(rt)
		}
		_, err = tx.ExecContext(ctx, `
			INSERT INTO context_answers (assignment_id, position, passage_id, shown, sufficient, updated_at,
				answered_at, rt_ms, shown_at, link_no, `+integrityCols(false)+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, `+qShownAt+`, (SELECT n.link_no FROM context_assignments ca
				JOIN annotators n ON n.id = ca.annotator_id WHERE ca.id = ?), ?, ?, ?, ?, ?)
			ON CONFLICT (assignment_id, position) DO UPDATE SET
				link_no = excluded.link_no, shown = excluded.shown, sufficient = excluded.sufficient, updated_at = excluded.updated_at,
				answered_at = excluded.answered_at, rt_ms = excluded.rt_ms, shown_at = excluded.shown_at,`+qIntegrityAdd+``,
			append([]any{assignmentID, position, q.Passage.ID, q.Shown, q.Sufficient, db.now(), answered, rtv,
				FlowContext, assignmentID, position, assignmentID}, integrityValues(in, false)...)...)
		if err != nil {
			return fmt.Errorf("context answer: %w", err)
		}
		return nil
	})
	return q, err
}

// contextStep moves the question q by the action: sufficient is final;
// more reveals one sentence up to the limit, where it becomes the final
// "no"; restart hides all again. It reports false when there is nothing
// to write: more on a question already final at the limit.
func contextStep(q *domain.ContextQuestion, action string, limit int) bool {
	switch action {
	case domain.ContextSufficient:
		q.Sufficient = "yes"
	case domain.ContextMore:
		switch {
		case q.Sufficient == "no":
			return false // already final at the limit
		case q.Shown < q.MaxShown(limit):
			q.Shown, q.Sufficient = q.Shown+1, ""
		default:
			q.Sufficient = "no"
		}
	case domain.ContextRestart:
		q.Shown, q.Sufficient = 0, ""
	}
	return true
}

// ContextAnswerColumns is the header of the context answers file;
// max_sentences is how many preceding sentences the passage could show
// (the study's limit, or fewer when the passage has fewer), so that
// "insufficient" after fewer than 5 is told apart from a broken row; the
// answer times (docs/formats.md#answer-times) close it.
var ContextAnswerColumns = slices.Concat([]string{"annotator_id", "survey_id", "item_id", "kind", "period", "sentences", "sufficient", "max_sentences"}, TimeColumns, SignalColumns)

// ContextAnswerRow is one final answer of a context survey: the expert's
// name, the survey's number, the passage's own id, kind and period, how
// many preceding sentences were shown when the answer became final, and
// "yes" or "no"; MaxSentences is how many the passage could show.
type ContextAnswerRow struct {
	Annotator          string
	Survey             int
	Item, Kind, Period string
	Sentences          int
	Sufficient         string
	MaxSentences       int
	AnswerTimes
	IntegrityRecord
}

// ContextAnswerRows lists the final answers of a study's context surveys,
// by survey, expert and position.
func (db *DB) ContextAnswerRows(ctx context.Context, studyID int64) ([]ContextAnswerRow, error) {
	st, err := db.Study(ctx, studyID)
	if err != nil {
		return nil, fmt.Errorf("context answers: %w", err)
	}
	set := DefaultContextSettings()
	if err := st.DecodeSettings(&set); err != nil {
		return nil, fmt.Errorf("context answers: %w", err)
	}
	return queryRows(ctx, db, "context answers", `
		SELECT n.name, s.number, p.key, p.kind, p.period, c.shown, c.sufficient, p.sentences, c.shown_at, c.answered_at, c.rt_ms, `+integritySQL("c", false)+`
		FROM context_answers c
		JOIN context_assignments a ON a.id = c.assignment_id
		JOIN context_surveys s ON s.id = a.survey_id
		JOIN annotators n ON n.id = a.annotator_id
		JOIN passages p ON p.id = c.passage_id
		WHERE s.study_id = ? AND c.sufficient != '' AND (n.pilot = 0 OR ?)
		ORDER BY s.number, n.name, c.position`, []any{studyID, pilotIncluded(ctx)}, func(rows *sql.Rows, r *ContextAnswerRow) error {
		var sents string
		times, done := r.AnswerTimes.dest()
		in, filled := r.IntegrityRecord.dest(false)
		err := rows.Scan(slices.Concat([]any{&r.Annotator, &r.Survey, &r.Item, &r.Kind, &r.Period, &r.Sentences, &r.Sufficient, &sents}, times, in)...)
		done()
		filled()
		if err != nil {
			return err
		}
		var q domain.ContextQuestion
		if err := jsonUnmarshalString(sents, &q.Passage.Sentences); err != nil {
			return err
		}
		r.MaxSentences = q.MaxShown(set.MaxSentences)
		return nil
	})
}

// ExportContextAnswers writes the context answers file
// (docs/formats.md#context-answers-file): one row per final answer.
func (db *DB) ExportContextAnswers(ctx context.Context, studyID int64, w io.Writer) error {
	rows, err := db.ContextAnswerRows(ctx, studyID)
	if err != nil {
		return err
	}
	return writeCSV(w, ContextAnswerColumns, rows, func(r ContextAnswerRow) []string {
		return slices.Concat([]string{r.Annotator, strconv.Itoa(r.Survey), r.Item, r.Kind, r.Period, strconv.Itoa(r.Sentences), r.Sufficient, strconv.Itoa(r.MaxSentences)}, r.Fields(), r.IntegrityRecord.fields(false))
	})
}
