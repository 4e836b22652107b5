package handlers

import (
	"fmt"
	"io"
	"net/http"
	"pragmalab/domain"
	"pragmalab/itemfiles"
	"strconv"

	"github.com/go-chi/chi/v5"

	"pragmalab/studies"
	"pragmalab/templates"
)

// expertStudyPage renders the admin page of an expert study with the given
// status and errMsg (if any) shown at the top.
func (h *Handler) expertStudyPage(w http.ResponseWriter, r *http.Request, s *domain.Study, status int, errMsg string) {
	h.expertStudyPageWith(w, r, s, status, errMsg, nil)
}

// expertStudyPageWith is expertStudyPage with a round form's refusal
// shown beside that form (roundErr: round "1" or "2" → message).
func (h *Handler) expertStudyPageWith(w http.ResponseWriter, r *http.Request, s *domain.Study, status int, errMsg string, roundErr map[string]string) {
	v := templates.ExpertStudyView{Nav: h.studyNav(w, r, s), Audit: h.auditLog(r.Context(), s.ID), Study: s, BaseURL: baseURL(r), RoundError: roundErr}
	v.Nav.Error = errMsg
	rep, err := h.Service.ExpertStudy(r.Context(), s)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	v.Settings, v.Items, v.Batches, v.Annotators = rep.Settings, rep.Items, rep.Batches, rep.Annotators
	v.Assignments, v.Flagged = rep.Assignments, rep.Flagged
	h.render(w, r, status, templates.ExpertStudy(v))
}

// SetItemCheck handles POST /admin/studies/{study}/items/{item}/check.
func (h *Handler) SetItemCheck(w http.ResponseWriter, r *http.Request) {
	s, err := h.study(r)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	if err := parseForm(w, r); err != nil {
		h.Error(w, r, err)
		return
	}
	itemID, err := idParam(r, "item")
	if err == nil {
		err = h.Store.SetItemCheck(r.Context(), s.ID, itemID, r.PostFormValue("check"))
	}
	if err != nil {
		h.Error(w, r, err)
		return
	}
	redirect(w, r, templates.StudyURL(s.ID, ""))
}

// BuildExpertBatches handles POST /admin/studies/{study}/batches.
func (h *Handler) BuildExpertBatches(w http.ResponseWriter, r *http.Request) {
	s, ok := h.studyOfKind(w, r, domain.KindExpert)
	if !ok {
		return
	}
	set := domain.ExpertSettings{}
	var err1, err2 error
	set.BatchSize, err1 = strconv.Atoi(r.PostFormValue("batch_size"))
	set.Checks, err2 = strconv.Atoi(r.PostFormValue("checks"))
	if err1 != nil || err2 != nil {
		h.expertStudyPage(w, r, s, http.StatusBadRequest, "Screens per batch and attention checks must be whole numbers.")
		return
	}
	n, err := h.Service.BuildExpertBatches(r.Context(), s, set)
	if err != nil {
		h.failOnStudyPage(w, r, s, err)
		return
	}
	batches := "batches"
	if n == 1 {
		batches = "batch" // "Built 1 batch", not "1 batches"
	}
	h.flash(w, r, fmt.Sprintf("Built %d %s (seed %d).", n, batches, s.Seed))
	redirect(w, r, templates.StudyURL(s.ID, ""))
}

// InviteExpert handles POST /admin/studies/{study}/experts.
func (h *Handler) InviteExpert(w http.ResponseWriter, r *http.Request) {
	s, ok := h.studyOfKind(w, r, domain.KindExpert)
	if !ok {
		return
	}
	a, err := h.Store.CreateAnnotator(r.Context(), s.ID, r.PostFormValue("name"))
	if err != nil {
		h.failOnStudyPage(w, r, s, err)
		return
	}
	h.flash(w, r, fmt.Sprintf("Invited %s: copy their link from the table below.", a.Name))
	redirect(w, r, templates.StudyURL(s.ID, ""))
}

func formIDs(r *http.Request, name string) []int64 {
	var ids []int64
	for _, v := range r.PostForm[name] {
		if id, err := strconv.ParseInt(v, 10, 64); err == nil && id > 0 {
			ids = append(ids, id)
		}
	}
	return ids
}

