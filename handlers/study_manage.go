package handlers

import (
	"context"
	"fmt"
	"net/http"
	"pragmalab/domain"
	"pragmalab/studies"
	"strings"

	"github.com/go-chi/chi/v5"

	"pragmalab/templates"
)

// A study's everyday admin (docs/studies.md#managing-studies): rename,
// archive and restore, clone, delete.

// Writable refuses every change to an archived study: a state-changing
// request under /admin/studies/{study}/ answers 409 with the reason, except
// restoring, cloning and deleting the study itself.
func (h *Handler) Writable(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			next.ServeHTTP(w, r)
			return
		}
		base := "/admin/studies/" + chi.URLParam(r, "study")
		switch strings.TrimSuffix(r.URL.Path, "/") {
		case base + "/archive", base + "/clone", base + "/delete":
			next.ServeHTTP(w, r)
			return
		}
		s, err := h.study(r)
		if err != nil {
			h.Error(w, r, err)
			return
		}
		if s.Archived() {
			h.Error(w, r, domain.Errorf(domain.ECONFLICT, "Study %q is archived and read-only: restore it (Manage this study › Restore) to change it.", s.Name))
			return
		}
		// The handler takes this study rather than reading it again.
		if sc, ok := r.Context().Value(scopeKey).(*adminScope); ok {
			sc.study = s
		}
		next.ServeHTTP(w, r)
	})
}

// studyClosed tells a participant that an archived study takes no answers.
func (h *Handler) studyClosed(w http.ResponseWriter, r *http.Request, lang string) {
	h.render(w, r, http.StatusGone, templates.ErrorPage(lang, http.StatusGone, templates.T(lang, "study_archived")))
}

// exported records that a file of the study's responses was sent, so that
// deleting the study knows which answers are safe elsewhere.
func (h *Handler) exported(r *http.Request, studyID int64) {
	if err := h.Store.MarkExported(context.WithoutCancel(r.Context()), studyID); err != nil {
		h.Log.Error("mark exported", "study", studyID, "err", err)
	}
}

// RenameStudy handles POST /admin/studies/{study}/rename.
func (h *Handler) RenameStudy(w http.ResponseWriter, r *http.Request) {
	s, ok := h.studyForm(w, r)
	if !ok {
		return
	}
	if err := h.Store.RenameStudy(r.Context(), s.ID, r.PostFormValue("name")); err != nil {
		h.failOnStudyPage(w, r, s, err)
		return
	}
	auditf(r, "renamed from %q to %q", s.Name, strings.TrimSpace(r.PostFormValue("name")))
	h.flash(w, r, "Study renamed.")
	redirect(w, r, templates.StudyURL(s.ID, ""))
}

// ArchiveStudy handles POST /admin/studies/{study}/archive: archived=1
// archives the study, archived=0 restores it.
func (h *Handler) ArchiveStudy(w http.ResponseWriter, r *http.Request) {
	s, ok := h.studyForm(w, r)
	if !ok {
		return
	}
	archive := r.PostFormValue("archived") == "1"
	if err := h.Store.SetStudyArchived(r.Context(), s.ID, archive); err != nil {
		h.Error(w, r, err)
		return
	}
	auditf(r, "%s", studies.AuditStudyArchived(archive))
	if archive {
		h.flash(w, r, fmt.Sprintf("Study %q archived: it is read-only and listed under the archived studies.", s.Name))
		redirect(w, r, "/admin")
		return
	}
	h.flash(w, r, fmt.Sprintf("Study %q restored.", s.Name))
	redirect(w, r, templates.StudyURL(s.ID, ""))
}

// CloneStudy handles POST /admin/studies/{study}/clone: a new study with
// the same design, settings and items, and no answers.
func (h *Handler) CloneStudy(w http.ResponseWriter, r *http.Request) {
	s, ok := h.studyForm(w, r)
	if !ok {
		return
	}
	c, err := h.Store.CloneStudy(r.Context(), s.ID, r.PostFormValue("name"))
	if err != nil {
		h.failOnStudyPage(w, r, s, err)
		return
	}
	h.Log.Info("study cloned", "from", s.ID, "to", c.ID)
	auditf(r, "%s", studies.AuditStudyCloned(c.ID, c.Name))
	h.flash(w, r, fmt.Sprintf("Study %q created from %q: same design and items, no participants or answers.", c.Name, s.Name))
	redirect(w, r, templates.StudyURL(c.ID, ""))
}

// DeleteStudyPage handles GET /admin/studies/{study}/delete: the page that
// asks to type the study's name.
func (h *Handler) DeleteStudyPage(w http.ResponseWriter, r *http.Request) {
	s, err := h.study(r)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	h.renderDelete(w, r, s, http.StatusOK, templates.DeleteStudyView{})
}

func (h *Handler) renderDelete(w http.ResponseWriter, r *http.Request, s *domain.Study, status int, v templates.DeleteStudyView) {
	resp, err := h.Store.StudyResponses(r.Context(), s.ID)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	v.Nav, v.Study, v.Responses = h.nav(w, r, s), s, resp
	v.Nav.Error = v.Error
	h.render(w, r, status, templates.DeleteStudy(v))
}

// DeleteStudy handles POST /admin/studies/{study}/delete: name must be the
// study's; answers never exported need force=1 as well.
func (h *Handler) DeleteStudy(w http.ResponseWriter, r *http.Request) {
	s, ok := h.studyForm(w, r)
	if !ok {
		return
	}
	typed := r.PostFormValue("name")
	resp, err := h.Service.DeleteStudy(r.Context(), s.ID, typed, r.PostFormValue("force") == "1")
	if err != nil {
		switch domain.ErrorCode(err) {
		case domain.EINVALID:
			h.renderDelete(w, r, s, http.StatusBadRequest, templates.DeleteStudyView{Typed: typed, Error: domain.ErrorMessage(err)})
		case domain.ECONFLICT:
			h.renderDelete(w, r, s, http.StatusConflict, templates.DeleteStudyView{Typed: typed, Again: true})
		default:
			h.Error(w, r, err)
		}
		return
	}
	h.Log.Info("study deleted", "study", s.ID, "name", s.Name)
	auditf(r, "deleted %s study %q with %d answers (%d never exported)", s.Kind, s.Name, resp.Answers, resp.Unexported)
	h.flash(w, r, fmt.Sprintf("Study %q deleted.", s.Name))
	redirect(w, r, "/admin")
}

// studyForm loads the {study} of a form post and parses the form; on
// failure it has answered already.
func (h *Handler) studyForm(w http.ResponseWriter, r *http.Request) (*domain.Study, bool) {
	s, err := h.study(r)
	if err == nil {
		err = parseForm(w, r)
	}
	if err != nil {
		h.Error(w, r, err)
		return nil, false
	}
	return s, true
}
