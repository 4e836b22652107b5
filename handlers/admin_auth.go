package handlers

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"pragmalab/domain"
	"strings"

	"pragmalab/templates"
)

const adminSession = "pragmalab_admin"

type ctxKey int

const (
	adminKey ctxKey = iota
	auditKey        // *auditNote of a state-changing admin request
	scopeKey        // *adminScope of an admin request
)

// adminScope holds what one admin request has loaded, for the handlers
// after the middleware that loaded it. It is filled in place, so that no
// middleware has to hand a copy of the request on (the Audited middleware
// reads the form the handler parsed on its request).
type adminScope struct {
	// study is the {study} Writable checked.
	study *domain.Study
}

// CurrentAdmin is the admin logged in for this request, or nil.
func CurrentAdmin(ctx context.Context) *domain.Admin {
	a, _ := ctx.Value(adminKey).(*domain.Admin)
	return a
}

// actor names the admin making the request, for the records of who did
// what (the audit log, state changes, Prolific calls); "?" outside the
// admin area, where no admin is known.
func actor(r *http.Request) string {
	if a := CurrentAdmin(r.Context()); a != nil {
		return a.Username
	}
	return "?"
}

// RequireAdmin lets a request through only with a live admin session (the
// server's table decides, not the cookie's age); others are sent to the
// login page.
func (h *Handler) RequireAdmin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sess, _ := h.Sessions.Get(r, adminSession)
		token, _ := sess.Values["token"].(string)
		a, err := h.Store.SessionAdmin(r.Context(), token)
		if err != nil {
			if domain.ErrorCode(err) == domain.ENOTFOUND {
				h.toLogin(w, r)
				return
			}
			h.Error(w, r, err)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		ctx := context.WithValue(context.WithValue(r.Context(), adminKey, a), scopeKey, &adminScope{})
		// The pages show a viewer no form and no token (templates/viewer.go).
		ctx = templates.WithViewer(ctx, !a.CanChange())
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// RequireOwnerForChanges refuses every state-changing request (anything but
// GET and HEAD) of a viewer: viewers read everything and change nothing.
// It sits on the whole admin area, so no route can forget it.
func (h *Handler) RequireOwnerForChanges(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead && !CurrentAdmin(r.Context()).CanChange() {
			h.Error(w, r, domain.Errorf(domain.EFORBIDDEN, "Your account is a viewer account: it can read everything but change nothing. Ask an owner to make the change."))
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (h *Handler) toLogin(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		http.Error(w, "log in first", http.StatusUnauthorized)
		return
	}
	http.Redirect(w, r, "/admin/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
}

// safeNext keeps a post-login redirect on this site.
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/admin") || strings.HasPrefix(next, "//") || strings.Contains(next, "\\") {
		return "/admin"
	}
	return next
}

// LoginPage handles GET /admin/login.
func (h *Handler) LoginPage(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, http.StatusOK, templates.Login(templates.LoginView{Next: safeNext(r.URL.Query().Get("next"))}))
}

// Login handles POST /admin/login.
func (h *Handler) Login(w http.ResponseWriter, r *http.Request) {
	if err := parseForm(w, r); err != nil {
		h.Error(w, r, err)
		return
	}
	username := strings.TrimSpace(r.PostFormValue("username"))
	next := safeNext(r.PostFormValue("next"))
	client := clientAddr(r, h.TrustedProxyHeader)
	// The attempt is counted before the password is checked, so parallel
	// attempts cannot all slip under the limit while bcrypt runs; a
	// browser with a device cookie counts on its own (device.go).
	keys, wait := h.reserveLogin(r, client, username)
	if wait > 0 {
		w.Header().Set("Retry-After", fmt.Sprint(int(wait.Seconds())+1))
		h.Log.Warn("login throttled", "username", username, "client", client)
		h.render(w, r, http.StatusTooManyRequests, templates.Login(templates.LoginView{Username: username, Next: next,
			Error: fmt.Sprintf("Too many failed logins for this account or from your address. Try again in %d minutes.", int(wait.Minutes())+1)}))
		return
	}
	a, err := h.Store.Authenticate(r.Context(), username, r.PostFormValue("password"))
	if err != nil {
		if domain.ErrorCode(err) != domain.EINVALID {
			h.Error(w, r, err)
			return
		}
		h.Log.Info("login failed", "username", username, "client", client)
		h.render(w, r, http.StatusUnauthorized, templates.Login(templates.LoginView{Username: username, Error: "Wrong username or password.", Next: next}))
		return
	}
	h.logins.release(keys...)
	token, err := h.Store.CreateSession(r.Context(), a.ID)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	sess, _ := h.Sessions.New(r, adminSession)
	sess.Values["token"] = token
	if err := sess.Save(r, w); err != nil {
		h.Error(w, r, err)
		return
	}
	h.trustDevice(w, a.Username)
	h.Log.Info("login", "admin", a.Username, "client", client)
	redirect(w, r, next)
}

// Logout handles POST /admin/logout: the session ends on the server, so a
// copy of the cookie is worth nothing afterwards.
func (h *Handler) Logout(w http.ResponseWriter, r *http.Request) {
	sess, _ := h.Sessions.Get(r, adminSession)
	if token, _ := sess.Values["token"].(string); token != "" {
		if err := h.Store.EndSession(r.Context(), token); err != nil {
			h.Error(w, r, err)
			return
		}
	}
	sess.Options.MaxAge = -1
	sess.Save(r, w)
	redirect(w, r, "/admin/login")
}

// flash stores a one-time message for the next admin page.
func (h *Handler) flash(w http.ResponseWriter, r *http.Request, msg string) {
	sess, _ := h.Sessions.Get(r, adminSession)
	sess.AddFlash(msg)
	sess.Save(r, w)
}

// nav builds the admin header, taking any pending flash message.
func (h *Handler) nav(w http.ResponseWriter, r *http.Request, s *domain.Study) templates.Nav {
	n := templates.Nav{}
	if a := CurrentAdmin(r.Context()); a != nil {
		n.Admin, n.Viewer = a.Username, !a.CanChange()
	}
	if s != nil {
		n.StudyID, n.Study, n.Archived, n.StudyState = s.ID, s.Name, s.Archived(), s.State
	}
	sess, _ := h.Sessions.Get(r, adminSession)
	if fl := sess.Flashes(); len(fl) > 0 {
		var msgs []string
		for _, f := range fl {
			if m, ok := f.(string); ok {
				msgs = append(msgs, m)
			}
		}
		n.Flash = strings.Join(msgs, " ")
		sess.Save(r, w)
	}
	return n
}
