package handlers

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"pragmalab/store"
	"pragmalab/templates"
)

const adminSession = "pragmalab_admin"

type ctxKey int

const adminKey ctxKey = iota

// CurrentAdmin is the admin logged in for this request, or nil.
func CurrentAdmin(ctx context.Context) *store.Admin {
	a, _ := ctx.Value(adminKey).(*store.Admin)
	return a
}

// RequireAdmin lets a request through only with a valid admin session;
// others are sent to the login page.
func (h *Handler) RequireAdmin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sess, _ := h.Sessions.Get(r, adminSession)
		id, _ := sess.Values["admin"].(int64)
		if id == 0 {
			h.toLogin(w, r)
			return
		}
		a, err := h.DB.AdminByID(r.Context(), id)
		if err != nil {
			h.toLogin(w, r)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), adminKey, a)))
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
	client := clientKey(r)
	if wait := h.logins.blocked(client, h.Now()); wait > 0 {
		w.Header().Set("Retry-After", fmt.Sprint(int(wait.Seconds())+1))
		h.render(w, r, http.StatusTooManyRequests, templates.Login(templates.LoginView{Username: username, Next: next,
			Error: fmt.Sprintf("Too many failed logins from your address. Try again in %d minutes.", int(wait.Minutes())+1)}))
		return
	}
	a, err := h.DB.Authenticate(r.Context(), username, r.PostFormValue("password"))
	if err != nil {
		if store.ErrorCode(err) != store.EINVALID {
			h.Error(w, r, err)
			return
		}
		h.logins.fail(client, h.Now())
		h.Log.Info("login failed", "username", username, "remote", r.RemoteAddr)
		h.render(w, r, http.StatusUnauthorized, templates.Login(templates.LoginView{Username: username, Error: "Wrong username or password.", Next: next}))
		return
	}
	h.logins.reset(client)
	sess, _ := h.Sessions.New(r, adminSession)
	sess.Values["admin"] = a.ID
	if err := sess.Save(r, w); err != nil {
		h.Error(w, r, err)
		return
	}
	h.Log.Info("login", "admin", a.Username)
	redirect(w, r, next)
}

// Logout handles POST /admin/logout.
func (h *Handler) Logout(w http.ResponseWriter, r *http.Request) {
	sess, _ := h.Sessions.Get(r, adminSession)
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
func (h *Handler) nav(w http.ResponseWriter, r *http.Request, s *store.Study) templates.Nav {
	n := templates.Nav{}
	if a := CurrentAdmin(r.Context()); a != nil {
		n.Admin = a.Username
	}
	if s != nil {
		n.StudyID, n.Study, n.Archived = s.ID, s.Name, s.Archived()
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
