package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"pragmalab/analysis"
	"pragmalab/runner"
	"pragmalab/scoring"
	"pragmalab/store"
	"pragmalab/templates"
)

// JobRunner is what the pages need of the background job runner.
type JobRunner interface {
	Wake()
	Cancel(ctx context.Context, id int64) error
}

func (h *Handler) getenv(name string) string {
	if h.Getenv != nil {
		return h.Getenv(name)
	}
	return os.Getenv(name)
}

// itemTask reports whether a study holds implicature items (True/False) or
// passages (multiple choice and generation).
func itemTask(s *store.Study) bool { return s.Kind == store.KindExpert || s.Kind == store.KindCrowd }

func defaultJobForm(s *store.Study) templates.JobForm {
	f := templates.JobForm{Task: string(scoring.TrueFalse), Scorer: "always-true", API: "chat", Mode: "logprobs",
		Concurrency: "4", Timeout: "60", Retries: "5", Samples: "5", MaxTokens: "16", GenMaxTokens: "1024", Strategy: string(scoring.ZeroShot), Seed: "1"}
	if !itemTask(s) {
		f.Task, f.Scorer = string(scoring.MultipleChoice), "bleu4"
	}
	return f
}

// JobsPage handles GET /admin/studies/{study}/jobs: the study's jobs and
// the launch form.
func (h *Handler) JobsPage(w http.ResponseWriter, r *http.Request) {
	s, err := h.study(r)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	h.renderJobs(w, r, s, http.StatusOK, defaultJobForm(s))
}

func (h *Handler) renderJobs(w http.ResponseWriter, r *http.Request, s *store.Study, status int, form templates.JobForm) {
	ctx := r.Context()
	jobs, err := h.DB.StudyJobs(ctx, s.ID)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	v := templates.JobsView{Nav: h.nav(w, r, s), StudyID: s.ID, Form: form}
	for _, j := range jobs {
		p, err := h.DB.JobProgress(ctx, j.ID)
		if err != nil {
			h.Error(w, r, err)
			return
		}
		v.Jobs = append(v.Jobs, templates.JobRow{Job: j, Scorer: runner.ScorerName(j), Progress: p})
	}
	if itemTask(s) {
		items, err := h.DB.ListItems(ctx, s.ID)
		if err != nil {
			h.Error(w, r, err)
			return
		}
		n := len(runner.TFItems(items))
		v.Tasks = []templates.Choice{{Value: "truefalse", Label: "True/False on the implicature items"}}
		v.DataNote = fmt.Sprintf("The data set is this study's %d implicature items (attention checks and dropped items left out): each condition it has, both option orders.", n)
	} else {
		_, n, err := h.DB.PassageCounts(ctx, s.ID)
		if err != nil {
			h.Error(w, r, err)
			return
		}
		v.Tasks = []templates.Choice{{Value: "multiplechoice", Label: "Multiple choice on the passages"}, {Value: "generation", Label: "Generation (explanations)"}}
		v.DataNote = fmt.Sprintf("The data set is this study's %d passages.", n)
	}
	v.Scorers = scorerChoices(itemTask(s))
	v.Compares = []templates.Choice{{Value: "0", Label: "none"}}
	if itemTask(s) {
		studies, err := h.DB.Studies(ctx)
		if err != nil {
			h.Error(w, r, err)
			return
		}
		for _, cs := range studies {
			if cs.Kind == store.KindCrowd {
				v.Compares = append(v.Compares, templates.Choice{Value: strconv.FormatInt(cs.ID, 10), Label: fmt.Sprintf("#%d %s", cs.ID, cs.Name)})
			}
		}
	}
	h.render(w, r, status, templates.Jobs(v))
}

