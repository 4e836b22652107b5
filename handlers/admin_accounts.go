package handlers

import (
	"fmt"
	"net/http"
	"pragmalab/domain"
	"pragmalab/signin"
	"pragmalab/studies"
	"strings"

	"pragmalab/templates"
)

// AccountsPage handles GET /admin/accounts: every admin account with its
// role; owners also get the forms that change them.
func (h *Handler) AccountsPage(w http.ResponseWriter, r *http.Request) {
	h.renderAccounts(w, r, http.StatusOK, templates.AccountsView{})
}

func (h *Handler) renderAccounts(w http.ResponseWriter, r *http.Request, status int, v templates.AccountsView) {
	as, err := h.Store.Admins(r.Context())
	if err != nil {
		h.Error(w, r, err)
		return
	}
	msg := v.Nav.Error
	v.Nav, v.Accounts = h.nav(w, r, nil), as
	v.Nav.Error = msg
	v.CanEdit = CurrentAdmin(r.Context()).CanChange()
	v.Audit = h.auditLog(r.Context(), 0)
	h.render(w, r, status, templates.Accounts(v))
}

// CreateAccount handles POST /admin/accounts: a new admin with a role and
// a random password shown once.
func (h *Handler) CreateAccount(w http.ResponseWriter, r *http.Request) {
	if err := parseForm(w, r); err != nil {
		h.Error(w, r, err)
		return
	}
	form := templates.AccountForm{Username: strings.TrimSpace(r.PostFormValue("username")), Role: r.PostFormValue("role")}
	password := signin.NewPassword()
	a, err := h.Store.CreateAdminWithRole(r.Context(), form.Username, password, form.Role)
	if err != nil {
		if code := domain.ErrorCode(err); code == domain.EINVALID || code == domain.ECONFLICT {
			form.Error = domain.ErrorMessage(err)
			h.renderAccounts(w, r, http.StatusBadRequest, templates.AccountsView{Form: form})
			return
		}
		h.Error(w, r, err)
		return
	}
	auditf(r, "%s", studies.AuditAccountCreated(a.Username, a.Role))
	h.auditNow(r)
	h.Log.Info("account created", "admin", a.Username, "role", a.Role, "by", CurrentAdmin(r.Context()).Username)
	// The password is shown on this answer only, never stored in a flash.
	h.renderAccounts(w, r, http.StatusOK, templates.AccountsView{NewUser: a.Username, NewPassword: password})
}

// account loads the {admin} of an account route.
func (h *Handler) account(r *http.Request) (*domain.Admin, error) {
	id, err := idParam(r, "admin")
	if err != nil {
		return nil, err
	}
	return h.Store.AdminByID(r.Context(), id)
}

// SetAccountRole handles POST /admin/accounts/{admin}/role.
func (h *Handler) SetAccountRole(w http.ResponseWriter, r *http.Request) {
	a, err := h.account(r)
	if err == nil {
		err = parseForm(w, r)
	}
	role := r.PostFormValue("role")
	if err == nil {
		err = h.Store.SetRole(r.Context(), a.Username, role)
	}
	if err != nil {
		h.accountFailed(w, r, err)
		return
	}
	auditf(r, "%s", studies.AuditRoleChanged(a.Username, a.Role, role))
	h.flash(w, r, fmt.Sprintf("%s is now %s.", a.Username, role))
	redirect(w, r, "/admin/accounts")
}

// ResetAccountPassword handles POST /admin/accounts/{admin}/password: a new
// random password, shown once; the account's sessions all end.
func (h *Handler) ResetAccountPassword(w http.ResponseWriter, r *http.Request) {
	a, err := h.account(r)
	password := signin.NewPassword()
	if err == nil {
		err = h.Store.SetPassword(r.Context(), a.Username, password)
	}
	if err != nil {
		h.accountFailed(w, r, err)
		return
	}
	auditf(r, "%s", studies.AuditPasswordReset(a.Username))
	h.auditNow(r)
	h.renderAccounts(w, r, http.StatusOK, templates.AccountsView{NewUser: a.Username, NewPassword: password})
}

// EndAccountSessions handles POST /admin/accounts/{admin}/sessions: logs
// the account out in every browser.
func (h *Handler) EndAccountSessions(w http.ResponseWriter, r *http.Request) {
	a, err := h.account(r)
	if err == nil {
		err = h.Store.EndSessions(r.Context(), a.ID)
	}
	if err != nil {
		h.accountFailed(w, r, err)
		return
	}
	auditf(r, "%s", studies.AuditSessionsEnded(a.Username))
	redirect(w, r, "/admin/accounts")
}

// accountFailed shows a domain error on the accounts page.
func (h *Handler) accountFailed(w http.ResponseWriter, r *http.Request, err error) {
	code := domain.ErrorCode(err)
	if code != domain.EINVALID && code != domain.ECONFLICT {
		h.Error(w, r, err)
		return
	}
	status := http.StatusBadRequest
	if code == domain.ECONFLICT {
		status = http.StatusConflict
	}
	v := templates.AccountsView{}
	v.Nav.Error = domain.ErrorMessage(err)
	h.renderAccounts(w, r, status, v)
}
