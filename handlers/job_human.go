package handlers

import (
	"fmt"
	"sort"
	"strconv"

	"pragmalab/runner"
	"pragmalab/scoring"
	"pragmalab/templates"
)

// maxShownQuestions bounds the per-question table of a human-task job;
// the CSV has every question.
const maxShownQuestions = 500

// humanTaskView formats a human-task job's results for its page.
func humanTaskView(res *runner.Results) *templates.HumanTaskView {
	m := res.HumanMetrics
	if m == nil {
		return nil
	}
	v := &templates.HumanTaskView{Task: res.Job.Task, Options: res.Options(), RowsTotal: len(res.Human)}
	var qs []string
	for q := range m.Counts {
		qs = append(qs, q)
	}
	sort.Strings(qs)
	for _, q := range qs {
		row := templates.HumanCountRow{Question: q, Mean: "—"}
		for _, n := range m.Counts[q] {
			row.Counts = append(row.Counts, strconv.Itoa(n))
		}
		if mean, ok := m.MeanRating[q]; ok {
			row.Mean = strconv.FormatFloat(mean, 'f', 2, 64)
		}
		v.Counts = append(v.Counts, row)
	}
	if s := m.CancellationRecognition; s != nil {
		v.Measures = append(v.Measures, templates.HumanMeasure{Label: "Cancellation recognition (rated lower with the cancellation than without)", Value: shareOf(*s)})
	}
	if m.Plausible != nil {
		v.Measures = append(v.Measures,
			templates.HumanMeasure{Label: "Implicature judged plausible", Value: shareOf(*m.Plausible)},
			templates.HumanMeasure{Label: "Cancellation judged correct, of the plausible implicatures (the form's rule)", Value: shareOf(*m.CancellationCorrect)})
	}
	if m.Needed != nil {
		var ks []string
		for k := range m.Needed {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		for _, k := range ks {
			label := "Sufficient with " + k + " preceding sentences"
			if k == "not_sufficient" {
				label = "Not sufficient even with all the context"
			}
			v.Measures = append(v.Measures, templates.HumanMeasure{Label: label, Value: strconv.Itoa(m.Needed[k]) + " questions"})
		}
	}
	if b := m.OrderBias; b.Mean != nil {
		v.OrderBias = fmt.Sprintf("Option-order bias: mean |E(forward) − E(reversed)| / (options − 1) = %.3f (max %.3f) over %d questions asked in both orders; 0 = the order does not matter.", *b.Mean, *b.Max, b.N)
	}
	for _, h := range res.Human[:min(len(res.Human), maxShownQuestions)] {
		row := templates.HumanRow{Item: h.Item, Type: h.Type, Question: h.Condition, Label: h.Label,
			Mean: strconv.FormatFloat(h.Mean, 'f', 2, 64), NotAsked: h.NotAsked}
		for _, p := range h.Dist {
			row.Dist = append(row.Dist, strconv.FormatFloat(p, 'f', 3, 64))
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}

// humanAnswerText is one human-task prompt's answer for the prompt list.
func humanAnswerText(a scoring.Answer) string {
	s := fmt.Sprintf("option %d, distribution", a.Choice)
	for _, p := range a.Dist {
		s += " " + strconv.FormatFloat(p, 'f', 3, 64)
	}
	if len(a.Samples) > 0 {
		s += fmt.Sprintf(" from %d samples", len(a.Samples)-a.Unparsed)
		if a.Unparsed > 0 {
			s += fmt.Sprintf(" (%d more unparseable)", a.Unparsed)
		}
	}
	return s
}

// humanTaskLabels name the human task of each study kind on the launch
// form.
var humanTaskLabels = map[scoring.Task]string{
	scoring.Likert:            "Likert: the crowd's question and rating scale (distribution over the points)",
	scoring.Expert:            "Expert: plausibility, then cancellation, as the experts' form asks",
	scoring.ContextTask:       "Context: sufficient or more context needed, at each step of the survey",
	scoring.ExplanationRating: "Explanation rating: the five-option judgement of each output",
}

// addHumanTask offers on the launch form the task that asks this kind of
// study's own question, and the built-in scorers that answer it.
func addHumanTask(v *templates.JobsView, kind string) {
	for _, t := range scoring.HumanTasks {
		if !t.Asks(kind) {
			continue
		}
		v.Tasks = append(v.Tasks, templates.Choice{Value: string(t), Label: humanTaskLabels[t]})
		for _, b := range scoring.Builtins {
			listed := false
			for _, c := range v.Scorers {
				listed = listed || c.Value == b.Name
			}
			for _, bt := range b.Tasks {
				if bt == t && !listed {
					v.Scorers = append(v.Scorers, templates.Choice{Value: b.Name, Label: "built-in: " + b.Name + " — " + b.Description})
					listed = true
				}
			}
		}
	}
}