// jobSpec reads the launch form; the error names the field.
func jobSpec(r *http.Request, s *store.Study) (runner.Spec, templates.JobForm, error) {
	f := templates.JobForm{
		Task: r.PostFormValue("task"), Scorer: r.PostFormValue("scorer"), BaseURLs: r.PostFormValue("base_urls"),
		Model: strings.TrimSpace(r.PostFormValue("model")), APIKeyEnv: strings.TrimSpace(r.PostFormValue("api_key_env")),
		API: r.PostFormValue("api"), Mode: r.PostFormValue("mode"), Concurrency: r.PostFormValue("concurrency"),
		Timeout: r.PostFormValue("timeout"), Retries: r.PostFormValue("retries"), Samples: r.PostFormValue("samples"),
		Strategy: r.PostFormValue("strategy"), Seed: r.PostFormValue("seed"), Compare: r.PostFormValue("compare"),
		MaxTokens: r.PostFormValue("max_tokens"), GenMaxTokens: r.PostFormValue("gen_max_tokens"),
	}
	spec := runner.Spec{StudyID: s.ID, Task: scoring.Task(f.Task), Scorer: f.Scorer, Strategy: scoring.Strategy(f.Strategy)}
	num := func(field, v string, lo, hi int) (int, error) {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < lo || n > hi {
			return 0, store.Errorf(store.EINVALID, "%s: must be a whole number from %d to %d", field, lo, hi)
		}
		return n, nil
	}
	seed, err := num("seed", f.Seed, 0, 1<<31-1)
	if err != nil {
		return spec, f, err
	}
	spec.Seed = uint64(seed)
	cmp, err := strconv.ParseInt(strings.TrimSpace(f.Compare), 10, 64)
	if err != nil || cmp < 0 {
		return spec, f, store.Errorf(store.EINVALID, "compare: choose a crowd study or none")
	}
	spec.CompareStudyID = cmp
	if (spec.Task == scoring.TrueFalse) != itemTask(s) {
		return spec, f, store.Errorf(store.EINVALID, "task: a %s study cannot run the %s task", s.Kind, f.Task)
	}
	if f.Scorer != runner.ModelScorer {
		return spec, f, nil
	}
	c := scoring.Config{Model: f.Model, APIKeyEnv: f.APIKeyEnv, API: scoring.API(f.API), Mode: scoring.Mode(f.Mode)}
	for _, ln := range strings.Split(f.BaseURLs, "\n") {
		if ln = strings.TrimSpace(ln); ln != "" {
			c.BaseURLs = append(c.BaseURLs, ln)
		}
	}
	if c.Concurrency, err = num("concurrency", f.Concurrency, 1, scoring.MaxConcurrency); err != nil {
		return spec, f, err
	}
	secs, err := num("timeout", f.Timeout, 1, int(scoring.MaxTimeout/time.Second))
	if err != nil {
		return spec, f, err
	}
	c.Timeout = time.Duration(secs) * time.Second
	if c.MaxRetries, err = num("retries", f.Retries, 0, scoring.MaxRetriesCap); err != nil {
		return spec, f, err
	}
	if c.Samples, err = num("samples", f.Samples, 1, scoring.MaxSamples); err != nil {
		return spec, f, err
	}
	// The token limits may be left empty for our defaults.
	if strings.TrimSpace(f.MaxTokens) != "" {
		if c.MaxTokens, err = num("max_tokens", f.MaxTokens, 1, 32768); err != nil {
			return spec, f, err
		}
	}
	if strings.TrimSpace(f.GenMaxTokens) != "" {
		if c.GenMaxTokens, err = num("gen_max_tokens", f.GenMaxTokens, 1, 32768); err != nil {
			return spec, f, err
		}
	}
	spec.Config = c
	return spec, f, nil
}

// CreateJob handles POST /admin/studies/{study}/jobs: validate, build and
// store the job, wake the runner.
func (h *Handler) CreateJob(w http.ResponseWriter, r *http.Request) {
	s, err := h.study(r)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	if err := parseForm(w, r); err != nil {
		h.Error(w, r, err)
		return
	}
	spec, form, err := jobSpec(r, s)
	spec.PublicEndpointsOnly = h.PublicEndpointsOnly
	var j *store.Job
	if err == nil {
		j, err = runner.Create(r.Context(), h.DB, spec, h.getenv)
	}
	if err != nil {
		if code := store.ErrorCode(err); code == store.EINVALID || code == store.ENOTFOUND {
			form.Error = "The job was not created: " + store.ErrorMessage(err)
			h.renderJobs(w, r, s, http.StatusBadRequest, form)
			return
		}
		h.Error(w, r, err)
		return
	}
	if h.Jobs != nil {
		h.Jobs.Wake()
	}
	h.Log.Info("scoring job created", "study", s.ID, "job", j.ID, "task", j.Task, "scorer", j.Scorer)
	h.flash(w, r, fmt.Sprintf("Job #%d queued.", j.ID))
	redirect(w, r, templates.JobURL(s.ID, j.ID, ""))
}

