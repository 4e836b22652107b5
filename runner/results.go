package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"

	"pragmalab/csvsafe"
	"pragmalab/domain"
	"pragmalab/scoring"
	"pragmalab/store"
)

// Results are a job's answers folded into the task's metrics.
type Results struct {
	Job      *domain.Job
	Scorer   string
	Progress domain.JobProgress

	TF        []scoring.TFItemResult
	TFMetrics map[string]scoring.TFMetrics
	MC        []scoring.MCItemResult
	MCMetrics map[string]scoring.MCMetrics
	Gen       []GenOutput
	// Human and HumanMetrics are a human task's results (human_results.go).
	Human        []scoring.HumanResult
	HumanMetrics *scoring.HumanMetrics
	lastStep     map[string]int // a context job's last step asked per passage

	// JobItems counts the items the job asks about, per type or kind and
	// "all": the N of "n of N" beside every metric.
	JobItems map[string]int
	// Samples and Unparsed count the sampled True/False replies and those
	// answering neither True nor False (left out of P(True)).
	Samples, Unparsed int
}

// GenOutput is one generated explanation.
type GenOutput struct {
	ItemKey  string `json:"item_id"`
	Kind     string `json:"kind"`
	Strategy string `json:"strategy"`
	Output   string `json:"output"`
}

// LoadResults reads a job's answers and computes its metrics over the
// study's current items (an item dropped since the job ran is left out).
func LoadResults(ctx context.Context, db *store.DB, jobID int64) (*Results, error) {
	j, err := db.Job(ctx, jobID)
	if err != nil {
		return nil, err
	}
	rows, err := db.JobAnswers(ctx, jobID)
	if err != nil {
		return nil, err
	}
	res := &Results{Job: j, Scorer: ScorerName(j)}
	answers, err := res.tallyAnswers(rows)
	if err != nil {
		return nil, err
	}
	asked := make(map[string]bool, len(rows))
	for _, r := range rows {
		asked[r.Key] = true
	}
	task := scoring.Task(j.Task)
	if scoring.IsHumanTask(task) {
		return res, res.loadHuman(ctx, db, rows, answers)
	}
	ds, err := loadDataset(ctx, db, j.StudyID, task)
	if err != nil {
		return nil, err
	}
	switch task {
	case scoring.TrueFalse:
		res.aggregateTF(ds, asked, answers)
	case scoring.MultipleChoice:
		res.aggregateMC(ds, asked, answers)
	case scoring.Generation:
		res.JobItems = map[string]int{scoring.AllTypes: res.Progress.Total}
		for _, it := range ds.mc {
			if a, ok := answers[it.Key+"|"+j.Strategy]; ok {
				res.Gen = append(res.Gen, GenOutput{ItemKey: it.Key, Kind: it.Kind, Strategy: j.Strategy, Output: a.Reply})
			}
		}
	}
	return res, nil
}

// tallyAnswers decodes the job's answers by prompt key and counts its
// progress, samples and unparsed replies.
func (r *Results) tallyAnswers(rows []store.JobAnswer) (map[string]scoring.Answer, error) {
	answers := make(map[string]scoring.Answer, len(rows))
	for _, row := range rows {
		r.Progress.Total++
		if row.Answer == nil {
			if row.Error != "" {
				r.Progress.Failed++
			}
			continue
		}
		var a scoring.Answer
		if err := json.Unmarshal(row.Answer, &a); err != nil {
			return nil, fmt.Errorf("job %d prompt %s: %w", r.Job.ID, row.Key, err)
		}
		answers[row.Key] = a
		r.Progress.Answered++
		r.Samples += len(a.Samples)
		r.Unparsed += a.Unparsed
	}
	if task := scoring.Task(r.Job.Task); task != scoring.TrueFalse && !scoring.IsHumanTask(task) {
		r.Samples, r.Unparsed = 0, 0 // only True/False and human-task samples are parsed into a probability
	}
	return answers, nil
}

// aggregateTF scores the True/False items the job asked.
func (r *Results) aggregateTF(ds *dataset, asked map[string]bool, answers map[string]scoring.Answer) {
	var items []scoring.TFItem
	for _, it := range ds.tf {
		if asked[scoring.TFPromptKey(it.Key, scoring.Trigger, scoring.TrueFirst)] {
			items = append(items, it)
		}
	}
	r.TF = scoring.AggregateTF(items, answers)
	r.TFMetrics = scoring.ComputeTF(r.TF)
	r.JobItems = map[string]int{}
	for t, m := range r.TFMetrics {
		r.JobItems[t] = m.Items
	}
}

// aggregateMC scores the multiple-choice items and counts those the job
// asked, overall and per kind.
func (r *Results) aggregateMC(ds *dataset, asked map[string]bool, answers map[string]scoring.Answer) {
	r.MC = scoring.AggregateMC(ds.mc, answers)
	r.MCMetrics = scoring.ComputeMC(r.MC)
	r.JobItems = map[string]int{}
	for _, it := range ds.mc {
		if asked[scoring.MCPromptKey(it.Key)] {
			r.JobItems[scoring.AllTypes]++
			if it.Kind != "" && it.Kind != scoring.AllTypes {
				r.JobItems[it.Kind]++
			}
		}
	}
}

