package runner

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"pragmalab/domain"
	"pragmalab/scoring"
	"pragmalab/store"
	"pragmalab/templates"
)

// The humans' own questions put to models (docs/scoring.md#the-humans-own-questions):
// the prompts are built from the very texts of the participants' screens
// (templates/), in the study's language.

// humanTexts are the participant texts of a study's kind in its language.
func humanTexts(task scoring.Task, lang string) scoring.HumanTexts {
	get := func(key string) string { return templates.T(lang, key) }
	switch task {
	case scoring.Likert:
		get = func(key string) string { return templates.CT(lang, key) }
	case scoring.ContextTask, scoring.ExplanationRating:
		get = func(key string) string { return templates.TI(lang, key) }
	}
	return scoring.HumanTexts{Lang: lang, Text: get}
}

// CrowdScale is the rating scale a crowd study's participants see
// (docs/studies.md#rating-scale): its scale_points, each point's label as
// the screens show it (the researcher's scale_labels, else the language's
// end labels, "" for a bare number) and its question. The model's likert
// task asks with it.
func CrowdScale(s *domain.Study) (scoring.LikertScale, error) {
	cs := domain.SettingsFor(s.Kind)
	if err := s.DecodeSettings(&cs); err != nil {
		return scoring.LikertScale{}, err
	}
	sc := templates.ScaleOf(cs)
	points := sc.NumPoints()
	labels := make([]string, points)
	for i := range labels {
		labels[i] = sc.PointLabel(s.Lang, i+1)
	}
	return scoring.LikertScale{Points: points, Labels: labels, Question: sc.QuestionIn(s.Lang)}, nil
}

// likertStrategy records a likert job's scale ("7-point") as its strategy,
// so its prompts are read with the points they were built with even if
// the study's scale changes later.
func likertStrategy(points int) string { return strconv.Itoa(points) + "-point" }

// jobPoints is how many options a human-task job's prompts list (0 for
// the other tasks).
func jobPoints(j *domain.Job) int {
	switch scoring.Task(j.Task) {
	case scoring.Likert:
		n, _ := strconv.Atoi(strings.TrimSuffix(j.Strategy, "-point"))
		return n
	case scoring.Expert, scoring.ContextTask:
		return 2
	case scoring.ExplanationRating:
		return len(domain.Judgments)
	}
	return 0
}

// humanStudy loads the study of a human-task spec and checks its kind.
func humanStudy(ctx context.Context, db *store.DB, spec Spec) (*domain.Study, error) {
	s, err := db.Study(ctx, spec.StudyID)
	if err != nil {
		return nil, err
	}
	if want := spec.Task.StudyKind(); !spec.Task.Asks(s.Kind) {
		return nil, domain.Errorf(domain.EINVALID, "task: %s asks what the participants of %s study are asked; study %d is %s study", spec.Task, aKind(want), s.ID, aKind(s.Kind))
	}
	return s, nil
}

// buildHumanPrompts renders every prompt of a human-task spec.
func buildHumanPrompts(ctx context.Context, db *store.DB, spec Spec) ([]scoring.Prompt, error) {
	s, err := humanStudy(ctx, db, spec)
	if err != nil {
		return nil, err
	}
	tx := humanTexts(spec.Task, s.Lang)
	switch spec.Task {
	case scoring.Likert:
		return likertPrompts(ctx, db, s, tx)
	case scoring.Expert:
		items, err := db.ListItems(ctx, s.ID)
		if err != nil {
			return nil, err
		}
		return scoring.BuildExpertPrompts(TFItems(items), templates.Definitions(s.Lang), tx), nil
	case scoring.ContextTask:
		return contextPrompts(ctx, db, s, tx)
	case scoring.ExplanationRating:
		return explanationPrompts(ctx, db, s, tx)
	}
	return nil, fmt.Errorf("task %s is not a human task", spec.Task)
}

