package handlers

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"pragmalab/domain"
	"pragmalab/runner"
	"pragmalab/templates"
)

// Scoring at scale on the pages (docs/scoring.md#engines): several models
// launched at once, the size and cost before a run, a job's batches.

// firstLine is the first non-blank line of s, trimmed.
func firstLine(s string) string {
	for _, ln := range strings.Split(s, "\n") {
		if ln = strings.TrimSpace(ln); ln != "" {
			return ln
		}
	}
	return ""
}

// maxLaunchModels bounds the models of one launch.
const maxLaunchModels = 16

// jobSpecs reads the launch form: one spec per model named in the model
// field (one per line) for an endpoint scorer, else the one spec.
func jobSpecs(r *http.Request, s *domain.Study, publicOnly bool) ([]runner.Spec, templates.JobForm, error) {
	spec, form, err := jobSpec(r, s)
	spec.PublicEndpointsOnly = publicOnly
	if err != nil || spec.Scorer != runner.ModelScorer {
		return []runner.Spec{spec}, form, err
	}
	var specs []runner.Spec
	seen := map[string]bool{}
	for _, ln := range strings.Split(form.Model, "\n") {
		m := strings.TrimSpace(ln)
		if m == "" || seen[m] {
			continue
		}
		seen[m] = true
		sp := spec
		sp.Config.Model = m
		specs = append(specs, sp)
	}
	if len(specs) > maxLaunchModels {
		return nil, form, domain.Errorf(domain.EINVALID, "model: at most %d models at once, got %d", maxLaunchModels, len(specs))
	}
	if len(specs) == 0 {
		specs = []runner.Spec{spec} // Validate names the missing model
	}
	return specs, form, nil
}

// prices are the per-token prices of PRAGMALAB_PRICES; a malformed value
// is logged and no cost shown.
func (h *Handler) prices() map[string]runner.Price {
	p, err := runner.ParsePrices(h.getenv("PRAGMALAB_PRICES"))
	if err != nil {
		h.Log.Warn("PRAGMALAB_PRICES", "err", err)
		return nil
	}
	return p
}

func usd(v float64) string {
	if v < 1 {
		return fmt.Sprintf("$%.4f", v)
	}
	return fmt.Sprintf("$%.2f", v)
}

// estimateRow formats one estimate.
func estimateRow(e runner.Estimate) templates.EstimateRow {
	row := templates.EstimateRow{Model: e.Model, Engine: e.Engine, Prompts: strconv.Itoa(e.Prompts), Requests: strconv.Itoa(e.Requests),
		InputTokens: strconv.Itoa(e.InputTokens), OutputTokens: strconv.Itoa(e.OutputTokensMax), Live: "no price given", Batch: "—"}
	if e.Engine == "built-in" {
		row.Requests, row.InputTokens, row.OutputTokens, row.Live = "—", "—", "—", "— (no model)"
	}
	if e.Live != nil {
		row.Live = fmt.Sprintf("≤ %s (input ≈ %s)", usd(e.Live.Max()), usd(e.Live.Input))
		row.Batch = fmt.Sprintf("≤ %s (input ≈ %s)", usd(e.Batch.Max()), usd(e.Batch.Input))
	}
	return row
}

// estimateLaunch renders the launch form with the size and cost of the
// jobs it would create; nothing is created, so nothing is audited.
func (h *Handler) estimateLaunch(w http.ResponseWriter, r *http.Request, s *domain.Study, specs []runner.Spec, form templates.JobForm) {
	if n, ok := r.Context().Value(auditKey).(*auditNote); ok {
		n.written = true // a look, not a change
	}
	es, err := h.Service.EstimateLaunch(r.Context(), specs, h.getenv, h.prices())
	if err != nil {
		if code := domain.ErrorCode(err); code == domain.EINVALID || code == domain.ENOTFOUND {
			form.Error = "No estimate: " + domain.ErrorMessage(err)
			h.renderJobs(w, r, s, http.StatusBadRequest, form)
			return
		}
		h.Error(w, r, err)
		return
	}
	for _, e := range es {
		form.Estimates = append(form.Estimates, estimateRow(e))
	}
	form.TokenRule = runner.TokenRule
	h.renderJobs(w, r, s, http.StatusOK, form)
}

// launchedMany is the flash of a launch of several models.
func launchedMany(js []*domain.Job) string {
	var ids []string
	for _, j := range js {
		ids = append(ids, fmt.Sprintf("#%d (%s)", j.ID, runner.ScorerName(j)))
	}
	return fmt.Sprintf("%d jobs queued over the same prompts, one per model: %s. Each job's comparison table shows them side by side.", len(js), strings.Join(ids, ", "))
}

// fillScale adds to a job's page the size and cost of what it has left to
// ask and its batches.
func (h *Handler) fillScale(r *http.Request, v *templates.JobView, j *domain.Job, p domain.JobProgress) error {
	ctx := r.Context()
	if p.Answered < p.Total {
		e, err := h.Service.EstimateJob(ctx, j, h.prices())
		if err != nil {
			return err
		}
		row := estimateRow(e)
		v.Scale.Estimate = &row
		v.Scale.TokenRule = runner.TokenRule
	}
	bs, err := h.Store.JobBatches(ctx, j.ID)
	if err != nil {
		return err
	}
	for _, b := range bs {
		state := b.State
		if b.RemoteStatus != "" {
			state += ", " + b.RemoteStatus
		}
		v.Scale.Batches = append(v.Scale.Batches, templates.BatchRow{ID: b.BatchID, State: state, Prompts: b.Prompts,
			Answered: b.Answered, Failed: b.Failed, Message: b.Message, Updated: b.UpdatedAt.Format("2006-01-02 15:04")})
	}
	if cfg, err := runner.JobConfig(j); err == nil && j.Scorer == runner.ModelScorer {
		v.Scale.Engine = string(cfg.WithDefaults().Engine)
		v.Trust.Config = append(v.Trust.Config, templates.ConfigRow{Label: "Engine", Value: v.Scale.Engine})
	}
	return nil
}
