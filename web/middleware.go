package web

import (
	"io/fs"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
)

// securityHeaders sets the headers every page gets; hsts adds
// Strict-Transport-Security, for a site served over TLS only. The header
// values are built once and shared: Header.Set replaces a value and
// Header.Add copies it (each slice's capacity is its length), so no
// response writes through another's.
func securityHeaders(hsts bool) func(http.Handler) http.Handler {
	base := http.Header{}
	if hsts {
		base.Set("Strict-Transport-Security", "max-age=31536000")
	}
	base.Set("X-Content-Type-Options", "nosniff")
	base.Set("X-Frame-Options", "DENY")
	base.Set("Referrer-Policy", "same-origin")
	base.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; form-action 'self' https://app.prolific.com; frame-ancestors 'none'; base-uri 'none'")
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h := w.Header()
			for k, v := range base {
				h[k] = v
			}
			next.ServeHTTP(w, r)
		})
	}
}

// logRequests logs one line per request, by its route pattern only: paths
// may hold secrets (invitation tokens). The line is at Debug (serve's -v):
// when the logger would drop it, the request goes through untouched, with
// no writer wrapped to count its bytes and no id made for it.
func logRequests(log *slog.Logger) func(http.Handler) http.Handler {
	var seq atomic.Uint64
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !log.Enabled(r.Context(), slog.LevelDebug) {
				next.ServeHTTP(w, r)
				return
			}
			id := r.Header.Get("X-Request-Id")
			if id == "" {
				id = strconv.FormatUint(seq.Add(1), 10)
			}
			ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
			start := time.Now()
			next.ServeHTTP(ww, r)
			// The pattern, never the path: a path may hold an invitation
			// token; a path no route matched is not logged at all.
			route := chiRoutePattern(r)
			if route == "" {
				route = "(no route)"
			}
			log.Debug("http", "method", r.Method, "route", route, "status", ww.Status(),
				"bytes", ww.BytesWritten(), "ms", time.Since(start).Milliseconds(), "id", id)
		})
	}
}

// recoverer turns a panic into a 500 and a log line with the stack.
func recoverer(log *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			defer func() {
				if p := recover(); p != nil {
					if p == http.ErrAbortHandler {
						panic(p)
					}
					log.Error("panic", "err", p, "route", chiRoutePattern(r))
					http.Error(w, "Internal error.", http.StatusInternalServerError)
				}
			}()
			next.ServeHTTP(w, r)
		})
	}
}

// crossOrigin refuses cross-origin unsafe requests (form posts from other
// sites), using the browser's Sec-Fetch-Site and Origin headers. It runs
// before routing, so the refusal is logged with the route pattern looked
// up in mux: a path may hold an invitation token, which must not reach the
// log.
func crossOrigin(log *slog.Logger, mux *chi.Mux) func(http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		route := mux.Find(chi.NewRouteContext(), r.Method, r.URL.Path)
		if route == "" {
			route = "(no route)"
		}
		log.Warn("cross-origin request refused", "method", r.Method, "route", route, "origin", r.Header.Get("Origin"))
		http.Error(w, "Cross-origin request refused.", http.StatusForbidden)
	}))
	return cop.Handler
}

// fileServer serves the files of fsys but answers 404 for its directories
// rather than listing them.
func fileServer(fsys fs.FS) http.Handler {
	files := http.FileServerFS(fsys)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/"), "/")
		if name == "" {
			name = "."
		}
		if fi, err := fs.Stat(fsys, name); err == nil && fi.IsDir() {
			http.NotFound(w, r)
			return
		}
		files.ServeHTTP(w, r)
	})
}
