// Package handlers holds pragmalab's HTTP handlers: one Handler with its
// dependencies, one file per area.
package handlers

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"pragmalab/comparisons"
	"pragmalab/domain"
	"pragmalab/prolific"
	"pragmalab/recruit"
	"pragmalab/signin"
	"strconv"
	"sync"
	"time"

	"github.com/a-h/templ"
	"github.com/go-chi/chi/v5"
	"github.com/gorilla/sessions"

	"pragmalab/studies"
	"pragmalab/templates"
)

// Handler serves every page; its fields are all it depends on.
type Handler struct {
	// Service is the use-case layer every handler calls
	// (docs/architecture.md#handlers).
	Service *studies.Service
	// Store is the plain reads and writes (store.go).
	Store Store
	// SignIn is the login lock's audit and institutional sign-in's rules.
	SignIn *signin.Service
	// Comparisons sets the study's models beside its humans: the job
	// pages' comparison, the Analysis page's models (comparisons/).
	Comparisons *comparisons.Service
	// Recruit drives Prolific for crowd studies (recruit/).
	Recruit  *recruit.Service
	Sessions sessions.Store
	Log      *slog.Logger
	Now      func() time.Time
	// SecureCookies marks participant cookies Secure (behind TLS).
	SecureCookies bool
	// Jobs runs model-scoring jobs in the background (nil: jobs are stored
	// but wait for a runner); Getenv reads API keys (default os.Getenv).
	Jobs   JobRunner
	Getenv func(string) string
	// TrustedProxyHeader names the header a trusted reverse proxy sets to
	// the client's address (Fly-Client-IP on Fly.io); empty: the connection's
	// address is the client's and no header is believed.
	TrustedProxyHeader string
	// PublicEndpointsOnly refuses job endpoints on this machine or a
	// private network (serve --public-endpoints-only).
	PublicEndpointsOnly bool
	// OIDC signs admins in through an identity provider; nil when not
	// configured (admin_oidc.go).
	OIDC *signin.OIDC
	// DeviceKey signs the device cookies of browsers that logged in
	// before (device.go); nil: no device cookie is issued or believed.
	DeviceKey []byte
	// ScreenKey makes the nonces of the crowd's rating screens, from
	// which the page's script derives its token
	// (docs/studies.md#server-evidence); nil: no nonce, no verdict.
	ScreenKey []byte
	// TrapKey is the key the participants' traps are drawn from
	// (domain.DrawTraps, store.DB.TrapKey): the decoy field's and the
	// rating's names, the hidden instruction's wording and markup.
	TrapKey []byte
	// RCompanion writes a study's R companion as a zip (Analysis page);
	// nil: not offered.
	RCompanion func(ctx context.Context, s *domain.Study, w io.Writer) error
	// DataPackage writes a crowd study's data package as a zip (the crowd
	// study page, docs/formats.md#data-package); nil: not offered.
	DataPackage func(ctx context.Context, s *domain.Study, w io.Writer) error
	// StudyTokens verifies Prolific's signed study URLs for the studies
	// that require them (crowd_token.go); nil: such studies refuse every
	// arrival as unverifiable.
	StudyTokens *prolific.TokenVerifier

	logins  *loginThrottle
	locks   lockAudit
	entries *loginThrottle // new arrivals at the crowd entry URL
	pages   sync.Pool      // *bytes.Buffer: the buffers pages are rendered into (render)
}

// SetEntryLimit sets how many new arrivals a client address may make at
// the crowd entry URL per 10 minutes (0: the default of 30; negative: no
// limit, for load tests from one address).
func (h *Handler) SetEntryLimit(n int) {
	if n < 0 {
		n = int(^uint(0) >> 1)
	}
	h.entries = newEntryThrottle(n)
}

// New returns a Handler calling the use cases of svc.
func New(svc *studies.Service, ss sessions.Store, log *slog.Logger) *Handler {
	return &Handler{Service: svc, Sessions: ss, Log: log, Now: func() time.Time { return time.Now().UTC() }, logins: newLoginThrottle(), entries: newEntryThrottle(0)}
}

