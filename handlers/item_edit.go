package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"pragmalab/domain"
	"pragmalab/itemfiles"
	"strings"

	"pragmalab/studies"
	"pragmalab/templates"
)

// Correcting items (docs/items.md#correcting-items): one item in place, or
// a corrected file re-imported after a preview of what it changes.

// EditItemPage handles GET /admin/studies/{study}/items/{item}/edit.
func (h *Handler) EditItemPage(w http.ResponseWriter, r *http.Request) {
	s, it, ok := h.studyItem(w, r)
	if !ok {
		return
	}
	h.renderEditItem(w, r, s, http.StatusOK, templates.EditItemView{Item: it})
}

func (h *Handler) renderEditItem(w http.ResponseWriter, r *http.Request, s *domain.Study, status int, v templates.EditItemView) {
	revs, err := h.Store.ItemRevisions(r.Context(), v.Item.ID)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	v.Nav, v.StudyID, v.Revisions = h.nav(w, r, s), s.ID, revs
	h.render(w, r, status, templates.EditItem(v))
}

// EditItem handles POST /admin/studies/{study}/items/{item}/edit: the
// item's new text becomes its next version.
func (h *Handler) EditItem(w http.ResponseWriter, r *http.Request) {
	s, it, ok := h.studyItem(w, r)
	if !ok {
		return
	}
	if err := parseForm(w, r); err != nil {
		h.Error(w, r, err)
		return
	}
	f := r.PostFormValue
	next := domain.Item{Type: f("type"), Context: f("context"), Utterance: f("utterance"), Implicature: f("implicature"),
		Cancellation: f("cancellation"), Negation: f("negation"), Strengthening: f("strengthening"), Neutral: f("neutral"), Check: f("check")}
	err := h.Service.CheckItemEdit(r.Context(), s.ID, it, next)
	var changed bool
	if err == nil {
		changed, err = h.Store.EditItem(r.Context(), s.ID, it.ID, next, f("note"))
	}
	if err != nil {
		if domain.ErrorCode(err) != domain.EINVALID {
			h.Error(w, r, err)
			return
		}
		next.ID, next.Key, next.Version = it.ID, it.Key, it.Version
		v := templates.EditItemView{Item: next, Note: f("note"), Error: domain.ErrorMessage(err)}
		var fe *domain.FieldError
		if errors.As(err, &fe) {
			v.Field, v.Error = fe.Field, fe.Msg
		} else if field, msg, ok := strings.Cut(v.Error, ": "); ok && strings.HasPrefix(field, "field ") {
			v.Field, v.Error = strings.Trim(strings.TrimPrefix(field, "field "), `"`), msg
		}
		h.renderEditItem(w, r, s, http.StatusBadRequest, v)
		return
	}
	auditf(r, "item %s: %s", it.Key, map[bool]string{true: fmt.Sprintf("version %d → %d", it.Version, it.Version+1), false: "nothing changed"}[changed])
	if changed {
		h.flash(w, r, fmt.Sprintf("Item %s corrected: now version %d; version %d is kept as a revision.", it.Key, it.Version+1, it.Version))
	} else {
		h.flash(w, r, fmt.Sprintf("Item %s: nothing changed.", it.Key))
	}
	redirect(w, r, templates.StudyURL(s.ID, ""))
}

// studyItem loads the {study} and its {item}; on failure it has answered.
func (h *Handler) studyItem(w http.ResponseWriter, r *http.Request) (*domain.Study, domain.Item, bool) {
	s, err := h.study(r)
	var it domain.Item
	if err == nil {
		var id int64
		if id, err = idParam(r, "item"); err == nil {
			it, err = h.Store.ItemByID(r.Context(), s.ID, id)
		}
	}
	if err != nil {
		h.Error(w, r, err)
		return nil, it, false
	}
	return s, it, true
}

