package runner

import (
	"context"
	"strconv"
	"strings"

	"pragmalab/csvsafe"
	"pragmalab/scoring"
	"pragmalab/store"
)

// loadHuman folds a human-task job's answers into its results over the
// study's current items or passages (one dropped since is left out).
func (r *Results) loadHuman(ctx context.Context, db *store.DB, rows []store.JobAnswer, answers map[string]scoring.Answer) error {
	task := scoring.Task(r.Job.Task)
	itemType := map[string]string{}
	if task == scoring.Likert || task == scoring.Expert {
		items, err := db.ListItems(ctx, r.Job.StudyID)
		if err != nil {
			return err
		}
		for _, it := range TFItems(items) {
			itemType[it.Key] = it.Type
		}
	} else {
		ps, err := db.ListPassages(ctx, r.Job.StudyID)
		if err != nil {
			return err
		}
		for _, p := range ps {
			itemType[p.Key] = p.Kind
		}
	}
	var order []string
	seen := map[string]bool{}
	lastStep := map[string]int{}
	r.JobItems = map[string]int{}
	for _, row := range rows {
		item, q, _, ok := scoring.SplitPromptKey(row.Key)
		if _, current := itemType[item]; !ok || !current {
			delete(answers, row.Key)
			continue
		}
		if n, err := strconv.Atoi(strings.TrimPrefix(q, "step-")); err == nil && strings.HasPrefix(q, "step-") {
			lastStep[item] = max(lastStep[item], n)
		}
		if !seen[item] {
			seen[item] = true
			order = append(order, item)
			r.JobItems[scoring.AllTypes]++
			if t := itemType[item]; t != "" && t != scoring.AllTypes {
				r.JobItems[t]++
			}
		}
	}
	points := jobPoints(r.Job)
	r.Human = scoring.AggregateHuman(task, points, answers, order, itemType)
	m := scoring.ComputeHuman(task, points, r.Human, lastStep)
	r.HumanMetrics = &m
	r.lastStep = lastStep
	return nil
}

// writeHumanCSV writes one row per question answered in both orders: the
// item, its condition (likert), question (expert), step (context) or
// output (explanation-rating), the chosen option's label and number, the
// expected option, whether the expert form would have asked it, the
// distribution over the options (p_1…p_k, canonical order, both orders
// averaged) and the number chosen in each order (docs/formats.md#scoring-results).
// A context job adds one row per question with the number of preceding
// sentences the model needed ("needed").
func (r *Results) writeHumanCSV(cw *csvsafe.Writer) {
	task := scoring.Task(r.Job.Task)
	k := len(scoring.OptionLabels(task, jobPoints(r.Job)))
	head := []string{"model", "item_id", "item_type", "condition", "label", "number", "mean", "not_asked"}
	for i := 1; i <= k; i++ {
		head = append(head, "p_"+strconv.Itoa(i))
	}
	head = append(head, "number_fwd", "number_rev")
	cw.Write(head)
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 6, 64) }
	for _, h := range r.Human {
		row := []string{r.Scorer, h.Item, h.Type, h.Condition, h.Label, strconv.Itoa(h.Number), f(h.Mean), strconv.FormatBool(h.NotAsked)}
		for _, p := range h.Dist {
			row = append(row, f(p))
		}
		for _, o := range scoring.HumanOrders {
			row = append(row, strconv.Itoa(argmaxOf(h.ByOrder[o])))
		}
		cw.Write(row)
	}
	if task != scoring.ContextTask {
		return
	}
	needed := scoring.ContextNeeded(r.Human, r.lastStep)
	types := map[string]string{}
	var order []string
	for _, h := range r.Human {
		if _, ok := types[h.Item]; !ok {
			order = append(order, h.Item)
		}
		types[h.Item] = h.Type
	}
	for _, item := range order {
		n, ok := needed[item]
		if !ok {
			continue
		}
		label, num := "not_sufficient", ""
		if n >= 0 {
			label, num = strconv.Itoa(n), strconv.Itoa(n)
		}
		row := []string{r.Scorer, item, types[item], "needed", label, num, "", "false"}
		for range k + 2 {
			row = append(row, "")
		}
		cw.Write(row)
	}
}

// argmaxOf is the 1-based index of d's largest value (0 for none).
func argmaxOf(d []float64) int {
	best := 0
	for i, v := range d {
		if best == 0 || v > d[best-1] {
			best = i + 1
		}
	}
	return best
}

// ContextNeeded is a context job's answer to each whole question
// (scoring.ContextNeeded), for the page and the JSON.
func (r *Results) ContextNeeded() map[string]int {
	return scoring.ContextNeeded(r.Human, r.lastStep)
}

// Options are a human-task job's options in their canonical order (a
// likert job's points as numbers).
func (r *Results) Options() []string {
	return scoring.OptionLabels(scoring.Task(r.Job.Task), jobPoints(r.Job))
}