// ItemKeys are the items the job has results for: at least one condition
// answered in both orders (r.TF also lists the job's unanswered items).
func (r *Results) ItemKeys() map[string]bool {
	keys := map[string]bool{}
	for _, t := range r.TF {
		if len(t.P) > 0 {
			keys[t.Key] = true
		}
	}
	return keys
}

// WriteCSV writes the per-item results: for True/False one row per item
// with P(b) per condition (mean of both orders) and per order; for
// multiple choice gold and predicted letters; for generation the outputs.
// Missing values are empty cells.
func (r *Results) WriteCSV(w io.Writer) error {
	cw := csvsafe.NewWriter(w)
	switch scoring.Task(r.Job.Task) {
	case scoring.TrueFalse:
		r.writeTrueFalseCSV(cw)
	case scoring.MultipleChoice:
		cw.Write([]string{"model", "item_id", "kind", "topic", "gold", "predicted", "correct"})
		for _, m := range r.MC {
			cw.Write([]string{r.Scorer, m.Key, m.Kind, strconv.Itoa(m.Topic), m.Gold, m.Predicted, strconv.FormatBool(m.Correct)})
		}
	case scoring.Likert, scoring.Expert, scoring.ContextTask, scoring.ExplanationRating:
		r.writeHumanCSV(cw)
	case scoring.Generation:
		cw.Write(domain.OutputColumns)
		for _, g := range r.Gen {
			cw.Write([]string{g.ItemKey, g.Strategy, r.Scorer, g.Output})
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeTrueFalseCSV writes one row per True/False item: P(b) per
// condition (mean of both orders), then per condition and order.
func (r *Results) writeTrueFalseCSV(cw *csvsafe.Writer) {
	head := []string{"model", "item_id", "item_type"}
	for _, c := range scoring.Conditions {
		head = append(head, "p_"+string(c))
	}
	for _, c := range scoring.Conditions {
		for _, o := range scoring.Orders {
			head = append(head, "p_"+string(c)+"_"+string(o))
		}
	}
	cw.Write(head)
	for _, t := range r.TF {
		row := []string{r.Scorer, t.Key, t.Type}
		for _, c := range scoring.Conditions {
			v, ok := t.P[c]
			row = append(row, csvFloat(v, ok))
		}
		for _, c := range scoring.Conditions {
			for _, o := range scoring.Orders {
				v, ok := t.ByOrder[c][o]
				row = append(row, csvFloat(v, ok))
			}
		}
		cw.Write(row)
	}
}

// csvFloat is a probability's cell: six decimals, or empty when missing.
func csvFloat(v float64, ok bool) string {
	if !ok {
		return ""
	}
	return strconv.FormatFloat(v, 'f', 6, 64)
}

// JSON is the results as the JSON export and `pragmalab score --json` give
// them.
func (r *Results) JSON() any {
	out := map[string]any{
		"job": r.Job.ID, "study": r.Job.StudyID, "task": r.Job.Task, "model": r.Scorer, "status": r.Job.Status,
		"prompts": r.Progress, "items_in_job": r.JobItems,
	}
	if r.Samples > 0 {
		out["unparsed_samples"] = map[string]int{"unparsed": r.Unparsed, "samples": r.Samples}
	}
	switch scoring.Task(r.Job.Task) {
	case scoring.TrueFalse:
		out["by_type"], out["items"] = r.TFMetrics, r.TF
		out["order_bias"] = r.OrderBias()
	case scoring.MultipleChoice:
		out["by_kind"], out["items"] = r.MCMetrics, r.MC
	case scoring.Generation:
		out["strategy"], out["outputs"] = r.Job.Strategy, r.Gen
	case scoring.Likert, scoring.Expert, scoring.ContextTask, scoring.ExplanationRating:
		out["options"], out["metrics"], out["questions"] = scoring.OptionLabels(scoring.Task(r.Job.Task), jobPoints(r.Job)), r.HumanMetrics, r.Human
		out["order_bias"] = r.HumanMetrics.OrderBias
		if scoring.Task(r.Job.Task) == scoring.ContextTask {
			out["needed"] = r.ContextNeeded()
		}
	}
	return out
}

// Outputs are a generation job's outputs as an explanation-rating study
// imports them.
func (r *Results) Outputs() []domain.Output {
	out := make([]domain.Output, 0, len(r.Gen))
	for _, g := range r.Gen {
		out = append(out, domain.Output{ItemKey: g.ItemKey, Strategy: g.Strategy, Model: r.Scorer, Output: g.Output})
	}
	return out
}

// SortedJobs orders finished jobs for a comparison table: by id.
func SortedJobs(js []*domain.Job) []*domain.Job {
	out := append([]*domain.Job(nil), js...)
	sort.Slice(out, func(i, k int) bool { return out[i].ID < out[k].ID })
	return out
}
