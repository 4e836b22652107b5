package handlers

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/sessions"

	"pragmalab/domain"
	"pragmalab/signin"
	"pragmalab/templates"
)

// Institutional sign-in with OpenID Connect
// (docs/deploy.md#institutional-sign-in-openid-connect): the login page's
// "Sign in with …", the way to the provider and back, and the owners' page
// of who may sign in.

// oidcCookie keeps a sign-in under way (its state, nonce and PKCE
// verifier), encrypted and authenticated like the admin session, for
// OIDCFlowMaxAge and only on the paths of the flow.
const oidcCookie = "pragmalab_oidc"

func (h *Handler) oidcCookieOptions(maxAge int) *sessions.Options {
	return &sessions.Options{Path: "/admin/oidc", MaxAge: maxAge, HttpOnly: true, Secure: h.SecureCookies, SameSite: http.SameSiteLaxMode}
}

// OfferOIDC lets the login page offer "Sign in with <provider>" when
// institutional sign-in is configured.
func (h *Handler) OfferOIDC(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h.OIDC != nil {
			r = r.WithContext(templates.WithSignInProvider(r.Context(), h.OIDC.Name()))
		}
		next.ServeHTTP(w, r)
	})
}

// OIDCLogin handles GET /admin/oidc/login: it starts a sign-in and sends
// the browser to the provider. It is a link, not a form, because a form's
// redirect to another site is refused by the pages' form-action policy.
func (h *Handler) OIDCLogin(w http.ResponseWriter, r *http.Request) {
	if h.OIDC == nil {
		h.NotFound(w, r)
		return
	}
	f, authURL, err := h.OIDC.Begin(r.Context(), h.OIDC.RedirectURL(baseURL(r)))
	if err != nil {
		h.oidcRefused(w, r, err)
		return
	}
	sess := sessions.NewSession(h.Sessions, oidcCookie)
	sess.Options = h.oidcCookieOptions(int(signin.OIDCFlowMaxAge.Seconds()))
	sess.Values["state"], sess.Values["nonce"], sess.Values["verifier"], sess.Values["redirect"] = f.State, f.Nonce, f.Verifier, f.RedirectURL
	sess.Values["next"] = safeNext(r.URL.Query().Get("next"))
	sess.Values["started"] = h.Now().Unix()
	if err := sess.Save(r, w); err != nil {
		h.Error(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	redirect(w, r, authURL)
}

// OIDCCallback handles GET /admin/oidc/callback, where the provider sends
// the browser back: the sign-in is finished only for the browser that
// started it (its cookie holds the state), once (the cookie is deleted
// whatever the outcome), and then opens an admin session as a password
// login does, with a new session token.
func (h *Handler) OIDCCallback(w http.ResponseWriter, r *http.Request) {
	if h.OIDC == nil {
		h.NotFound(w, r)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	flow, next := h.takeOIDCFlow(w, r)
	q := r.URL.Query()
	if e := q.Get("error"); e != "" {
		h.oidcRefused(w, r, h.OIDC.ProviderError(flow, q.Get("state"), e, q.Get("error_description")))
		return
	}
	a, err := h.OIDC.Finish(r.Context(), flow, q.Get("state"), q.Get("code"))
	if err != nil {
		h.oidcRefused(w, r, err)
		return
	}
	token, err := h.Store.CreateSession(r.Context(), a.ID)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	sess, _ := h.Sessions.New(r, adminSession)
	// The browser's earlier session, if any, ends: one browser, one
	// session, and a token known before the sign-in is worth nothing after.
	if old, _ := sess.Values["token"].(string); old != "" {
		if err := h.Store.EndSession(r.Context(), old); err != nil {
			h.Error(w, r, err)
			return
		}
	}
	sess.Values["token"] = token
	if err := sess.Save(r, w); err != nil {
		h.Error(w, r, err)
		return
	}
	h.Log.Info("login", "admin", a.Username, "via", h.OIDC.Name(), "client", clientAddr(r, h.TrustedProxyHeader))
	redirect(w, r, next)
}

// takeOIDCFlow reads the browser's sign-in under way and deletes its
// cookie; a missing, unreadable or stale one gives an empty flow, which
// Finish refuses.
func (h *Handler) takeOIDCFlow(w http.ResponseWriter, r *http.Request) (signin.OIDCFlow, string) {
	sess, err := h.Sessions.New(r, oidcCookie)
	str := func(k string) string { s, _ := sess.Values[k].(string); return s }
	var f signin.OIDCFlow
	next := safeNext(str("next"))
	started, _ := sess.Values["started"].(int64)
	if err == nil && !sess.IsNew && h.Now().Sub(time.Unix(started, 0)) <= signin.OIDCFlowMaxAge {
		f = signin.OIDCFlow{State: str("state"), Nonce: str("nonce"), Verifier: str("verifier"), RedirectURL: str("redirect")}
	}
	gone := sessions.NewSession(h.Sessions, oidcCookie)
	gone.Options = h.oidcCookieOptions(-1)
	gone.Save(r, w)
	return f, next
}

// oidcRefused shows why a sign-in did not let the person in: 403 for a
// refusal, 502 when the provider could not be reached. The cause goes to
// the log, never a token.
func (h *Handler) oidcRefused(w http.ResponseWriter, r *http.Request, err error) {
	var de *domain.Error
	if !errors.As(err, &de) {
		h.Error(w, r, err)
		return
	}
	status := http.StatusForbidden
	if de.Code == domain.EINTERNAL {
		status = http.StatusBadGateway
		h.Log.Error("institutional sign-in failed", "err", errors.Unwrap(err))
	} else {
		h.Log.Info("institutional sign-in refused", "reason", de.Message, "cause", errors.Unwrap(err))
	}
	h.render(w, r, status, templates.OIDCRefused(templates.OIDCRefusedView{Provider: h.OIDC.Name(), Message: de.Message, Status: status}))
}

// OIDCRulesPage handles GET /admin/accounts/sign-in: who may sign in
// through the provider; owners also get the forms.
func (h *Handler) OIDCRulesPage(w http.ResponseWriter, r *http.Request) {
	h.renderOIDCRules(w, r, http.StatusOK, templates.OIDCRuleForm{})
}

func (h *Handler) renderOIDCRules(w http.ResponseWriter, r *http.Request, status int, form templates.OIDCRuleForm) {
	rules, err := h.Store.OIDCRules(r.Context())
	if err != nil {
		h.Error(w, r, err)
		return
	}
	v := templates.OIDCRulesView{Nav: h.nav(w, r, nil), Rules: rules, CanEdit: CurrentAdmin(r.Context()).CanChange(), Form: form}
	if h.OIDC != nil {
		v.Provider, v.Issuer, v.Callback = h.OIDC.Name(), h.OIDC.Issuer(), h.OIDC.RedirectURL(baseURL(r))
	}
	h.render(w, r, status, templates.OIDCRules(v))
}

// AddOIDCRule handles POST /admin/accounts/sign-in.
func (h *Handler) AddOIDCRule(w http.ResponseWriter, r *http.Request) {
	if err := parseForm(w, r); err != nil {
		h.Error(w, r, err)
		return
	}
	form := templates.OIDCRuleForm{Kind: r.PostFormValue("kind"), Value: strings.TrimSpace(r.PostFormValue("value")), Role: r.PostFormValue("role")}
	rule, err := h.SignIn.AddOIDCRule(r.Context(), domain.OIDCRule{Kind: form.Kind, Value: form.Value, Role: form.Role}, actor(r))
	if err != nil {
		if code := domain.ErrorCode(err); code == domain.EINVALID || code == domain.ECONFLICT {
			form.Error = domain.ErrorMessage(err)
			h.renderOIDCRules(w, r, http.StatusBadRequest, form)
			return
		}
		h.Error(w, r, err)
		return
	}
	auditf(r, "%s", signin.AuditOIDCRule(true, *rule))
	h.flash(w, r, "Allowed "+rule.Value+" to sign in as "+rule.Role+".")
	redirect(w, r, "/admin/accounts/sign-in")
}

// DeleteOIDCRule handles POST /admin/accounts/sign-in/{rule}/delete.
func (h *Handler) DeleteOIDCRule(w http.ResponseWriter, r *http.Request) {
	id, err := idParam(r, "rule")
	if err != nil {
		h.Error(w, r, err)
		return
	}
	rule, err := h.Store.DeleteOIDCRule(r.Context(), id)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	auditf(r, "%s", signin.AuditOIDCRule(false, *rule))
	h.flash(w, r, "Removed "+rule.Value+" from institutional sign-in.")
	redirect(w, r, "/admin/accounts/sign-in")
}
