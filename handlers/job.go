package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"pragmalab/domain"
	"strconv"

	"pragmalab/analysis"
	"pragmalab/runner"
	"pragmalab/scoring"
	"pragmalab/studies"
	"pragmalab/templates"
)

// job loads the {job} of the {study}.
func (h *Handler) job(r *http.Request) (*domain.Study, *domain.Job, error) {
	s, err := h.study(r)
	if err != nil {
		return nil, nil, err
	}
	id, err := idParam(r, "job")
	if err != nil {
		return nil, nil, err
	}
	j, err := h.Service.StudyJob(r.Context(), s.ID, id)
	if err != nil {
		return nil, nil, err
	}
	return s, j, nil
}

// jobResults loads the study and the results of the {job} URL parameter,
// the job read once with its answers.
func (h *Handler) jobResults(r *http.Request) (*domain.Study, *runner.Results, error) {
	s, err := h.study(r)
	if err != nil {
		return nil, nil, err
	}
	id, err := idParam(r, "job")
	if err != nil {
		return nil, nil, err
	}
	res, err := h.Service.StudyJobResults(r.Context(), s.ID, id)
	if err != nil {
		return nil, nil, err
	}
	return s, res, nil
}

// comparison puts a True/False job beside the study's other finished jobs
// and the humans of its crowd study; a failure to read the humans is
// logged and the models are shown alone.
func (h *Handler) comparison(ctx context.Context, res *runner.Results) (*studies.JobComparison, error) {
	c, err := h.Service.CompareJob(ctx, res)
	if err != nil {
		return nil, err
	}
	if c.HumanErr != nil {
		h.Log.Warn("human toplines", "study", res.Job.CompareStudyID, "err", c.HumanErr)
	}
	return c, nil
}

func fmtShare(v *float64) string {
	if v == nil {
		return "—"
	}
	return strconv.FormatFloat(*v, 'f', 2, 64)
}

// shareCI is a share with its 95 % interval, "0.70 [0.40, 0.89]".
func shareCI(v *float64, ci *analysis.CI) string {
	if v == nil || ci == nil {
		return fmtShare(v)
	}
	return fmt.Sprintf("%.2f [%.2f, %.2f]", *v, ci[0], ci[1])
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
	s, res, err := h.jobResults(r)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	ctx, j := r.Context(), res.Job
	v := templates.JobView{Nav: h.nav(w, r, s), StudyID: s.ID, Job: j, Scorer: runner.ScorerName(j), Active: j.Active()}
	v.Progress = res.Progress
	var cmp *studies.JobComparison
	if res.Progress.Answered > 0 {
		if cmp, err = h.fillResults(ctx, &v, res); err != nil {
			h.Error(w, r, err)
			return
		}
	}
	if err := h.fillHumanCompare(r, &v, res); err != nil {
		h.Error(w, r, err)
		return
	}
	if err := h.fillTrust(r, &v, res, cmp); err != nil {
		h.Error(w, r, err)
		return
	}
	if err := h.fillScale(r, &v, j, res.Progress); err != nil {
		h.Error(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, templates.Job(v))
}

// fillResults adds the task's results to the job page; a True/False job's
// comparison is returned for its item-level figures.
func (h *Handler) fillResults(ctx context.Context, v *templates.JobView, res *runner.Results) (*studies.JobComparison, error) {
	var cmp *studies.JobComparison
	switch scoring.Task(res.Job.Task) {
	case scoring.TrueFalse:
		c, err := h.comparison(ctx, res)
		if err != nil {
			return nil, err
		}
		cmp = c
		v.Comparison = comparisonView(c)
		v.Measures = []string{"implicature_recognition", "cancellation_recognition", "belief_update"}
		v.Items = tfItemRows(res.TF)
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
		v.CanImport = !res.Job.Active()
	case scoring.Likert, scoring.Expert, scoring.ContextTask, scoring.ExplanationRating:
		v.Human = humanTaskView(res)
	}
	return cmp, nil
}

// comparisonView is the table of measures by type: the humans (with a
// crowd study to compare with) then each model, with intervals and n.
func comparisonView(c *studies.JobComparison) *templates.ComparisonView {
	cv := &templates.ComparisonView{Types: c.Types, Human: c.Human != nil}
	for _, m := range c.Models {
		cv.Models = append(cv.Models, m.Name)
	}
	for _, m := range runner.Measures {
		row := templates.ComparisonRow{Label: runner.MeasureLabels[m]}
		for _, t := range c.Types {
			cells := []string{"—"}
			if c.Human != nil {
				cells[0] = shareCI(c.Human[m][t], c.HumanCI[m][t]) + nOfN(c.HumanN[m][t])
			}
			for _, col := range c.Models {
				cells = append(cells, shareCI(col.Values[m][t], col.CI[m][t])+nOfN(col.N[m][t]))
			}
			row.Cells = append(row.Cells, cells)
		}
		cv.Rows = append(cv.Rows, row)
	}
	return cv
}

// tfItemRows are a True/False job's items with P(b) per condition.
func tfItemRows(tf []scoring.TFItemResult) []templates.ItemRow {
	var rows []templates.ItemRow
	for _, it := range tf {
		row := templates.ItemRow{Key: it.Key, Type: it.Type}
		for _, c := range scoring.Conditions {
			if p, ok := it.P[c]; ok {
				row.P = append(row.P, strconv.FormatFloat(p, 'f', 3, 64))
			} else {
				row.P = append(row.P, "—")
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// JobProgressJSON handles GET /admin/studies/{study}/jobs/{job}/progress.json,
// polled by the job page while the job runs.
func (h *Handler) JobProgressJSON(w http.ResponseWriter, r *http.Request) {
	_, j, err := h.job(r)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	p, err := h.Store.JobProgress(r.Context(), j.ID)
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
		err = h.Store.CancelJob(r.Context(), j.ID)
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
	if err := h.Store.RequeueJob(r.Context(), j.ID); err != nil {
		h.Error(w, r, err)
		return
	}
	if h.Jobs != nil {
		h.Jobs.Wake()
	}
	h.flash(w, r, fmt.Sprintf("Job #%d queued again for its unanswered prompts.", j.ID))
	redirect(w, r, templates.JobURL(s.ID, j.ID, ""))
}
