package handlers

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"pragmalab/domain"
	"strconv"
	"strings"
	"unicode/utf8"

	"pragmalab/analysis/report"
	"pragmalab/analysis/toplines"
	"pragmalab/runner"
	"pragmalab/scoring"
	"pragmalab/studies"
	"pragmalab/templates"
)

// promptsPerPage is how many prompts a job's page lists at a time.
const promptsPerPage = 50

// scorerChoices lists the scorers of the launch form that do the study's
// tasks: True/False builtins for a study of items, multiple-choice and
// generation ones for a study of passages (no BLEU-4 for True/False).
func scorerChoices(items bool) []templates.Choice {
	out := []templates.Choice{{Value: runner.ModelScorer, Label: "OpenAI-compatible endpoint"}}
	for _, b := range scoring.Builtins {
		fits := false
		for _, t := range b.Tasks {
			if (t == scoring.TrueFalse) == items {
				fits = true
			}
		}
		if fits {
			out = append(out, templates.Choice{Value: b.Name, Label: "built-in: " + b.Name + " — " + b.Description})
		}
	}
	return out
}

// nOfN is the "(n of N)" note beside a share computed on fewer items than
// the job has, from runner.ModelColumn.N; "" otherwise, and on no item at
// all, where the share shows "—".
func nOfN(nn [2]int) string {
	if nn[0] >= nn[1] || nn[0] == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d of %d)", nn[0], nn[1])
}

// itemsOf is "n" or "n of N" for a count of answered items.
func itemsOf(n, total int) string {
	if n >= total {
		return strconv.Itoa(n)
	}
	return fmt.Sprintf("%d of %d", n, total)
}

// fillTrust adds what tells a researcher where the job's numbers stand:
// why prompts failed, what was not asked, the configuration as set, the
// paged prompts, item-level agreement and where outputs can go.
// cmp is the True/False job's comparison (nil for the other tasks and
// before any answer), whose human toplines the item level uses.
func (h *Handler) fillTrust(r *http.Request, v *templates.JobView, res *runner.Results, cmp *studies.JobComparison) error {
	ctx := r.Context()
	j := res.Job
	var err error
	if v.Trust.Reasons, err = h.Store.JobFailureReasons(ctx, j.ID, 10); err != nil {
		return err
	}
	v.Trust.Unasked = res.Progress.Unasked()
	if res.Unparsed > 0 && scoring.IsHumanTask(scoring.Task(j.Task)) {
		v.Trust.Unparsed = fmt.Sprintf("%d of %d sampled replies named none of the options; each prompt's distribution is over its other samples.", res.Unparsed, res.Samples)
	} else if res.Unparsed > 0 {
		v.Trust.Unparsed = fmt.Sprintf("%d of %d sampled replies answered neither True nor False; each prompt's P(True) is the share of True among its other samples.", res.Unparsed, res.Samples)
	}
	if j.Scorer == runner.ModelScorer {
		if cfg, err := runner.JobConfig(j); err == nil {
			v.Trust.Config = configRows(cfg)
		}
	}
	if v.Trust.Prompts, err = h.promptPage(r, j, res.Progress); err != nil {
		return err
	}
	if j.Task == string(scoring.TrueFalse) && res.Progress.Answered > 0 {
		v.Trust.ItemLevel = itemLevel(res, cmp)
	}
	if j.Task == string(scoring.Generation) && v.CanImport {
		if v.Trust.Outputs, err = h.outputsForm(r, j); err != nil {
			return err
		}
	}
	return nil
}

// configRows shows a job's endpoint configuration field by field, the
// time-out in seconds (the stored JSON holds it in nanoseconds).
func configRows(c scoring.Config) []templates.ConfigRow {
	key := "none"
	if c.APIKeyEnv != "" {
		key = "from $" + c.APIKeyEnv
	}
	return []templates.ConfigRow{
		{Label: "Base URLs", Value: strings.Join(c.BaseURLs, "\n")},
		{Label: "Model", Value: c.Model},
		{Label: "API key", Value: key},
		{Label: "API", Value: string(c.API)},
		{Label: "Mode", Value: string(c.Mode)},
		{Label: "Concurrency per endpoint", Value: strconv.Itoa(c.Concurrency)},
		{Label: "Time-out per request", Value: strconv.FormatFloat(c.Timeout.Seconds(), 'f', -1, 64) + " s"},
		{Label: "Retries", Value: strconv.Itoa(c.MaxRetries)},
		{Label: "Top log-probabilities", Value: strconv.Itoa(c.TopLogprobs)},
		{Label: "Samples per option order (sampling)", Value: strconv.Itoa(c.Samples)},
		{Label: "Temperature (sampling)", Value: strconv.FormatFloat(c.Temperature, 'f', -1, 64)},
		{Label: "Token limits (answer, explanation)", Value: fmt.Sprintf("%d, %d", c.MaxTokens, c.GenMaxTokens)},
	}
}

