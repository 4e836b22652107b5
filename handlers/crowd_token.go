package handlers

import (
	"errors"
	"net/http"
	"net/url"

	"pragmalab/prolific"
	"pragmalab/templates"
)

// Signed study URLs at the crowd entry (docs/prolific.md#signed-study-urls).

// signedEntryOK checks, for a study with the signed_url setting, that the
// arrival's prolific_token is Prolific's and was made for the URL's
// PROLIFIC_PID, STUDY_ID and SESSION_ID. A refusal is the participant's
// page in the study's language and nothing is stored; false then. A
// browser that already holds this participant's session or entry (it
// came in with a verified token) comes back without one.
func (h *Handler) signedEntryOK(w http.ResponseWriter, r *http.Request, c *crowdCtx, pid string, q url.Values) bool {
	if !c.Settings.SignedURL {
		return true
	}
	studyID, sessionID := q.Get("STUDY_ID"), q.Get("SESSION_ID")
	if c.Holds(r.Context(), pid, sessionID) {
		return true
	}
	var err error
	if h.StudyTokens == nil {
		err = prolific.ErrJWKSUnavailable
	} else {
		var claims prolific.StudyClaims
		claims, err = h.StudyTokens.Verify(r.Context(), q.Get(prolific.TokenParam))
		if err == nil && !claims.Match(pid, studyID, sessionID) {
			err = prolific.ErrTokenMismatch
		}
	}
	if err == nil {
		return true
	}
	lang := c.Study.Lang
	v := templates.CrowdMessageView{Lang: lang, Kind: "signed", Title: templates.CT(lang, "signed_title")}
	status := http.StatusForbidden
	switch {
	case errors.Is(err, prolific.ErrJWKSUnavailable):
		v.Kind, v.Title, v.Body = "signed_unavailable", templates.CT(lang, "signed_unavailable_title"), templates.CT(lang, "signed_unavailable_body")
		status = http.StatusServiceUnavailable
		w.Header().Set("Retry-After", "60")
	case errors.Is(err, prolific.ErrTokenMissing):
		v.Body = templates.CT(lang, "signed_missing")
	case errors.Is(err, prolific.ErrTokenExpired):
		v.Body = templates.CT(lang, "signed_expired")
	case errors.Is(err, prolific.ErrTokenMismatch):
		v.Body = templates.CT(lang, "signed_mismatch")
	default:
		v.Body = templates.CT(lang, "signed_invalid")
	}
	// The log names the study and why, never the token.
	h.Log.Warn("signed study URL refused", "study", c.Study.ID, "reason", err.Error())
	h.render(w, r, status, templates.CrowdMessage(v))
	return false
}
