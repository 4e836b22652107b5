package handlers

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"pragmalab/studies"
	"pragmalab/templates"
)

// auditNote collects what a handler wants the log to say about its action.
type auditNote struct {
	details []string
	study   int64
	written bool
}

// auditf adds a sentence to the audit entry of the current request (the
// file imported and how much it held, say).
func auditf(r *http.Request, format string, a ...any) {
	if n, ok := r.Context().Value(auditKey).(*auditNote); ok {
		n.details = append(n.details, fmt.Sprintf(format, a...))
	}
}

// auditStudy files the current request's entry under a study its URL does
// not name (the study it has just created).
func auditStudy(r *http.Request, id int64) {
	if n, ok := r.Context().Value(auditKey).(*auditNote); ok {
		n.study = id
	}
}

// Audited writes an audit-log entry for every admin request that changes
// state (anything but GET and HEAD) and succeeded: who, when, which action
// on which study, and what — the handler's own words (auditf) or else the
// form's fields, never a password. It wraps the whole admin area, so a new
// route is recorded without anyone remembering to.
func (h *Handler) Audited(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			next.ServeHTTP(w, r)
			return
		}
		note := &auditNote{}
		r2 := r.WithContext(context.WithValue(r.Context(), auditKey, note))
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		next.ServeHTTP(ww, r2)
		if status := ww.Status(); status < 400 && !note.written {
			h.writeAudit(r2, note)
		}
	})
}

// auditNow writes the current request's entry at once, for a handler
// whose answer shows the log (the accounts page after a change); the
// middleware then writes none.
func (h *Handler) auditNow(r *http.Request) {
	if n, ok := r.Context().Value(auditKey).(*auditNote); ok && !n.written {
		h.writeAudit(r, n)
	}
}

// writeAudit writes the entry of a successful state-changing request.
func (h *Handler) writeAudit(r *http.Request, note *auditNote) {
	note.written = true
	rc := chi.RouteContext(r.Context())
	pattern := strings.TrimSuffix(rc.RoutePattern(), "/")
	action, ok := studies.AuditActions[pattern]
	if !ok {
		action = r.Method + " " + pattern
	}
	var study int64
	params := map[string]string{}
	for i, k := range rc.URLParams.Keys {
		if k == "study" {
			study, _ = strconv.ParseInt(rc.URLParams.Values[i], 10, 64)
		} else if k != "*" {
			params[k] = rc.URLParams.Values[i]
		}
	}
	if note.study != 0 {
		study = note.study
	}
	detail := strings.Join(note.details, " ")
	if detail == "" {
		detail = h.Service.AuditDetail(r.Context(), study, params, r.PostForm)
	}
	who := actor(r)
	// The action is done: record it even if the client has gone.
	if err := h.Store.Audit(context.WithoutCancel(r.Context()), who, study, action, detail); err != nil {
		h.Log.Error("audit log not written", "actor", who, "study", study, "action", action, "err", err)
	}
}

// ExportAudit handles GET /admin/studies/{study}/export/audit.csv: the
// study's audit log, oldest first.
func (h *Handler) ExportAudit(w http.ResponseWriter, r *http.Request) {
	s, err := h.study(r)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	h.writeAuditCSV(w, r, s.ID, fmt.Sprintf("study-%d-audit.csv", s.ID))
}

// ExportAccountsAudit handles GET /admin/audit.csv: the entries of no study
// (account changes, new studies).
func (h *Handler) ExportAccountsAudit(w http.ResponseWriter, r *http.Request) {
	h.writeAuditCSV(w, r, 0, "accounts-audit.csv")
}

func (h *Handler) writeAuditCSV(w http.ResponseWriter, r *http.Request, studyID int64, filename string) {
	var buf strings.Builder
	if err := h.Store.WriteAuditCSV(r.Context(), studyID, &buf); err != nil {
		h.Error(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+filename+`"`)
	w.Write([]byte(buf.String()))
}

// auditLog is the latest entries of a study for its page.
func (h *Handler) auditLog(ctx context.Context, studyID int64) templates.AuditView {
	es, err := h.Store.AuditLog(ctx, studyID, auditOnPage+1)
	if err != nil {
		h.Log.Error("audit log", "study", studyID, "err", err)
	}
	v := templates.AuditView{StudyID: studyID, Entries: es}
	if len(es) > auditOnPage {
		v.Entries, v.More = es[:auditOnPage], true
	}
	return v
}

// auditOnPage is how many entries a study page shows; the CSV has all.
const auditOnPage = 50