// AssignRound handles POST /admin/studies/{study}/rounds/{round}.
func (h *Handler) AssignRound(w http.ResponseWriter, r *http.Request) {
	s, ok := h.studyOfKind(w, r, domain.KindExpert)
	if !ok {
		return
	}
	experts := formIDs(r, "expert")
	var err error
	var msg string
	switch chi.URLParam(r, "round") {
	case "1":
		var batch int64
		batch, err = strconv.ParseInt(r.PostFormValue("batch"), 10, 64)
		if err != nil {
			err = domain.Errorf(domain.EINVALID, "choose a batch for round 1")
			break
		}
		err = h.Store.AssignRound1(r.Context(), s.ID, batch, experts)
		msg = fmt.Sprintf("Round 1 assigned to %d experts.", len(experts))
	case "2":
		var n int
		n, err = h.Store.AssignRound2(r.Context(), s.ID, experts)
		msg = fmt.Sprintf("Round 2: %d batches split among %d experts.", n, len(experts))
	default:
		err = domain.Errorf(domain.ENOTFOUND, "no such round")
	}
	if status, ok := formFailure(err); ok {
		h.expertStudyPageWith(w, r, s, status, "", map[string]string{chi.URLParam(r, "round"): domain.ErrorMessage(err)})
		return
	}
	if err != nil {
		h.Error(w, r, err)
		return
	}
	h.flash(w, r, msg)
	redirect(w, r, templates.StudyURL(s.ID, ""))
}

// ReviewPage handles GET /admin/studies/{study}/review.
func (h *Handler) ReviewPage(w http.ResponseWriter, r *http.Request) {
	s, err := h.study(r)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	h.renderReview(w, r, s, http.StatusOK, templates.ReviewChoice{}, nil)
}

func (h *Handler) renderReview(w http.ResponseWriter, r *http.Request, s *domain.Study, status int, posted templates.ReviewChoice, errs map[int64]string) {
	var flagged []domain.FlaggedItem
	var post map[string]float64
	var err error
	byPosterior := r.URL.Query().Get("sort") == "posterior"
	if byPosterior {
		flagged, post, err = h.Service.FlaggedByPosterior(r.Context(), s.ID)
	} else {
		flagged, err = h.Store.Flagged(r.Context(), s.ID)
	}
	if err != nil {
		h.Error(w, r, err)
		return
	}
	h.render(w, r, status, templates.Review(templates.ReviewView{Nav: h.nav(w, r, s), Study: s, Items: flagged, Posted: posted, Errors: errs,
		ByPosterior: byPosterior, Posterior: post}))
}

// ReviewItem handles POST /admin/studies/{study}/review/{item}: accept
// (keep as is, an expert's alternative or one's own fix, per field), drop
// (after a confirmation page), or undo the decision taken.
func (h *Handler) ReviewItem(w http.ResponseWriter, r *http.Request) {
	s, ok := h.studyOfKind(w, r, domain.KindExpert)
	if !ok {
		return
	}
	ctx := r.Context()
	itemID, err := idParam(r, "item")
	if err != nil {
		h.Error(w, r, err)
		return
	}
	f, err := h.Service.FlaggedItem(ctx, s.ID, itemID)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	var msg string
	switch r.PostFormValue("action") {
	case "accept":
		c := templates.ReviewChoice{ItemID: itemID,
			Implicature: r.PostFormValue("implicature"), Cancellation: r.PostFormValue("cancellation"),
			OwnImplicature: r.PostFormValue("own_implicature"), OwnCancel: r.PostFormValue("own_cancellation")}
		var decision string
		decision, err = h.Service.AcceptReview(ctx, s.ID, f, studies.ReviewChoice{
			Implicature: c.Implicature, Cancellation: c.Cancellation, OwnImplicature: c.OwnImplicature, OwnCancel: c.OwnCancel})
		if domain.ErrorCode(err) == domain.EINVALID {
			h.renderReview(w, r, s, http.StatusBadRequest, c, map[int64]string{itemID: domain.ErrorMessage(err)})
			return
		}
		if err != nil {
			break
		}
		msg = fmt.Sprintf("Item %s: %s.", f.Item.Key, map[string]string{
			domain.ReviewKept: "kept as is", domain.ReviewAccepted: "the expert's alternative accepted as a new version",
			domain.ReviewOwn: "your fix saved as a new version"}[decision])
	case "drop":
		if r.PostFormValue("confirm") != "1" {
			auditf(r, "item %s: asked to confirm the drop, nothing changed", f.Item.Key)
			h.render(w, r, http.StatusOK, templates.ConfirmDrop(templates.ConfirmDropView{Nav: h.nav(w, r, s), StudyID: s.ID, Item: f.Item}))
			return
		}
		err = h.Store.DecideReview(ctx, s.ID, itemID, domain.ReviewDropped, "", "", "")
		msg = fmt.Sprintf("Item %s dropped from the cleaned data set.", f.Item.Key)
	case "undo":
		err = h.Store.UndoReview(ctx, s.ID, itemID)
		msg = fmt.Sprintf("Item %s: decision undone; it is back in the flagged list.", f.Item.Key)
	default:
		err = domain.Errorf(domain.EINVALID, "unknown action")
	}
	if err != nil {
		h.Error(w, r, err)
		return
	}
	auditf(r, "%s", msg)
	h.flash(w, r, msg)
	redirect(w, r, templates.StudyURL(s.ID, "/review"))
}

