package handlers

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"pragmalab/domain"
	"strconv"
	"strings"
	"time"

	"pragmalab/runner"
	"pragmalab/scoring"
	"pragmalab/studies"
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

func defaultJobForm(s *domain.Study) templates.JobForm {
	f := templates.JobForm{Task: string(scoring.TrueFalse), Scorer: "always-true", API: "chat", Mode: "logprobs",
		Concurrency: "4", Timeout: "60", Retries: "5", Samples: "5", MaxTokens: "16", GenMaxTokens: "1024", Strategy: string(scoring.ZeroShot), Seed: "1"}
	switch {
	case s.Kind == domain.KindJudgement:
		// A judgement study's items are asked only as its participants
		// were asked them (docs/scoring.md#the-humans-own-questions).
		f.Task, f.Scorer = string(scoring.Likert), "uniform"
	case !studies.ScoresItems(s):
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

// ownHumansDefault makes "Compare with" default to the study itself when
// it is a crowd study with ratings and the form is the default one.
func ownHumansDefault(f *templates.JobForm, s *domain.Study, l *studies.JobsList) {
	if l.OwnHumans && f.Compare == "" {
		f.Compare = strconv.FormatInt(s.ID, 10)
	}
}

func (h *Handler) renderJobs(w http.ResponseWriter, r *http.Request, s *domain.Study, status int, form templates.JobForm) {
	l, err := h.Service.StudyJobs(r.Context(), s)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	ownHumansDefault(&form, s, l)
	v := templates.JobsView{Nav: h.nav(w, r, s), StudyID: s.ID, Form: form}
	for _, j := range l.Jobs {
		v.Jobs = append(v.Jobs, templates.JobRow{Job: j, Scorer: runner.ScorerName(j), Progress: l.Progress[j.ID]})
	}
	switch {
	case s.Kind == domain.KindJudgement:
		v.DataNote = fmt.Sprintf("The data set is this study's %d items (attention checks, practice and dropped items left out): each in each of its conditions, on its scale under its question, both orders of the scale.", l.Data)
		v.Scorers = scorerChoices(false)[:1] // the endpoint; the likert task's built-ins follow
	case studies.ScoresItems(s):
		v.Tasks = []templates.Choice{{Value: "truefalse", Label: "True/False on the implicature items"}}
		v.DataNote = fmt.Sprintf("The data set is this study's %d implicature items (attention checks and dropped items left out): each condition it has, both option orders.", l.Data)
		v.Scorers = scorerChoices(true)
	default:
		v.Tasks = []templates.Choice{{Value: "multiplechoice", Label: "Multiple choice on the passages"}, {Value: "generation", Label: "Generation (explanations)"}}
		v.DataNote = fmt.Sprintf("The data set is this study's %d passages.", l.Data)
		v.Scorers = scorerChoices(false)
	}
	addHumanTask(&v, s.Kind)
	v.Compares = []templates.Choice{{Value: "0", Label: "none"}}
	for _, cs := range l.CrowdStudies {
		v.Compares = append(v.Compares, templates.Choice{Value: strconv.FormatInt(cs.ID, 10), Label: fmt.Sprintf("#%d %s", cs.ID, cs.Name)})
	}
	h.render(w, r, status, templates.Jobs(v))
}

// jobSpec reads the launch form; the error names the field.
func jobSpec(r *http.Request, s *domain.Study) (runner.Spec, templates.JobForm, error) {
	f := templates.JobForm{
		Task: r.PostFormValue("task"), Scorer: r.PostFormValue("scorer"), BaseURLs: r.PostFormValue("base_urls"),
		Model: strings.TrimSpace(r.PostFormValue("model")), APIKeyEnv: strings.TrimSpace(r.PostFormValue("api_key_env")),
		API: r.PostFormValue("api"), Mode: r.PostFormValue("mode"), Concurrency: r.PostFormValue("concurrency"),
		Timeout: r.PostFormValue("timeout"), Retries: r.PostFormValue("retries"), Samples: r.PostFormValue("samples"),
		Strategy: r.PostFormValue("strategy"), Seed: r.PostFormValue("seed"), Compare: r.PostFormValue("compare"),
		MaxTokens: r.PostFormValue("max_tokens"), GenMaxTokens: r.PostFormValue("gen_max_tokens"),
		Engine: r.PostFormValue("engine"),
	}
	spec := runner.Spec{StudyID: s.ID, Task: scoring.Task(f.Task), Scorer: f.Scorer, Strategy: scoring.Strategy(f.Strategy)}
	seed, err := wholeIn("seed", f.Seed, 0, 1<<31-1)
	if err != nil {
		return spec, f, err
	}
	spec.Seed = uint64(seed)
	cmp, err := strconv.ParseInt(strings.TrimSpace(f.Compare), 10, 64)
	if err != nil || cmp < 0 {
		return spec, f, domain.Errorf(domain.EINVALID, "compare: choose a crowd study or none")
	}
	spec.CompareStudyID = cmp
	if scoring.IsHumanTask(spec.Task) {
		if !spec.Task.Asks(s.Kind) {
			return spec, f, domain.Errorf(domain.EINVALID, "task: a %s study cannot run the %s task", s.Kind, f.Task)
		}
	} else if (spec.Task == scoring.TrueFalse) != studies.ScoresItems(s) || s.Kind == domain.KindJudgement {
		return spec, f, domain.Errorf(domain.EINVALID, "task: a %s study cannot run the %s task", s.Kind, f.Task)
	}
	if f.Scorer != runner.ModelScorer {
		return spec, f, nil
	}
	spec.Config, err = modelConfig(f)
	return spec, f, err
}

// wholeIn reads a whole number from lo to hi; the error names the field.
func wholeIn(field, v string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < lo || n > hi {
		return 0, domain.Errorf(domain.EINVALID, "%s: must be a whole number from %d to %d", field, lo, hi)
	}
	return n, nil
}

// modelConfig reads the model's settings of the launch form: the base
// URLs one a line, the limits each in its range, the token limits empty
// for our defaults.
func modelConfig(f templates.JobForm) (scoring.Config, error) {
	c := scoring.Config{Model: firstLine(f.Model), APIKeyEnv: f.APIKeyEnv, API: scoring.API(f.API), Mode: scoring.Mode(f.Mode), Engine: scoring.Engine(f.Engine)}
	for _, ln := range strings.Split(f.BaseURLs, "\n") {
		if ln = strings.TrimSpace(ln); ln != "" {
			c.BaseURLs = append(c.BaseURLs, ln)
		}
	}
	var err error
	if c.Concurrency, err = wholeIn("concurrency", f.Concurrency, 1, scoring.MaxConcurrency); err != nil {
		return c, err
	}
	secs, err := wholeIn("timeout", f.Timeout, 1, int(scoring.MaxTimeout/time.Second))
	if err != nil {
		return c, err
	}
	c.Timeout = time.Duration(secs) * time.Second
	if c.MaxRetries, err = wholeIn("retries", f.Retries, 0, scoring.MaxRetriesCap); err != nil {
		return c, err
	}
	if c.Samples, err = wholeIn("samples", f.Samples, 1, scoring.MaxSamples); err != nil {
		return c, err
	}
	if strings.TrimSpace(f.MaxTokens) != "" {
		if c.MaxTokens, err = wholeIn("max_tokens", f.MaxTokens, 1, 32768); err != nil {
			return c, err
		}
	}
	if strings.TrimSpace(f.GenMaxTokens) != "" {
		if c.GenMaxTokens, err = wholeIn("gen_max_tokens", f.GenMaxTokens, 1, 32768); err != nil {
			return c, err
		}
	}
	return c, nil
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
	specs, form, err := jobSpecs(r, s, h.PublicEndpointsOnly)
	if err == nil && r.PostFormValue("estimate") != "" {
		h.estimateLaunch(w, r, s, specs, form)
		return
	}
	var js []*domain.Job
	if err == nil {
		js, err = h.Service.LaunchJobs(r.Context(), specs, h.getenv)
	}
	if err != nil {
		if code := domain.ErrorCode(err); code == domain.EINVALID || code == domain.ENOTFOUND {
			form.Error = "The job was not created: " + domain.ErrorMessage(err)
			h.renderJobs(w, r, s, http.StatusBadRequest, form)
			return
		}
		h.Error(w, r, err)
		return
	}
	if h.Jobs != nil {
		h.Jobs.Wake()
	}
	for _, j := range js {
		h.Log.Info("scoring job created", "study", s.ID, "job", j.ID, "task", j.Task, "scorer", j.Scorer)
		auditf(r, "job #%d: %s, %s", j.ID, j.Task, runner.ScorerName(j))
	}
	if len(js) > 1 {
		h.flash(w, r, launchedMany(js))
		redirect(w, r, templates.StudyURL(s.ID, "/jobs"))
		return
	}
	j := js[0]
	h.flash(w, r, fmt.Sprintf("Job #%d queued.", j.ID))
	redirect(w, r, templates.JobURL(s.ID, j.ID, ""))
}

// maxShownOutputs bounds the generation outputs listed on a job's page.
const maxShownOutputs = 200