// likertPrompts renders a crowd study's items in its conditions on its
// scale; a judgement study's items with their sentences (and contexts) in
// its own conditions, under its question.
func likertPrompts(ctx context.Context, db *store.DB, s *domain.Study, tx scoring.HumanTexts) ([]scoring.Prompt, error) {
	items, err := db.ListItems(ctx, s.ID)
	if err != nil {
		return nil, err
	}
	cs := domain.SettingsFor(s.Kind)
	if err := s.DecodeSettings(&cs); err != nil {
		return nil, err
	}
	if s.Kind == domain.KindJudgement {
		scale, err := CrowdScale(s)
		if err != nil {
			return nil, err
		}
		return scoring.BuildJudgementPrompts(JudgementItems(items), cs.Conditions, scale, tx), nil
	}
	conds := make([]scoring.Condition, len(cs.Conditions))
	for i, c := range cs.Conditions {
		conds[i] = scoring.Condition(c)
	}
	scale, err := CrowdScale(s)
	if err != nil {
		return nil, err
	}
	return scoring.BuildLikertPrompts(TFItems(items), conds, scale, tx), nil
}

// contextPrompts renders a context study's passages with at most its
// number of sentences.
func contextPrompts(ctx context.Context, db *store.DB, s *domain.Study, tx scoring.HumanTexts) ([]scoring.Prompt, error) {
	ps, err := db.ListPassages(ctx, s.ID)
	if err != nil {
		return nil, err
	}
	cs := domain.DefaultContextSettings()
	if err := s.DecodeSettings(&cs); err != nil {
		return nil, err
	}
	sents := map[string][]string{}
	for _, p := range ps {
		sents[p.Key] = p.Sentences
	}
	return scoring.BuildContextPrompts(MCItems(ps), sents, cs.MaxSentences, tx), nil
}

// explanationPrompts renders each model output of an explanation study
// beside its passage; an output whose passage is gone is left out.
func explanationPrompts(ctx context.Context, db *store.DB, s *domain.Study, tx scoring.HumanTexts) ([]scoring.Prompt, error) {
	ps, err := db.ListPassages(ctx, s.ID)
	if err != nil {
		return nil, err
	}
	byKey := map[string]domain.Passage{}
	for _, p := range ps {
		byKey[p.Key] = p
	}
	outs, err := db.ExplainOutputs(ctx, s.ID)
	if err != nil {
		return nil, err
	}
	var rated []scoring.RatedOutput
	for _, o := range outs {
		p, ok := byKey[o.ItemKey]
		if !ok {
			continue
		}
		rated = append(rated, scoring.RatedOutput{ID: o.ID, Passage: MCItems([]domain.Passage{p})[0], Sents: p.Sentences,
			Strategy: o.Strategy, Model: o.Model, Output: o.Output})
	}
	return scoring.BuildExplanationPrompts(rated, tx), nil
}

// humanEmpty says what a study lacks when a human task has no prompt.
func humanEmpty(t scoring.Task) string {
	switch t {
	case scoring.Likert, scoring.Expert:
		return "items (import items into this study)"
	case scoring.ContextTask:
		return "passages with an implicit content (import IMPAQTS passages into this study)"
	}
	return "model outputs to rate (import outputs into this study, or send a generation job's outputs to it)"
}

// aKind is a study kind with its indefinite article: "an expert", "a crowd".
func aKind(kind string) string {
	if kind == domain.KindExpert || kind == domain.KindExplain {
		return "an " + kind
	}
	return "a " + kind
}

// JudgementItems converts a judgement study's data items (no attention
// check, practice or dropped item) for the likert task.
func JudgementItems(items []domain.Item) []scoring.JudgementItem {
	var out []scoring.JudgementItem
	for _, it := range items {
		if !it.IsData() || it.Status == domain.ItemDropped || len(it.Variants) == 0 {
			continue
		}
		ji := scoring.JudgementItem{Key: it.Key, Variants: map[string]scoring.JudgementVariant{}}
		for c, v := range it.Variants {
			ji.Variants[c] = scoring.JudgementVariant{Context: v.Context, Sentence: v.Sentence}
		}
		out = append(out, ji)
	}
	return out
}