// job loads the {job} of the {study}.
func (h *Handler) job(r *http.Request) (*store.Study, *store.Job, error) {
	s, err := h.study(r)
	if err != nil {
		return nil, nil, err
	}
	id, err := idParam(r, "job")
	if err != nil {
		return nil, nil, err
	}
	j, err := h.DB.Job(r.Context(), id)
	if err != nil {
		return nil, nil, err
	}
	if j.StudyID != s.ID {
		return nil, nil, store.Errorf(store.ENOTFOUND, "job %d not found in this study", id)
	}
	return s, j, nil
}

// maxShownOutputs bounds the generation outputs listed on a job's page.
const maxShownOutputs = 200

func active(j *store.Job) bool { return j.Status == store.JobQueued || j.Status == store.JobRunning }

// comparison loads this job's results and those of the study's other
// finished True/False jobs, beside the human toplines of the job's crowd
// study.
func (h *Handler) comparison(ctx context.Context, res *runner.Results) (runner.Comparison, error) {
	all := []*runner.Results{res}
	jobs, err := h.DB.StudyJobs(ctx, res.Job.StudyID)
	if err != nil {
		return runner.Comparison{}, err
	}
	for _, j := range runner.SortedJobs(jobs) {
		if j.ID == res.Job.ID || j.Task != res.Job.Task || (j.Status != store.JobDone && j.Status != store.JobPartial) || len(all) >= 6 {
			continue
		}
		other, err := runner.LoadResults(ctx, h.DB, j.ID)
		if err != nil {
			return runner.Comparison{}, err
		}
		all = append(all, other)
	}
	var human *analysis.Toplines
	if res.Job.CompareStudyID != 0 {
		human, err = runner.HumanToplines(ctx, h.DB, res.Job.CompareStudyID, res.ItemKeys())
		if err != nil {
			h.Log.Warn("human toplines", "study", res.Job.CompareStudyID, "err", err)
		}
	}
	return runner.Compare(human, all...), nil
}

func fmtShare(v *float64) string {
	if v == nil {
		return "—"
	}
	return strconv.FormatFloat(*v, 'f', 2, 64)
}

func shareOf(s scoring.Share) string {
	if v, ok := s.Value(); ok {
		return fmt.Sprintf("%.2f (%d/%d)", v, s.Hits, s.N)
	}
	return "—"
}