// ConfirmDropPage handles GET /admin/studies/{study}/review/{item}/drop: the
// page that asks before a flagged item is dropped (the Drop button opens it
// with formmethod=get, so it works without JavaScript and changes nothing).
func (h *Handler) ConfirmDropPage(w http.ResponseWriter, r *http.Request) {
	s, it, ok := h.studyItem(w, r)
	if !ok {
		return
	}
	h.render(w, r, http.StatusOK, templates.ConfirmDrop(templates.ConfirmDropView{Nav: h.nav(w, r, s), StudyID: s.ID, Item: it}))
}

// ExportAlternatives handles GET /admin/studies/{study}/export/alternatives.csv:
// every alternative text the experts typed (docs/formats.md#alternatives-export).
func (h *Handler) ExportAlternatives(w http.ResponseWriter, r *http.Request) {
	s, err := h.study(r)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	attachment(w, "text/csv; charset=utf-8", fmt.Sprintf("alternatives-study%d.csv", s.ID))
	if err := h.Store.ExportAlternatives(r.Context(), s.ID, w); err != nil {
		h.Log.Error("export alternatives", "study", s.ID, "err", err)
	}
}

// ExportJudgements handles GET /admin/studies/{study}/export/judgements.csv.
func (h *Handler) ExportJudgements(w http.ResponseWriter, r *http.Request) {
	s, err := h.study(r)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	attachment(w, "text/csv; charset=utf-8", fmt.Sprintf("judgements-study%d.csv", s.ID))
	if err := h.Store.ExportJudgements(r.Context(), s.ID, w); err != nil {
		h.Log.Error("export judgements", "study", s.ID, "err", err)
		return
	}
	h.exported(r, s.ID)
}

// ExportItems handles GET /admin/studies/{study}/export/items.{format}: the
// cleaned data set, in the import format so it can feed the next study.
func (h *Handler) ExportItems(w http.ResponseWriter, r *http.Request) {
	s, err := h.study(r)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	items, err := h.Store.CleanedItems(r.Context(), s.ID)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	// A judgement study's items are written in its own columns, one row
	// per item and condition (docs/formats.md#judgement-items-csv).
	writeCSV, writeJSONL := itemfiles.WriteItemsCSV, itemfiles.WriteItemsJSONL
	if s.Kind == domain.KindJudgement {
		set, err := studies.CrowdSettings(s)
		if err != nil {
			h.Error(w, r, err)
			return
		}
		writeCSV = func(w io.Writer, items []domain.Item) error {
			return itemfiles.WriteJudgementItemsCSV(w, items, set.Conditions)
		}
		writeJSONL = func(w io.Writer, items []domain.Item) error {
			return itemfiles.WriteJudgementItemsJSONL(w, items, set.Conditions)
		}
	}
	switch chi.URLParam(r, "format") {
	case "csv":
		attachment(w, "text/csv; charset=utf-8", fmt.Sprintf("items-study%d.csv", s.ID))
		err = writeCSV(w, items)
	case "jsonl":
		attachment(w, "application/x-ndjson; charset=utf-8", fmt.Sprintf("items-study%d.jsonl", s.ID))
		err = writeJSONL(w, items)
	default:
		h.NotFound(w, r)
		return
	}
	if err != nil {
		h.Log.Error("export items", "study", s.ID, "err", err)
	}
}

// attachment sets the headers of a file download.
func attachment(w http.ResponseWriter, contentType, filename string) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", filename))
	w.Header().Set("Cache-Control", "no-store")
}
