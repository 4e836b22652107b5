package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"pragmalab/domain"
)

// A study's design as one file (docs/studies.md#design-file): the store
// reads a study's outputs for it and creates a study from one in a single
// transaction, so a refused file leaves nothing behind.

// StudyOutputs returns an explain study's model outputs in import order,
// each naming its passage by the passage's own id.
func (db *DB) StudyOutputs(ctx context.Context, studyID int64) ([]domain.Output, error) {
	rows, err := db.read.QueryContext(ctx, `
		SELECT o.id, p.key, o.strategy, o.model, o.output
		FROM explain_outputs o JOIN passages p ON p.id = o.passage_id
		WHERE o.study_id = ? ORDER BY o.id`, studyID)
	if err != nil {
		return nil, fmt.Errorf("study outputs: %w", err)
	}
	defer rows.Close()
	var out []domain.Output
	for rows.Next() {
		o := domain.Output{StudyID: studyID}
		if err := rows.Scan(&o.ID, &o.ItemKey, &o.Strategy, &o.Model, &o.Output); err != nil {
			return nil, fmt.Errorf("study outputs: %w", err)
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

// CreateStudyWithContent creates a draft study with its items (expert and
// crowd studies) or its passages and outputs (context and explain
// studies), all in one transaction: any invalid item, passage or output
// rejects the whole, and nothing is stored.
func (db *DB) CreateStudyWithContent(ctx context.Context, s *domain.Study, items []domain.Item, ps []domain.Passage, outs []domain.Output) error {
	if err := s.Validate(); err != nil {
		return err
	}
	if len(items) > 0 {
		if err := validateFile(items); err != nil {
			return err
		}
	}
	keys := map[string]bool{}
	for i := range ps {
		if err := ps[i].Validate(); err != nil {
			return domain.Errorf(domain.EINVALID, "passage %d: %s", i+1, err)
		}
		if keys[ps[i].Key] {
			return domain.Errorf(domain.EINVALID, "passage %d: duplicate id %q", i+1, ps[i].Key)
		}
		keys[ps[i].Key] = true
	}
	for i := range outs {
		if err := outs[i].Validate(); err != nil {
			return domain.Errorf(domain.EINVALID, "output %d: %s", i+1, err)
		}
		if !keys[outs[i].ItemKey] {
			return domain.Errorf(domain.EINVALID, "output %d, field \"item_id\": no passage %q in the design", i+1, outs[i].ItemKey)
		}
	}
	if s.Seed == 0 {
		s.Seed = db.Now().UnixNano()%1_000_000 + 1
	}
	s.CreatedAt = db.Now()
	s.State = domain.StateDraft
	err := db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `
			INSERT INTO studies (kind, name, lang, settings, seed, state, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, s.Kind, s.Name, s.Lang, string(s.Settings), s.Seed, s.State, s.CreatedAt.Format(time.RFC3339Nano))
		if err != nil {
			return err
		}
		if s.ID, err = res.LastInsertId(); err != nil {
			return err
		}
		for _, it := range items {
			if _, err := tx.ExecContext(ctx, `
				INSERT INTO items (study_id, key, type, context, utterance, implicature, cancellation,
					negation, strengthening, neutral, check_kind, training, variants)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				s.ID, it.Key, it.Type, it.Context, it.Utterance, it.Implicature,
				it.Cancellation, it.Negation, it.Strengthening, it.Neutral, it.Check, it.Training, variantsValue(it.Variants)); err != nil {
				return fmt.Errorf("item %q: %w", it.Key, err)
			}
		}
		pid := map[string]int64{}
		for i := range ps {
			p := &ps[i]
			sents, _ := json.Marshal(p.Sentences)
			res, err := tx.ExecContext(ctx, `
				INSERT INTO passages (study_id, key, tag, kind, source, period, text, sentences,
					explanation, topic, option_a, option_b, option_c, option_d, answer)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				s.ID, p.Key, p.Tag, p.Kind, p.Source, p.Period, p.Text, string(sents),
				p.Explanation, p.Topic, p.Options[0], p.Options[1], p.Options[2], p.Options[3], p.Answer)
			if err != nil {
				return fmt.Errorf("passage %q: %w", p.Key, err)
			}
			if pid[p.Key], err = res.LastInsertId(); err != nil {
				return err
			}
		}
		for i, o := range outs {
			res, err := tx.ExecContext(ctx, `
				INSERT INTO explain_outputs (study_id, passage_id, strategy, model, output)
				VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, s.ID, pid[o.ItemKey], o.Strategy, o.Model, o.Output)
			if err != nil {
				return fmt.Errorf("output %d: %w", i+1, err)
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return domain.Errorf(domain.EINVALID, "output %d: passage %q already has an output of %s with strategy %s", i+1, o.ItemKey, o.Model, o.Strategy)
			}
		}
		return nil
	})
	if err != nil {
		s.ID = 0
		return fmt.Errorf("create study from design: %w", err)
	}
	return nil
}
