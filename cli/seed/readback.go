package seed

import (
	"context"
	"fmt"

	"pragmalab/store"
)

// What the benchmarks of the command line (pragmalab bench,
// docs/cli.md#bench) need beyond the use cases: a bare study to fill, the
// raw imports they time apart from parsing, the read-back that checks no
// acknowledged answer was lost, and the write queue's figures.

// CrowdTrainingConditions lists a crowd study's training screens in order,
// each by its condition (trigger or cancel).
func (s *Seeder) CrowdTrainingConditions(ctx context.Context, studyID int64) ([]string, error) {
	training, err := s.db.CrowdTraining(ctx, studyID)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(training))
	for i, t := range training {
		out[i] = t.Condition
	}
	return out, nil
}

// CrowdAnswerRow is one crowd participant with one of their stored
// ratings (Position and Rating nil: none yet), as the load benchmark reads
// them back.
type CrowdAnswerRow struct {
	PID       string
	Completed bool
	Position  *int
	Rating    *int
}

// CrowdAnswerRows reads back every participant of a crowd study with
// every rating stored, duplicates included (there must be none).
func (s *Seeder) CrowdAnswerRows(ctx context.Context, studyID int64) ([]CrowdAnswerRow, error) {
	rows, err := s.db.Reader().QueryContext(ctx, `
		SELECT p.prolific_pid, p.status, r.position, r.rating
		FROM crowd_participants p LEFT JOIN crowd_ratings r ON r.participant_id = p.id
		WHERE p.study_id = ?`, studyID)
	if err != nil {
		return nil, fmt.Errorf("crowd answers: %w", err)
	}
	defer rows.Close()
	var out []CrowdAnswerRow
	for rows.Next() {
		var r CrowdAnswerRow
		var status string
		if err := rows.Scan(&r.PID, &status, &r.Position, &r.Rating); err != nil {
			return nil, fmt.Errorf("crowd answers: %w", err)
		}
		r.Completed = status == store.CrowdCompleted
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("crowd answers: %w", err)
	}
	return out, nil
}
