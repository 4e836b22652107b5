package store

import (
	"context"
	"fmt"

	"pragmalab/domain"
)

// ExplainOutputs lists the model outputs of an explanation-rating study,
// each with its passage's key, in the order they were imported: the
// screens the experts rate, which the explanation-rating scoring task puts
// to models (docs/scoring.md#the-humans-own-questions).
func (db *DB) ExplainOutputs(ctx context.Context, studyID int64) ([]domain.Output, error) {
	rows, err := db.read.QueryContext(ctx, `
		SELECT o.id, o.study_id, p.key, o.strategy, o.model, o.output
		FROM explain_outputs o JOIN passages p ON p.id = o.passage_id
		WHERE o.study_id = ? ORDER BY o.id`, studyID)
	if err != nil {
		return nil, fmt.Errorf("explain outputs: %w", err)
	}
	defer rows.Close()
	var out []domain.Output
	for rows.Next() {
		var o domain.Output
		if err := rows.Scan(&o.ID, &o.StudyID, &o.ItemKey, &o.Strategy, &o.Model, &o.Output); err != nil {
			return nil, fmt.Errorf("explain outputs: %w", err)
		}
		out = append(out, o)
	}
	return out, rows.Err()
}
