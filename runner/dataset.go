// Package runner runs model-scoring jobs (docs/scoring.md#jobs) in the
// background: it builds a job's prompts from a study's items or passages,
// asks them with a bounded worker pool, persists every answer as it comes
// back, resumes unfinished jobs after a restart and reads the results back
// as metrics.
package runner

import (
	"context"
	"encoding/json"
	"fmt"

	"pragmalab/domain"
	"pragmalab/scoring"
	"pragmalab/store"
)

// TFItems converts a study's items for the True/False task, leaving out
// attention checks and dropped items.
func TFItems(items []domain.Item) []scoring.TFItem {
	out := make([]scoring.TFItem, 0, len(items))
	for _, it := range items {
		if !it.IsData() || it.Status == domain.ItemDropped {
			continue
		}
		out = append(out, scoring.TFItem{
			Key: it.Key, Type: it.Type, Context: it.Context, Utterance: it.Utterance, Belief: it.Implicature,
			Cancellation: it.Cancellation, Negation: it.Negation, Strengthening: it.Strengthening, Neutral: it.Neutral,
		})
	}
	return out
}

// MCItems converts a study's passages for the multiple-choice and
// generation tasks: Text is the passage, Target its last sentence.
func MCItems(ps []domain.Passage) []scoring.MCItem {
	out := make([]scoring.MCItem, 0, len(ps))
	for _, p := range ps {
		out = append(out, scoring.MCItem{
			Key: p.Key, Kind: p.Kind, Text: p.Text, Target: p.Target(), Explanation: p.Explanation,
			Options: p.Options, Answer: p.Answer, Topic: p.Topic,
		})
	}
	return out
}

// Templates returns a study's prompt templates, ours where it has none;
// new jobs' prompts are built with them.
func Templates(ctx context.Context, db *store.DB, studyID int64) (scoring.Templates, error) {
	raw, ok, err := db.ScoringTemplates(ctx, studyID)
	if err != nil || !ok {
		return scoring.DefaultTemplates(), err
	}
	var t scoring.Templates
	if err := json.Unmarshal(raw, &t); err != nil {
		return scoring.DefaultTemplates(), fmt.Errorf("study %d templates: %w", studyID, err)
	}
	return t.WithDefaults(), nil
}

// dataset loads what a task needs from a study.
type dataset struct {
	tf []scoring.TFItem
	mc []scoring.MCItem
}

func loadDataset(ctx context.Context, db *store.DB, studyID int64, task scoring.Task) (*dataset, error) {
	if task == scoring.TrueFalse {
		items, err := db.ListItems(ctx, studyID)
		if err != nil {
			return nil, err
		}
		return &dataset{tf: TFItems(items)}, nil
	}
	ps, err := db.ListPassages(ctx, studyID)
	if err != nil {
		return nil, err
	}
	return &dataset{mc: MCItems(ps)}, nil
}

func (d *dataset) mcByKey() map[string]*scoring.MCItem {
	m := make(map[string]*scoring.MCItem, len(d.mc))
	for i := range d.mc {
		m[d.mc[i].Key] = &d.mc[i]
	}
	return m
}