// maxForm bounds an ordinary form post; uploads have their own limit.
const maxForm = 64 << 10

// render writes a component with the given status, logging failures. The
// page is rendered into a buffer first and sent in one write with its
// Content-Length: templ would flush the response writer at the end,
// which makes the response chunked and costs a second write (the closing
// chunk) on every page; and a failed render can still answer 500 instead
// of half a page.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	buf, _ := h.pages.Get().(*bytes.Buffer)
	if buf == nil {
		buf = new(bytes.Buffer)
	}
	defer h.putPage(buf)
	buf.Reset()
	if err := c.Render(r.Context(), buf); err != nil {
		h.Log.Error("render", "route", routeOf(r), "err", err)
		http.Error(w, "Internal error.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// putPage gives a page's buffer back, unless a very large page grew it:
// one report's megabytes are not worth keeping for every page.
func (h *Handler) putPage(b *bytes.Buffer) {
	if b.Cap() <= 1<<20 {
		h.pages.Put(b)
	}
}

// Error maps err to a status and shows its user-safe message; internal
// details go to the log only.
func (h *Handler) Error(w http.ResponseWriter, r *http.Request, err error) {
	status := http.StatusInternalServerError
	switch domain.ErrorCode(err) {
	case domain.EINVALID:
		status = http.StatusBadRequest
	case domain.ENOTFOUND:
		status = http.StatusNotFound
	case domain.ECONFLICT:
		status = http.StatusConflict
	case domain.EFORBIDDEN:
		status = http.StatusForbidden
	case domain.EFULL:
		status = http.StatusServiceUnavailable
	}
	msg := domain.ErrorMessage(err)
	if status >= http.StatusInternalServerError {
		if errors.Is(err, context.Canceled) {
			return
		}
		h.Log.Error("request failed", "method", r.Method, "route", routeOf(r), "err", err)
	}
	h.render(w, r, status, templates.ErrorPage("en", status, msg))
}

// NotFound is the 404 page.
func (h *Handler) NotFound(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, http.StatusNotFound, templates.ErrorPage("en", http.StatusNotFound, "There is no page at this address."))
}

// idParam reads a positive integer URL parameter.
func idParam(r *http.Request, name string) (int64, error) {
	id, err := strconv.ParseInt(chi.URLParam(r, name), 10, 64)
	if err != nil || id <= 0 {
		return 0, domain.Errorf(domain.ENOTFOUND, "not found")
	}
	return id, nil
}

// parseForm parses a small form post, bounded in size.
func parseForm(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		return domain.Errorf(domain.EINVALID, "the form could not be read (too large or malformed)")
	}
	return nil
}

// answerForm opens every participant answer POST: the screen position
// {pos} (1 to n) and the form. It renders the error itself (404 for a
// position outside the batch, 400 for an unreadable form) and reports
// whether the handler may go on.
func (h *Handler) answerForm(w http.ResponseWriter, r *http.Request, n int) (int, bool) {
	pos, ok := position(r, n)
	if !ok {
		h.NotFound(w, r)
		return 0, false
	}
	if err := parseForm(w, r); err != nil {
		h.Error(w, r, err)
		return 0, false
	}
	return pos, true
}

// baseURL is the scheme and host the client used, for links to send out.
func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https" {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// redirect answers a post with 303 See Other.
func redirect(w http.ResponseWriter, r *http.Request, url string) {
	http.Redirect(w, r, url, http.StatusSeeOther)
}

// rtParam reads the rt_ms field static/app.js fills in: the milliseconds
// from the screen being shown to the answer, 0 when absent (no JavaScript)
// or not a plausible time (docs/formats.md#answer-times).
func rtParam(r *http.Request) int {
	v := r.PostFormValue("rt_ms")
	if len(v) > 9 {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 || n > domain.MaxRT {
		return 0
	}
	return n
}

// routeOf is the route pattern a request matched (/e/{token}/b/…), what
// the log names instead of the path, which may hold a token.
func routeOf(r *http.Request) string {
	if rc := chi.RouteContext(r.Context()); rc != nil && rc.RoutePattern() != "" {
		return rc.RoutePattern()
	}
	return "(no route)"
}