// JobPage handles GET /admin/studies/{study}/jobs/{job}: progress, failed
// prompts and results.
func (h *Handler) JobPage(w http.ResponseWriter, r *http.Request) {
	s, j, err := h.job(r)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	ctx := r.Context()
	v := templates.JobView{Nav: h.nav(w, r, s), StudyID: s.ID, Job: j, Scorer: runner.ScorerName(j), Active: active(j)}
	res, err := runner.LoadResults(ctx, h.DB, j.ID)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	v.Progress = res.Progress
	if res.Progress.Answered > 0 {
		if err := h.fillResults(ctx, &v, res, s); err != nil {
			h.Error(w, r, err)
			return
		}
	}
	if err := h.fillTrust(r, &v, res); err != nil {
		h.Error(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, templates.Job(v))
}

func (h *Handler) fillResults(ctx context.Context, v *templates.JobView, res *runner.Results, s *store.Study) error {
	switch scoring.Task(res.Job.Task) {
	case scoring.TrueFalse:
		c, err := h.comparison(ctx, res)
		if err != nil {
			return err
		}
		cv := &templates.ComparisonView{Types: c.Types, Human: c.Human != nil}
		for _, m := range c.Models {
			cv.Models = append(cv.Models, m.Name)
		}
		for _, m := range runner.Measures {
			row := templates.ComparisonRow{Label: runner.MeasureLabels[m]}
			for _, t := range c.Types {
				cells := []string{"—"}
				if c.Human != nil {
					cells[0] = fmtShare(c.Human[m][t])
				}
				for _, col := range c.Models {
					cells = append(cells, fmtShare(col.Values[m][t])+nOfN(col.N[m][t]))
				}
				row.Cells = append(row.Cells, cells)
			}
			cv.Rows = append(cv.Rows, row)
		}
		v.Comparison = cv
		v.Measures = []string{"implicature_recognition", "cancellation_recognition", "belief_update"}
		for _, it := range res.TF {
			row := templates.ItemRow{Key: it.Key, Type: it.Type}
			for _, c := range scoring.Conditions {
				if p, ok := it.P[c]; ok {
					row.P = append(row.P, strconv.FormatFloat(p, 'f', 3, 64))
				} else {
					row.P = append(row.P, "—")
				}
			}
			v.Items = append(v.Items, row)
		}
	case scoring.MultipleChoice:
		for _, k := range scoring.SortedTypes(res.MCMetrics) {
			m := res.MCMetrics[k]
			v.MC = append(v.MC, templates.MCRow{Kind: k, Items: itemsOf(m.Items, res.JobItems[k]), Accuracy: shareOf(m.Accuracy),
				Hard: shareOf(m.HardNegatives), Easy: shareOf(m.EasyNegatives), Refusals: strconv.Itoa(m.Refusals)})
		}
		v.Confusion = res.MCMetrics[scoring.AllTypes].Confusion
	case scoring.Generation:
		// The page shows the first outputs; the CSV has them all.
		for _, g := range res.Gen[:min(len(res.Gen), maxShownOutputs)] {
			v.Gen = append(v.Gen, templates.GenRow{ItemKey: g.ItemKey, Output: g.Output})
		}
		v.GenTotal = len(res.Gen)
		v.CanImport = !active(res.Job)
	}
	return nil
}

// JobProgressJSON handles GET /admin/studies/{study}/jobs/{job}/progress.json,
// polled by the job page while the job runs.
func (h *Handler) JobProgressJSON(w http.ResponseWriter, r *http.Request) {
	_, j, err := h.job(r)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	p, err := h.DB.JobProgress(r.Context(), j.ID)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(map[string]any{"status": j.Status, "total": p.Total, "answered": p.Answered, "failed": p.Failed, "error": j.Error})
}

// CancelJob handles POST /admin/studies/{study}/jobs/{job}/cancel.
func (h *Handler) CancelJob(w http.ResponseWriter, r *http.Request) {
	s, j, err := h.job(r)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	if h.Jobs != nil {
		err = h.Jobs.Cancel(r.Context(), j.ID)
	} else {
		err = h.DB.CancelJob(r.Context(), j.ID)
	}
	if err != nil {
		h.Error(w, r, err)
		return
	}
	h.flash(w, r, fmt.Sprintf("Job #%d cancelled; its answers so far are kept.", j.ID))
	redirect(w, r, templates.JobURL(s.ID, j.ID, ""))
}

// RetryJob handles POST /admin/studies/{study}/jobs/{job}/retry: queue the
// job again to ask its unanswered prompts.
func (h *Handler) RetryJob(w http.ResponseWriter, r *http.Request) {
	s, j, err := h.job(r)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	if err := h.DB.RequeueJob(r.Context(), j.ID); err != nil {
		h.Error(w, r, err)
		return
	}
	if h.Jobs != nil {
		h.Jobs.Wake()
	}
	h.flash(w, r, fmt.Sprintf("Job #%d queued again for its unanswered prompts.", j.ID))
	redirect(w, r, templates.JobURL(s.ID, j.ID, ""))
}

// JobResults handles GET /admin/studies/{study}/jobs/{job}/results.{format}:
// per-item results as CSV or JSON.
func (h *Handler) JobResults(w http.ResponseWriter, r *http.Request) {
	_, j, err := h.job(r)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	format := chi.URLParam(r, "format")
	if format != "csv" && format != "json" {
		h.NotFound(w, r)
		return
	}
	res, err := runner.LoadResults(r.Context(), h.DB, j.ID)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	name := fmt.Sprintf("job-%d-%s.%s", j.ID, j.Task, format)
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	if format == "csv" {
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		if err := res.WriteCSV(w); err != nil {
			h.Log.Error("job csv", "job", j.ID, "err", err)
		}
		return
	}
	out := res.JSON().(map[string]any)
	if j.Task == string(scoring.TrueFalse) {
		c, err := h.comparison(r.Context(), res)
		if err != nil {
			h.Error(w, r, err)
			return
		}
		out["humans"] = c.Human
	}
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(out)
}

// JobBars handles GET /admin/studies/{study}/jobs/{job}/bars/{measure}.{format}:
// the model-vs-human bar chart of one measure.
func (h *Handler) JobBars(w http.ResponseWriter, r *http.Request) {
	_, j, err := h.job(r)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	measure, format := chi.URLParam(r, "measure"), chi.URLParam(r, "format")
	if !slices.Contains(runner.Measures, measure) || (format != "svg" && format != "png") || j.Task != string(scoring.TrueFalse) {
		h.NotFound(w, r)
		return
	}
	res, err := runner.LoadResults(r.Context(), h.DB, j.ID)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	c, err := h.comparison(r.Context(), res)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	p, err := c.Bars(measure)
	if err == nil {
		var b []byte
		if b, err = analysis.PlotBytes(p, format); err == nil {
			ct := "image/svg+xml"
			if format == "png" {
				ct = "image/png"
			}
			w.Header().Set("Content-Type", ct)
			w.Write(b)
			return
		}
	}
	h.Error(w, r, fmt.Errorf("bars of job %d: %w", j.ID, err))
}

// promptFields lists the templates a study edits, with their help texts.
func promptFields(t scoring.Templates) []templates.PromptField {
	return []templates.PromptField{
		{Name: "truefalse", Label: "True/False", Help: "Fields: .Context, .Utterances (u and the follow-up), .Belief, .OptionA, .OptionB (True/False in the asked order).", Value: t.TrueFalse},
		{Name: "prior", Label: "True/False, prior condition (no context, no utterance)", Help: "Fields: .Belief, .OptionA, .OptionB.", Value: t.Prior},
		{Name: "multiplechoice", Label: "Multiple choice", Help: "Fields: .Text (the passage), .Target, .Options (four, index 0–3).", Value: t.MultipleChoice},
		{Name: "zero_shot", Label: "Generation, zero-shot", Help: "Fields: .Text, .Target.", Value: t.ZeroShot},
		{Name: "few_shot", Label: "Generation, few-shot", Help: "Fields: .Text, .Target, .Examples (4, each with .Text, .Target, .Explanation).", Value: t.FewShot},
		{Name: "chain_of_thought", Label: "Generation, chain-of-thought", Help: "Fields: .Text, .Target. The explanation is read after the last \"Explanation:\".", Value: t.ChainOfThought},
	}
}

// PromptsPage handles GET /admin/studies/{study}/prompts.
func (h *Handler) PromptsPage(w http.ResponseWriter, r *http.Request) {
	s, err := h.study(r)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	t, err := runner.Templates(r.Context(), h.DB, s.ID)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	_, custom, _ := h.DB.ScoringTemplates(r.Context(), s.ID)
	h.render(w, r, http.StatusOK, templates.Prompts(templates.PromptsView{Nav: h.nav(w, r, s), StudyID: s.ID, Fields: promptFields(t), Custom: custom}))
}

// SavePrompts handles POST /admin/studies/{study}/prompts: save the
// templates (each must parse and render), or restore the defaults.
func (h *Handler) SavePrompts(w http.ResponseWriter, r *http.Request) {
	s, err := h.study(r)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 6*scoring.MaxTemplateLen*4+4096)
	if err := r.ParseForm(); err != nil {
		h.Error(w, r, store.Errorf(store.EINVALID, "the form could not be read (too large or malformed)"))
		return
	}
	if r.PostFormValue("reset") != "" {
		if err := h.DB.SaveScoringTemplates(r.Context(), s.ID, nil); err != nil {
			h.Error(w, r, err)
			return
		}
		h.flash(w, r, "Prompt templates restored to the defaults.")
		redirect(w, r, templates.StudyURL(s.ID, "/prompts"))
		return
	}
	t := scoring.Templates{
		TrueFalse: r.PostFormValue("truefalse"), Prior: r.PostFormValue("prior"), MultipleChoice: r.PostFormValue("multiplechoice"),
		ZeroShot: r.PostFormValue("zero_shot"), FewShot: r.PostFormValue("few_shot"), ChainOfThought: r.PostFormValue("chain_of_thought"),
	}
	for _, f := range []*string{&t.TrueFalse, &t.Prior, &t.MultipleChoice, &t.ZeroShot, &t.FewShot, &t.ChainOfThought} {
		*f = strings.ReplaceAll(*f, "\r\n", "\n")
	}
	if err := t.Validate(); err != nil {
		_, custom, _ := h.DB.ScoringTemplates(r.Context(), s.ID)
		h.render(w, r, http.StatusBadRequest, templates.Prompts(templates.PromptsView{Nav: h.nav(w, r, s), StudyID: s.ID,
			Fields: promptFields(t), Custom: custom, Error: "Nothing was saved: " + err.Error()}))
		return
	}
	b, _ := json.Marshal(t)
	if err := h.DB.SaveScoringTemplates(r.Context(), s.ID, b); err != nil {
		h.Error(w, r, err)
		return
	}
	h.flash(w, r, "Prompt templates saved; new jobs use them.")
	redirect(w, r, templates.StudyURL(s.ID, "/prompts"))
}