// promptPage reads ?prompts=all|answered|failed|pending and ?page=N.
func (h *Handler) promptPage(r *http.Request, j *domain.Job, p domain.JobProgress) (*templates.PromptPage, error) {
	filter := r.URL.Query().Get("prompts")
	counts := map[string]int{domain.PromptsAll: p.Total, domain.PromptsAnswered: p.Answered, domain.PromptsFailed: p.Failed, domain.PromptsPending: p.Unasked()}
	if _, ok := counts[filter]; !ok {
		filter = domain.PromptsAll
	}
	if filter == domain.PromptsAll && p.Failed > 0 && !r.URL.Query().Has("prompts") {
		filter = domain.PromptsFailed // what a researcher looks at first
	}
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	pages := max(1, (counts[filter]+promptsPerPage-1)/promptsPerPage)
	page = min(max(page, 1), pages)
	rows, total, err := h.Store.JobPromptsPage(r.Context(), j.ID, filter, (page-1)*promptsPerPage, promptsPerPage)
	if err != nil {
		return nil, err
	}
	link := func(f string, pg int) string {
		q := url.Values{"prompts": {f}}
		if f == "" {
			q.Set("prompts", "all")
		}
		if pg > 1 {
			q.Set("page", strconv.Itoa(pg))
		}
		return templates.JobURL(j.StudyID, j.ID, "?"+q.Encode()) + "#prompts-heading"
	}
	pp := &templates.PromptPage{Filter: filter, Page: page, Pages: pages, Total: total, First: (page-1)*promptsPerPage + 1}
	for _, f := range []struct{ key, label string }{{domain.PromptsAll, "all"}, {domain.PromptsAnswered, "answered"}, {domain.PromptsFailed, "failed"}, {domain.PromptsPending, "not asked yet"}} {
		pp.Filters = append(pp.Filters, templates.PromptFilter{Label: f.label, URL: link(f.key, 1), Count: counts[f.key], Current: f.key == filter})
	}
	if page > 1 {
		pp.PrevURL = link(filter, page-1)
	}
	if page < pages {
		pp.NextURL = link(filter, page+1)
	}
	for _, row := range rows {
		pr := templates.PromptRow{Seq: row.Seq, Key: row.Key, Text: row.Text, Error: row.Error, Attempts: row.Attempts, State: "not asked yet"}
		switch {
		case row.Answer != nil:
			pr.State, pr.Answer = "answered", answerText(row.Answer)
		case row.Error != "":
			pr.State = "failed"
		}
		pp.Rows = append(pp.Rows, pr)
	}
	return pp, nil
}

// answerText is a short reading of a stored answer.
func answerText(raw json.RawMessage) string {
	var a scoring.Answer
	if json.Unmarshal(raw, &a) != nil {
		return string(raw)
	}
	var s string
	switch {
	case a.Letter != "":
		s = "letter " + a.Letter
		if a.Reply != "" && a.Reply != a.Letter {
			s += " — reply " + strconv.Quote(a.Reply)
		}
	case a.Reply != "":
		s = a.Reply
	case len(a.Dist) > 0:
		s = humanAnswerText(a)
	default:
		s = "P(True) = " + strconv.FormatFloat(a.PTrue, 'f', 3, 64)
		if len(a.Samples) > 0 {
			s += fmt.Sprintf(" from %d samples", len(a.Samples)-a.Unparsed)
			if a.Unparsed > 0 {
				s += fmt.Sprintf(" (%d more unparseable)", a.Unparsed)
			}
		}
	}
	if utf8.RuneCountInString(s) > 300 {
		s = string([]rune(s)[:300]) + "…"
	}
	return s
}

// itemLevel formats the option-order bias and the correlation with the
// human mean z of the job's crowd study (from its comparison).
func itemLevel(res *runner.Results, cmp *studies.JobComparison) *templates.ItemLevel {
	il := &templates.ItemLevel{}
	if b := res.OrderBias(); b.N > 0 {
		il.OrderBias = fmt.Sprintf("%.3f (largest %.3f) over %d item × condition pairs asked in both orders", *b.Mean, *b.Max, b.N)
	}
	if cmp != nil && cmp.Toplines != nil {
		hc := res.CorrelateWithHumans(cmp.Toplines)
		il.Trigger, il.AllConds = corrText(hc.Trigger), corrText(hc.Conditions)
	}
	return il
}

// corrText writes a correlation as "r = 0.62, 95% CI [0.41, 0.77], n = 40
// items, p = 0.0001".
func corrText(c toplines.Correlation) string {
	if c.R == nil {
		return fmt.Sprintf("undefined on %d pairs (it needs 3, not all equal)", c.N)
	}
	s := fmt.Sprintf("r = %.2f", *c.R)
	if c.Lo != nil {
		s += fmt.Sprintf(", 95%% CI [%.2f, %.2f]", *c.Lo, *c.Hi)
	}
	s += fmt.Sprintf(", n = %d", c.N)
	if c.P != nil {
		s += ", " + report.FormatP(*c.P)
	}
	return s
}

// outputsForm lists the explanation-rating studies a generation job's
// outputs can go to, the job's own study first when it is one.
func (h *Handler) outputsForm(r *http.Request, j *domain.Job) (*templates.OutputsForm, error) {
	explain, err := h.Service.ExplainStudies(r.Context())
	if err != nil {
		return nil, err
	}
	f := &templates.OutputsForm{To: strconv.FormatInt(j.StudyID, 10)}
	for _, s := range explain {
		c := templates.Choice{Value: strconv.FormatInt(s.ID, 10), Label: fmt.Sprintf("#%d %s", s.ID, s.Name)}
		if s.ID == j.StudyID {
			f.Studies = append([]templates.Choice{c}, f.Studies...)
		} else {
			f.Studies = append(f.Studies, c)
		}
	}
	if len(f.Studies) > 0 && f.Studies[0].Value != f.To {
		f.To = f.Studies[0].Value
	}
	return f, nil
}
