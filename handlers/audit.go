package handlers

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

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

// auditActions names the state-changing admin routes for the log; a route
// missing here is logged under its pattern, so none goes unrecorded.
var auditActions = map[string]string{
	"/admin/studies":                                                    "create study",
	"/admin/accounts":                                                   "create account",
	"/admin/accounts/{admin}/role":                                      "change role",
	"/admin/accounts/{admin}/password":                                  "reset password",
	"/admin/accounts/{admin}/sessions":                                  "end sessions",
	"/admin/studies/{study}/items":                                      "import items",
	"/admin/studies/{study}/state":                                      "change study state",
	"/admin/studies/{study}/pilot":                                      "pilot link",
	"/admin/studies/{study}/items/{item}/check":                         "set attention check",
	"/admin/studies/{study}/batches":                                    "build expert batches",
	"/admin/studies/{study}/experts":                                    "invite expert",
	"/admin/studies/{study}/rounds/{round}":                             "assign round",
	"/admin/studies/{study}/review/{item}":                              "review decision",
	"/admin/studies/{study}/crowd/settings":                             "save crowd settings",
	"/admin/studies/{study}/crowd/batches":                              "build crowd batches",
	"/admin/studies/{study}/crowd/participants/{participant}/exclusion": "exclusion decision",
	"/admin/studies/{study}/prolific/link":                              "link Prolific study",
	"/admin/studies/{study}/prolific/check":                             "check Prolific",
	"/admin/studies/{study}/prolific/sync":                              "sync Prolific submissions",
	"/admin/studies/{study}/prolific/approve":                           "approve Prolific submissions",
	"/admin/studies/{study}/prolific/reject":                            "reject Prolific submissions",
	"/admin/studies/{study}/prolific/bonus/plan":                        "plan Prolific bonus",
	"/admin/studies/{study}/prolific/bonus/setup":                       "set up Prolific bonus",
	"/admin/studies/{study}/prolific/bonus/pay":                         "pay Prolific bonus",
	"/admin/studies/{study}/prolific/bonus/not-sent":                    "mark Prolific payment not sent",
	"/admin/studies/{study}/prolific/create":                            "create Prolific draft",
	"/admin/studies/{study}/prolific/group":                             "add Prolific participant group",
	"/admin/studies/{study}/surveys":                                    "build context surveys",
	"/admin/studies/{study}/context/experts":                            "invite context expert",
	"/admin/studies/{study}/outputs":                                    "import model outputs",
	"/admin/studies/{study}/explain/settings":                           "save explanation settings",
	"/admin/studies/{study}/explain/experts":                            "invite explanation rater",
	"/admin/studies/{study}/explain/experts/{annotator}/assign":         "assign explanation screens",
	"/admin/studies/{study}/jobs":                                       "start scoring job",
	"/admin/studies/{study}/jobs/{job}/cancel":                          "cancel job",
	"/admin/studies/{study}/jobs/{job}/retry":                           "retry job",
	"/admin/studies/{study}/jobs/{job}/outputs":                         "import job outputs",
	"/admin/studies/{study}/prompts":                                    "save prompts",
	"/admin/studies/{study}/rename":                                     "rename study",
	"/admin/studies/{study}/archive":                                    "archive or restore study",
	"/admin/studies/{study}/clone":                                      "clone study",
	"/admin/studies/{study}/delete":                                     "delete study",
	"/admin/studies/{study}/items/{item}/edit":                          "correct item",
	"/admin/studies/{study}/items/reimport":                             "upload corrected items",
	"/admin/studies/{study}/items/reimport/{upload}":                    "apply corrected items",
	"/admin/studies/{study}/people/{annotator}/rename":                  "rename expert",
	"/admin/studies/{study}/people/{annotator}/revoke":                  "revoke expert link",
	"/admin/studies/{study}/people/{annotator}/reissue":                 "re-issue expert link",
	"/admin/studies/{study}/jobs/{job}/delete":                          "delete job",
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
	action, ok := auditActions[pattern]
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
		detail = formSummary(params, r.PostForm)
	}
	who := actor(r)
	// The action is done: record it even if the client has gone.
	if err := h.DB.Audit(context.WithoutCancel(r.Context()), who, study, action, detail); err != nil {
		h.Log.Error("audit log not written", "actor", who, "study", study, "action", action, "err", err)
	}
}

// urlCredentials matches the user:password part of a URL (an endpoint's
// base URL may carry one), which the log leaves out.
var urlCredentials = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^/\s@]+@`)

// formSummary lists URL parameters and form fields as name=value, sorted,
// each value cut to 200 characters; passwords, tokens and credentials in
// URLs are left out.
func formSummary(params map[string]string, form url.Values) string {
	var parts []string
	for k, v := range params {
		parts = append(parts, k+"="+v)
	}
	for k, vs := range form {
		lk := strings.ToLower(k)
		if strings.Contains(lk, "password") || strings.Contains(lk, "secret") || lk == "token" || strings.HasSuffix(lk, "_token") || lk == "api_key" || lk == "next" {
			continue
		}
		v := urlCredentials.ReplaceAllString(strings.Join(vs, ","), "$1…@")
		if len(v) > 200 {
			v = v[:200] + "…"
		}
		parts = append(parts, k+"="+strconv.Quote(v))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
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
	if err := h.DB.WriteAuditCSV(r.Context(), studyID, &buf); err != nil {
		h.Error(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+filename+`"`)
	w.Write([]byte(buf.String()))
}

// auditLog is the latest entries of a study for its page.
func (h *Handler) auditLog(ctx context.Context, studyID int64) templates.AuditView {
	es, err := h.DB.AuditLog(ctx, studyID, auditOnPage+1)
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
