package handlers

import (
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"pragmalab/domain"
	"strings"

	"pragmalab/studies"
	"pragmalab/templates"
)

// maxUpload bounds an uploaded data file.
const maxUpload = 64 << 20

// Studies handles GET /admin: the dashboard of the studies in use (the
// archived ones folded away) and the new-study form.
func (h *Handler) Studies(w http.ResponseWriter, r *http.Request) {
	h.renderStudies(w, r, http.StatusOK, templates.StudyForm{Lang: "en"})
}

func (h *Handler) renderStudies(w http.ResponseWriter, r *http.Request, status int, form templates.StudyForm) {
	inUse, archived, err := h.Service.Dashboard(r.Context())
	if err != nil {
		h.Error(w, r, err)
		return
	}
	v := templates.StudiesView{Nav: h.nav(w, r, nil), Form: form, Studies: inUse, Archived: archived}
	h.render(w, r, status, templates.Studies(v))
}

// CreateStudy handles POST /admin/studies.
func (h *Handler) CreateStudy(w http.ResponseWriter, r *http.Request) {
	if err := parseForm(w, r); err != nil {
		h.Error(w, r, err)
		return
	}
	s := &domain.Study{Kind: r.PostFormValue("kind"), Name: r.PostFormValue("name"), Lang: r.PostFormValue("lang")}
	if err := h.Store.CreateStudy(r.Context(), s); err != nil {
		if domain.ErrorCode(err) == domain.EINVALID {
			h.renderStudies(w, r, http.StatusBadRequest, templates.StudyForm{Name: s.Name, Kind: s.Kind, Lang: s.Lang, Error: domain.ErrorMessage(err)})
			return
		}
		h.Error(w, r, err)
		return
	}
	auditStudy(r, s.ID)
	auditf(r, "%q, %s, language %s", s.Name, s.Kind, s.Lang)
	h.flash(w, r, fmt.Sprintf("Study %q created.", s.Name))
	redirect(w, r, templates.StudyURL(s.ID, ""))
}

// study loads the study named by the {study} URL parameter, or takes the
// one Writable loaded for this request; the caller gets its own copy.
func (h *Handler) study(r *http.Request) (*domain.Study, error) {
	id, err := idParam(r, "study")
	if err != nil {
		return nil, err
	}
	if sc, ok := r.Context().Value(scopeKey).(*adminScope); ok && sc.study != nil && sc.study.ID == id {
		c := *sc.study
		return &c, nil
	}
	return h.Store.Study(r.Context(), id)
}

// StudyPage handles GET /admin/studies/{study}: each kind has its own page.
func (h *Handler) StudyPage(w http.ResponseWriter, r *http.Request) {
	s, err := h.study(r)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	switch s.Kind {
	case domain.KindExpert:
		h.expertStudyPage(w, r, s, http.StatusOK, "")
	case domain.KindCrowd, domain.KindJudgement:
		h.crowdStudyPage(w, r, s, "")
	case domain.KindContext:
		h.contextStudyPage(w, r, s)
	case domain.KindExplain:
		h.explainStudyPage(w, r, s)
	default:
		h.NotFound(w, r)
	}
}

// ImportItems handles POST /admin/studies/{study}/items: an all-or-nothing
// upload of implicature items (CSV or JSON Lines) or, for IMPAQTS studies,
// passages.
func (h *Handler) ImportItems(w http.ResponseWriter, r *http.Request) {
	s, err := h.study(r)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	name, data, err := uploadedFile(w, r, "file")
	if err != nil {
		h.importFailed(w, r, s, err)
		return
	}
	switch s.Kind {
	case domain.KindContext, domain.KindExplain:
		h.importPassages(w, r, s, name, data)
		return
	}
	n, err := h.Service.ImportItemFile(r.Context(), s.ID, name, data)
	if err != nil {
		h.importFailed(w, r, s, err)
		return
	}
	h.Log.Info("items imported", "study", s.ID, "items", n)
	auditf(r, "%s", studies.AuditItemsImported(n, name))
	noun := "items"
	if n == 1 {
		noun = "item"
	}
	h.flash(w, r, fmt.Sprintf("Imported %d %s from %s.", n, noun, name))
	redirect(w, r, templates.StudyURL(s.ID, ""))
}

// importFailed shows the study page again with the import's error.
func (h *Handler) importFailed(w http.ResponseWriter, r *http.Request, s *domain.Study, err error) {
	if domain.ErrorCode(err) == domain.EINVALID {
		err = domain.Errorf(domain.EINVALID, "Nothing was imported: %s", domain.ErrorMessage(err))
	}
	h.failOnStudyPage(w, r, s, err)
}

// studyOfKind loads the {study} of a form post, checks its kind and parses
// the form; on failure it has answered already.
func (h *Handler) studyOfKind(w http.ResponseWriter, r *http.Request, kind string) (*domain.Study, bool) {
	s, err := h.study(r)
	if err == nil && s.Kind != kind {
		err = domain.Errorf(domain.ENOTFOUND, "not a %s study", templates.KindLabel(kind))
	}
	if err == nil {
		err = parseForm(w, r)
	}
	if err != nil {
		h.Error(w, r, err)
		return nil, false
	}
	return s, true
}

// formFailure is the status of a domain error the researcher's form can
// answer — bad input (400) or a conflict (409) — and false for any other.
func formFailure(err error) (int, bool) {
	switch domain.ErrorCode(err) {
	case domain.EINVALID:
		return http.StatusBadRequest, true
	case domain.ECONFLICT:
		return http.StatusConflict, true
	}
	return 0, false
}

// failOnStudyPage shows a domain error (bad input, a conflict) at the top of
// the study's own admin page, with the researcher's form there to try again;
// any other error goes to Error.
func (h *Handler) failOnStudyPage(w http.ResponseWriter, r *http.Request, s *domain.Study, err error) {
	status, ok := formFailure(err)
	if !ok {
		h.Error(w, r, err)
		return
	}
	msg := domain.ErrorMessage(err)
	switch s.Kind {
	case domain.KindExpert:
		h.expertStudyPage(w, r, s, status, msg)
	case domain.KindCrowd, domain.KindJudgement:
		h.crowdStudyPage(w, r, s, msg)
	case domain.KindContext:
		h.contextStudyPageWith(w, r, s, status, msg)
	case domain.KindExplain:
		h.explainStudyPageWith(w, r, s, status, msg)
	default:
		h.render(w, r, status, templates.ErrorPage("en", status, msg))
	}
}

// uploadedFile reads one uploaded file, bounded by maxUpload.
func uploadedFile(w http.ResponseWriter, r *http.Request, field string) (string, []byte, error) {
	r.Body = http.MaxBytesReader(w, r.Body, maxUpload)
	f, hdr, err := r.FormFile(field)
	if err != nil {
		if strings.Contains(err.Error(), "too large") {
			return "", nil, domain.Errorf(domain.EINVALID, "the file is larger than %d MB", maxUpload>>20)
		}
		return "", nil, domain.Errorf(domain.EINVALID, "choose a file to upload")
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return "", nil, domain.Errorf(domain.EINVALID, "the upload could not be read: %v", err)
	}
	return filepath.Base(hdr.Filename), data, nil
}
