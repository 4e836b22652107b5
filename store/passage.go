package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"pragmalab/domain"
)

// domain.Passage is an IMPAQTS-style passage item; it and its rules live in
// domain (domain/context.go).

// ImportPassages stores a study's passages, all or nothing: every passage is
// validated first, and a key already in the study rejects the whole import
// (the error names the passage's position, 1-based, as the row of its file).
// Only context and explain studies hold passages.
func (db *DB) ImportPassages(ctx context.Context, studyID int64, ps []domain.Passage) error {
	if len(ps) == 0 {
		return domain.Errorf(domain.EINVALID, "no passages to import")
	}
	seen := make(map[string]int, len(ps))
	for i := range ps {
		if err := ps[i].Validate(); err != nil {
			return domain.Errorf(domain.EINVALID, "row %d: %s", i+1, err)
		}
		if first, dup := seen[ps[i].Key]; dup {
			return domain.Errorf(domain.EINVALID, "row %d, field %q: duplicate id %q (first on row %d)", i+1, domain.PassageKeyColumn, ps[i].Key, first)
		}
		seen[ps[i].Key] = i + 1
	}
	return db.tx(ctx, func(tx *sql.Tx) error {
		if err := passageStudy(ctx, tx, studyID); err != nil {
			return err
		}
		existing, err := passageIDs(ctx, tx, studyID)
		if err != nil {
			return fmt.Errorf("import passages: %w", err)
		}
		for i := range ps {
			if _, ok := existing[ps[i].Key]; ok {
				return domain.Errorf(domain.ECONFLICT, "row %d, field %q: the study already has passage %q", i+1, domain.PassageKeyColumn, ps[i].Key)
			}
		}
		stmt, err := tx.PrepareContext(ctx, `
			INSERT INTO passages (study_id, key, tag, kind, source, period, text, sentences,
				explanation, topic, option_a, option_b, option_c, option_d, answer)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return fmt.Errorf("import passages: %w", err)
		}
		defer stmt.Close()
		for i := range ps {
			p := &ps[i]
			sents, _ := json.Marshal(p.Sentences)
			res, err := stmt.ExecContext(ctx, studyID, p.Key, p.Tag, p.Kind, p.Source, p.Period, p.Text, string(sents),
				p.Explanation, p.Topic, p.Options[0], p.Options[1], p.Options[2], p.Options[3], p.Answer)
			if err != nil {
				return fmt.Errorf("import passages: row %d: %w", i+1, err)
			}
			p.ID, _ = res.LastInsertId()
			p.StudyID = studyID
		}
		return nil
	})
}

// passageStudy checks that a study exists and is of a kind that holds passages.
func passageStudy(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, studyID int64) error {
	var kind string
	err := q.QueryRowContext(ctx, `SELECT kind FROM studies WHERE id = ?`, studyID).Scan(&kind)
	if errors.Is(err, sql.ErrNoRows) {
		return domain.Errorf(domain.ENOTFOUND, "study %d not found", studyID)
	}
	if err != nil {
		return fmt.Errorf("study %d: %w", studyID, err)
	}
	if kind != domain.KindContext && kind != domain.KindExplain {
		return domain.Errorf(domain.EINVALID, "study %d is a %s study; passages belong to context or explain studies", studyID, kind)
	}
	return nil
}

const passageColumnsSQL = `p.id, p.study_id, p.key, p.tag, p.kind, p.source, p.period, p.text, p.sentences,
	p.explanation, p.topic, p.option_a, p.option_b, p.option_c, p.option_d, p.answer`

func scanPassage(sc interface{ Scan(...any) error }) (domain.Passage, error) {
	var p domain.Passage
	var sents string
	err := sc.Scan(&p.ID, &p.StudyID, &p.Key, &p.Tag, &p.Kind, &p.Source, &p.Period, &p.Text, &sents,
		&p.Explanation, &p.Topic, &p.Options[0], &p.Options[1], &p.Options[2], &p.Options[3], &p.Answer)
	if err != nil {
		return p, err
	}
	if err := json.Unmarshal([]byte(sents), &p.Sentences); err != nil {
		return p, fmt.Errorf("passage %d sentences: %w", p.ID, err)
	}
	return p, nil
}

// ListPassages returns a study's passages in import order.
func (db *DB) ListPassages(ctx context.Context, studyID int64) ([]domain.Passage, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT `+passageColumnsSQL+` FROM passages p WHERE p.study_id = ? ORDER BY p.id`, studyID)
	if err != nil {
		return nil, fmt.Errorf("list passages: %w", err)
	}
	defer rows.Close()
	var out []domain.Passage
	for rows.Next() {
		p, err := scanPassage(rows)
		if err != nil {
			return nil, fmt.Errorf("list passages: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// PassageCounts counts a study's passages per kind and period
// (keys "Impl 1946–1972" …) for the researcher's overview.
func (db *DB) PassageCounts(ctx context.Context, studyID int64) (map[string]int, int, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT kind, period, COUNT(*) FROM passages WHERE study_id = ? GROUP BY kind, period`, studyID)
	if err != nil {
		return nil, 0, fmt.Errorf("passage counts: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	total := 0
	for rows.Next() {
		var kind, period string
		var n int
		if err := rows.Scan(&kind, &period, &n); err != nil {
			return nil, 0, fmt.Errorf("passage counts: %w", err)
		}
		if period == "" {
			period = "unknown period"
		}
		out[kind+" "+period] = n
		total += n
	}
	return out, total, rows.Err()
}

func jsonUnmarshalString(s string, v any) error { return json.Unmarshal([]byte(s), v) }