// ReimportItems handles POST /admin/studies/{study}/items/reimport: the
// corrected file is checked and kept, and the preview of its changes shown.
func (h *Handler) ReimportItems(w http.ResponseWriter, r *http.Request) {
	s, err := h.study(r)
	switch {
	case err == nil && s.Kind == domain.KindJudgement:
		err = domain.Errorf(domain.ENOTFOUND, "a judgement study's items are not corrected from a file of changes: import the corrected items file into a new judgement study; once a study has opened its items are frozen (docs/studies.md#frozen-design)")
	case err == nil && s.Kind != domain.KindExpert && s.Kind != domain.KindCrowd:
		err = domain.Errorf(domain.ENOTFOUND, "a %s study has passages, not implicature items, to correct", templates.KindLabel(s.Kind))
	}
	if err != nil {
		h.Error(w, r, err)
		return
	}
	name, data, err := uploadedFile(w, r, "file")
	var id int64
	if err == nil {
		id, err = h.Service.UploadCorrectedItems(r.Context(), s.ID, name, data)
	}
	if err != nil {
		h.importFailed(w, r, s, err)
		return
	}
	auditf(r, "%s kept for preview (upload #%d)", name, id)
	preview := fmt.Sprintf("/items/reimport/%d", id)
	if clearMissing(r) {
		preview += "?clear=1"
	}
	redirect(w, r, templates.StudyURL(s.ID, preview))
}

// pendingUpdate reads the kept {upload} again and diffs it with the items
// now.
func (h *Handler) pendingUpdate(r *http.Request, s *domain.Study) (studies.PendingItemUpdate, error) {
	id, err := idParam(r, "upload")
	if err != nil {
		return studies.PendingItemUpdate{}, err
	}
	return h.Service.PendingItemUpdate(r.Context(), s.ID, id, clearMissing(r))
}

// clearMissing reads the "clear missing fields" box (clear=1), of the
// upload form, the preview's query or the apply form.
func clearMissing(r *http.Request) bool { return r.FormValue("clear") == "1" }

// ReimportPreview handles GET /admin/studies/{study}/items/reimport/{upload}.
func (h *Handler) ReimportPreview(w http.ResponseWriter, r *http.Request) {
	s, err := h.study(r)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	p, err := h.pendingUpdate(r, s)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	h.renderReimport(w, r, s, http.StatusOK, p, "")
}

func (h *Handler) renderReimport(w http.ResponseWriter, r *http.Request, s *domain.Study, status int, p studies.PendingItemUpdate, msg string) {
	v := templates.ReimportView{Nav: h.nav(w, r, s), StudyID: s.ID, UploadID: p.ID, Filename: p.Filename, Update: p.Update,
		ClearMissing: p.ClearMissing, Kept: itemfiles.MissingSummary(p.Kept), Cleared: itemfiles.MissingSummary(p.Cleared)}
	v.Nav.Error = msg
	h.render(w, r, status, templates.Reimport(v))
}

// ApplyReimport handles POST /admin/studies/{study}/items/reimport/{upload}:
// action=apply applies every change shown (digest) or none; action=cancel
// forgets the upload.
func (h *Handler) ApplyReimport(w http.ResponseWriter, r *http.Request) {
	s, ok := h.studyForm(w, r)
	if !ok {
		return
	}
	p, err := h.pendingUpdate(r, s)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	name := p.Filename
	if r.PostFormValue("action") != "apply" {
		if err := h.Store.DropPendingImport(r.Context(), s.ID, p.ID); err != nil {
			h.Error(w, r, err)
			return
		}
		auditf(r, "%s: cancelled, nothing changed", name)
		h.flash(w, r, fmt.Sprintf("Nothing changed: the upload of %s was cancelled.", name))
		redirect(w, r, templates.StudyURL(s.ID, ""))
		return
	}
	done, err := h.Service.ApplyItemUpdate(r.Context(), s.ID, p, r.PostFormValue("digest"), r.PostFormValue("note"))
	if domain.ErrorCode(err) == domain.ECONFLICT {
		h.renderReimport(w, r, s, http.StatusConflict, p, domain.ErrorMessage(err))
		return
	}
	if err != nil {
		h.Error(w, r, err)
		return
	}
	h.Log.Info("items updated", "study", s.ID, "changed", done.Changed(), "added", done.Added())
	auditf(r, "%s applied: %d items changed, %d added", name, done.Changed(), done.Added())
	if len(p.Cleared) > 0 {
		auditf(r, "(%d fields the file leaves out cleared)", len(p.Cleared))
	}
	h.flash(w, r, fmt.Sprintf("Applied %s: %d items changed (a new version each), %d added.", name, done.Changed(), done.Added()))
	redirect(w, r, templates.StudyURL(s.ID, ""))
}
