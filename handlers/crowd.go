package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"pragmalab/domain"
	"strconv"
	"strings"

	"pragmalab/store"
	"pragmalab/templates"
)

// crowdCtx is what every crowd participant page needs.
type crowdCtx struct {
	study *domain.Study
	s     domain.CrowdSettings
	base  string // /s/{study}
}

// crowdCookie names the cookie that binds a crowd session to a browser.
func crowdCookie(studyID int64) string { return "crowd_" + strconv.FormatInt(studyID, 10) }

// ProlificCompleteURL is where a participant who finished (or was screened
// out) goes back to Prolific with a code.
func ProlificCompleteURL(code string) string {
	return "https://app.prolific.com/submissions/complete?cc=" + url.QueryEscape(code)
}

// crowd loads the crowd study of the {study} URL parameter.
func (h *Handler) crowd(w http.ResponseWriter, r *http.Request) (*crowdCtx, bool) {
	id, err := idParam(r, "study")
	var st *domain.Study
	var s domain.CrowdSettings
	if err == nil {
		st, s, err = h.DB.CrowdStudy(r.Context(), id)
	}
	if err != nil {
		h.Error(w, r, err)
		return nil, false
	}
	if st.Archived() {
		h.studyClosed(w, r, st.Lang)
		return nil, false
	}
	w.Header().Set("Cache-Control", "no-store")
	return &crowdCtx{study: st, s: s, base: "/s/" + strconv.FormatInt(id, 10)}, true
}

// mayGoOn tells whether a participant (nil: none yet) may go on in the
// study's state: anyone while it is open; while it is paused, those who
// have consented when the settings let them finish.
func (c *crowdCtx) mayGoOn(p *store.CrowdParticipant) bool {
	if p != nil && p.Pilot {
		return true // a pilot session walks the study in any state
	}
	switch c.study.State {
	case domain.StateOpen:
		return true
	case domain.StatePaused:
		return c.s.FinishWhenPaused && p != nil && p.Consented && p.Status == store.CrowdActive
	}
	return false
}

// gate lets an answer through in the study's state, or shows the page of
// the state; the participant is read only when the study is not open.
func (h *Handler) gate(w http.ResponseWriter, r *http.Request, c *crowdCtx) bool {
	if c.study.State == domain.StateOpen {
		return true
	}
	p, err := h.DB.CrowdParticipantByToken(r.Context(), c.study.ID, crowdToken(r, c.study.ID))
	if err == nil && c.mayGoOn(p) {
		return true
	}
	h.studyUnavailable(w, r, c.study)
	return false
}

// crowdToken is the session cookie's value, or "".
func crowdToken(r *http.Request, studyID int64) string {
	c, err := r.Cookie(crowdCookie(studyID))
	if err != nil {
		return ""
	}
	return c.Value
}

func (h *Handler) setCrowdCookie(w http.ResponseWriter, c *crowdCtx, token string) {
	http.SetCookie(w, &http.Cookie{
		Name: crowdCookie(c.study.ID), Value: token, Path: c.base,
		MaxAge: 30 * 24 * 3600, HttpOnly: true, Secure: h.SecureCookies, SameSite: http.SameSiteLaxMode,
	})
}

// crowdMessage renders one of the pages that end or refuse a visit.
func (h *Handler) crowdMessage(w http.ResponseWriter, r *http.Request, c *crowdCtx, status int, kind, body string) {
	lang := c.study.Lang
	v := templates.CrowdMessageView{Lang: lang, Kind: kind, Body: body}
	switch kind {
	case "full", "moved", "foreign", "screened", "closed", "missing", "incomplete", "busy":
		v.Title = templates.CT(lang, kind+"_title")
	case "preview_done":
		v.Title = templates.CT(lang, "preview_done")
	}
	if body == "" {
		v.Body = templates.CT(lang, kind+"_body")
	}
	if kind == "screened" && c.s.ScreenOutCode != "" {
		v.Code, v.URL = c.s.ScreenOutCode, ProlificCompleteURL(c.s.ScreenOutCode)
	}
	h.render(w, r, status, templates.CrowdMessage(v))
}

// CrowdEntry handles GET /s/{study}?PROLIFIC_PID=…&STUDY_ID=…&SESSION_ID=…,
// the address Prolific sends participants to. It admits the participant
// (or finds their session), binds it to a cookie and goes on to the screen.
func (h *Handler) CrowdEntry(w http.ResponseWriter, r *http.Request) {
	c, ok := h.crowd(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	token := crowdToken(r, c.study.ID)
	if c.study.State != domain.StateOpen {
		if p, err := h.DB.CrowdParticipantByToken(r.Context(), c.study.ID, token); err == nil && (c.mayGoOn(p) || p.Status == store.CrowdCompleted) {
			redirect(w, r, c.base+"/screen")
			return
		}
		h.studyUnavailable(w, r, c.study)
		return
	}
	pid, problem := prolificPID(r.URL.RawQuery)
	if problem != "" {
		// A browser holding a session that opens the bare address (from its
		// history) resumes; anything else with a missing, empty or
		// unreplaced PROLIFIC_PID is told the link is incomplete — never
		// the preview, which stores nothing (docs/studies.md#crowd-entry).
		if problem == "missing" {
			if _, err := h.DB.CrowdParticipantByToken(r.Context(), c.study.ID, token); err == nil {
				redirect(w, r, c.base+"/screen")
				return
			}
		}
		h.crowdMessage(w, r, c, http.StatusBadRequest, "incomplete", templates.CT(c.study.Lang, "incomplete_"+problem))
		return
	}
	a := store.CrowdArrival{PID: pid, StudyID: q.Get("STUDY_ID"), SessionID: q.Get("SESSION_ID"), Token: token}
	// Only new arrivals are limited: a browser coming back with its cookie
	// is not counted.
	if token == "" || !h.entryKnown(r, c, token) {
		if wait := h.entries.reserve(h.Now(), clientAddr(r, h.TrustedProxyHeader)); wait > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds())+1))
			h.crowdMessage(w, r, c, http.StatusTooManyRequests, "busy", "")
			return
		}
	}
	p, err := h.DB.EnterCrowd(r.Context(), c.study.ID, a, c.s)
	if h.crowdRefused(w, r, c, err) {
		return
	}
	if p.Token != token {
		h.setCrowdCookie(w, c, p.Token)
	}
	redirect(w, r, c.base+"/screen")
}

// entryKnown tells whether the cookie token is a session or an entry of
// the study already.
func (h *Handler) entryKnown(r *http.Request, c *crowdCtx, token string) bool {
	if _, err := h.DB.CrowdParticipantByToken(r.Context(), c.study.ID, token); err == nil {
		return true
	}
	_, err := h.DB.CrowdEntry(r.Context(), c.study.ID, token)
	return err == nil
}

// crowdRefused shows the page of an entry's or a consent's refusal, if err
// is one, and reports whether it answered.
func (h *Handler) crowdRefused(w http.ResponseWriter, r *http.Request, c *crowdCtx, err error) bool {
	switch {
	case err == nil:
		return false
	case errors.Is(err, store.ErrStudyFull):
		h.crowdMessage(w, r, c, http.StatusConflict, "full", "")
	case errors.Is(err, store.ErrNotYourSession):
		h.crowdMessage(w, r, c, http.StatusForbidden, "foreign", "")
	case errors.Is(err, store.ErrNoBatches):
		h.crowdMessage(w, r, c, http.StatusServiceUnavailable, "closed", "")
	case domain.ErrorCode(err) == domain.ENOTFOUND:
		h.crowdMessage(w, r, c, http.StatusForbidden, "missing", "")
	case domain.ErrorCode(err) == domain.EINVALID:
		h.crowdMessage(w, r, c, http.StatusBadRequest, "missing",
			templates.CT(c.study.Lang, "missing_body")+" ("+domain.ErrorMessage(err)+")")
	default:
		h.Error(w, r, err)
	}
	return true
}

// prolificPID reads PROLIFIC_PID from a raw query string, decoded once or
// twice, and names what is wrong with it: "missing", "empty", or
// "placeholder" when Prolific did not replace {{%PROLIFIC_PID%}} (raw,
// URL-encoded, or encoded twice), "" when it can be checked further.
// The raw query is read because Go drops a pair whose value is not valid
// percent-encoding, as the raw placeholder is not.
func prolificPID(rawQuery string) (string, string) {
	for _, kv := range strings.Split(rawQuery, "&") {
		k, v, _ := strings.Cut(kv, "=")
		if dk, err := url.QueryUnescape(k); err != nil || dk != "PROLIFIC_PID" {
			continue
		}
		for range 2 {
			d, err := url.QueryUnescape(v)
			if err != nil {
				break
			}
			v = d
		}
		switch {
		case strings.Contains(strings.ToUpper(v), "PROLIFIC_PID") || strings.ContainsAny(v, "{}%"):
			return "", "placeholder"
		case strings.TrimSpace(v) == "":
			return "", "empty"
		}
		return v, ""
	}
	return "", "missing"
}

// crowdParticipant loads the session of the request's cookie; without one
// it shows the page asking to start from Prolific.
func (h *Handler) crowdParticipant(w http.ResponseWriter, r *http.Request, c *crowdCtx) (*store.CrowdParticipant, bool) {
	p, err := h.DB.CrowdParticipantByToken(r.Context(), c.study.ID, crowdToken(r, c.study.ID))
	if domain.ErrorCode(err) == domain.ENOTFOUND {
		h.crowdMessage(w, r, c, http.StatusForbidden, "missing", "")
		return nil, false
	}
	if err != nil {
		h.Error(w, r, err)
		return nil, false
	}
	return p, true
}

// CrowdScreen handles GET /s/{study}/screen: whatever comes next for the
// participant — consent, a training item, the next unanswered item, or the
// end. Reloading it resumes; the state lives in the database.
func (h *Handler) CrowdScreen(w http.ResponseWriter, r *http.Request) {
	c, ok := h.crowd(w, r)
	if !ok {
		return
	}
	token := crowdToken(r, c.study.ID)
	p, sc, err := h.DB.CrowdSessionScreen(r.Context(), c.study.ID, token)
	if err == nil && p.Status == store.CrowdActive && p.LastSeenAt.Before(h.DB.Now().Add(-c.s.Timeout())) {
		// Back after the time-out: carry on if the slot is still free.
		if _, err = h.DB.TouchCrowd(r.Context(), c.study.ID, token, c.s); err == nil {
			p, sc, err = h.DB.CrowdSessionScreen(r.Context(), c.study.ID, token)
		}
	}
	if domain.ErrorCode(err) == domain.ENOTFOUND {
		// Not a session: an entry waiting for consent gets the landing
		// page; anything else the "start from Prolific" page.
		if _, err := h.DB.CrowdEntry(r.Context(), c.study.ID, token); err == nil && c.study.State == domain.StateOpen {
			h.render(w, r, http.StatusOK, templates.CrowdLanding(templates.CrowdLandingView{
				Lang: c.study.Lang, Base: c.base, Title: c.s.Title, Intro: c.s.Intro, Consent: c.s.Consent,
			}))
			return
		}
		if c.study.State != domain.StateOpen {
			h.studyUnavailable(w, r, c.study)
			return
		}
		h.crowdParticipant(w, r, c) // the "start from Prolific" page
		return
	}
	if err != nil {
		h.Error(w, r, err)
		return
	}
	lang := c.study.Lang
	switch {
	case p.Status == store.CrowdCompleted:
		if c.s.Questionnaire.On() {
			sent, err := h.DB.QuestionnaireSent(r.Context(), p.ID)
			if err != nil {
				h.Error(w, r, err)
				return
			}
			if !sent {
				h.render(w, r, http.StatusOK, templates.CrowdQuestionnaire(templates.CrowdQuestionnaireView{
					Lang: lang, Action: c.base + "/questionnaire", Ask: c.s.Questionnaire,
				}))
				return
			}
		}
		h.crowdDone(w, r, c, p)
	case p.Status == store.CrowdMovedOn:
		h.crowdMessage(w, r, c, http.StatusOK, "moved", "")
	case p.Status == store.CrowdScreenedOut:
		h.crowdMessage(w, r, c, http.StatusOK, "screened", "")
	case !c.mayGoOn(p):
		h.studyUnavailable(w, r, c.study)
	case !p.Consented:
		h.render(w, r, http.StatusOK, templates.CrowdLanding(templates.CrowdLandingView{
			Lang: lang, Base: c.base, Title: c.s.Title, Intro: c.s.Intro, Consent: c.s.Consent,
		}))
	case sc.Item.ID == 0:
		h.Error(w, r, fmt.Errorf("crowd study %d: participant %d has no screen %d", c.study.ID, p.ID, sc.Position))
	case p.TrainingDone < p.Training:
		if err := h.DB.ScreenShown(r.Context(), store.FlowTraining, p.ID, sc.Position); err != nil {
			h.Error(w, r, err)
			return
		}
		h.render(w, r, http.StatusOK, templates.CrowdItem(templates.CrowdItemView{
			Lang: lang, Action: c.base + "/training", Training: true,
			Position: sc.Position, Total: p.Training, Attempt: p.TrainingWrong, Retry: p.TrainingWrong > 0,
			Item: sc.Item, FollowUp: sc.Item.FollowUp(sc.Condition),
		}))
	default:
		// Between the practice and the batch, a page says the practice is
		// over, until the first screen of the batch has been shown.
		if p.Training > 0 && p.Answered == 0 && r.URL.Query().Get("begin") == "" {
			shown, err := h.DB.ScreenWasShown(r.Context(), store.FlowCrowd, p.ID, 1)
			if err != nil {
				h.Error(w, r, err)
				return
			}
			if !shown {
				h.render(w, r, http.StatusOK, templates.CrowdPracticeEnd(templates.CrowdPracticeEndView{
					Lang: lang, Begin: c.base + "/screen?begin=1", Total: p.Screens,
				}))
				return
			}
		}
		shown := h.DB.ScreenShown
		if sc.Position == 1 {
			shown = h.DB.ScreenShownNow // the next GET asks whether the practice is over
		}
		if err := shown(r.Context(), store.FlowCrowd, p.ID, sc.Position); err != nil {
			h.Error(w, r, err)
			return
		}
		h.render(w, r, http.StatusOK, templates.CrowdItem(templates.CrowdItemView{
			Lang: lang, Action: c.base + "/answer",
			Position: sc.Position, Total: p.Screens, Done: p.Answered,
			Item: sc.Item, FollowUp: sc.Item.FollowUp(sc.Condition),
		}))
	}
}

// crowdDone shows the completion code and sends the browser on to Prolific
// after a few seconds (a Refresh header: no JavaScript needed).
func (h *Handler) crowdDone(w http.ResponseWriter, r *http.Request, c *crowdCtx, p *store.CrowdParticipant) {
	v := templates.CrowdDoneView{Lang: c.study.Lang, Code: c.s.CompletionCode, Total: p.Screens}
	if v.Code != "" {
		v.URL = ProlificCompleteURL(v.Code)
		w.Header().Set("Refresh", "3; url="+v.URL)
	}
	h.render(w, r, http.StatusOK, templates.CrowdDone(v))
}

// CrowdConsent handles POST /s/{study}/consent.
func (h *Handler) CrowdConsent(w http.ResponseWriter, r *http.Request) {
	c, ok := h.crowd(w, r)
	if !ok {
		return
	}
	if !h.gate(w, r, c) {
		return
	}
	token := crowdToken(r, c.study.ID)
	p, err := h.DB.ConsentCrowd(r.Context(), c.study.ID, token, c.s)
	if h.crowdRefused(w, r, c, err) {
		return
	}
	if p.Token != token {
		h.setCrowdCookie(w, c, p.Token)
	}
	redirect(w, r, c.base+"/screen")
}

// crowdForm opens a participant's answer POST: the study and the form.
func (h *Handler) crowdForm(w http.ResponseWriter, r *http.Request) (*crowdCtx, bool) {
	c, ok := h.crowd(w, r)
	if !ok {
		return nil, false
	}
	if err := parseForm(w, r); err != nil {
		h.Error(w, r, err)
		return nil, false
	}
	if !h.gate(w, r, c) {
		return nil, false
	}
	return c, true
}

// formInts reads small integer form fields; a missing or malformed one is 0.
func formInts(r *http.Request, names ...string) []int {
	out := make([]int, len(names))
	for i, n := range names {
		v := r.PostFormValue(n)
		if len(v) <= 6 {
			out[i], _ = strconv.Atoi(v)
		}
	}
	return out
}

// CrowdTrainingAnswer handles POST /s/{study}/training: a wrong answer
// brings the same item back with "try again".
func (h *Handler) CrowdTrainingAnswer(w http.ResponseWriter, r *http.Request) {
	c, ok := h.crowdForm(w, r)
	if !ok {
		return
	}
	v := formInts(r, "position", "attempt", "rating")
	if v[2] >= 1 && v[2] <= 7 {
		_, err := h.DB.AnswerCrowdTraining(r.Context(), c.study.ID, crowdToken(r, c.study.ID), v[0], v[1], v[2], rtParam(r), c.s)
		if err != nil && domain.ErrorCode(err) != domain.ENOTFOUND {
			h.Error(w, r, err)
			return
		}
	}
	redirect(w, r, c.base+"/screen")
}

// CrowdAnswer handles POST /s/{study}/answer: the rating is committed durably
// before the redirect to the next screen; sending it twice
// changes nothing.
func (h *Handler) CrowdAnswer(w http.ResponseWriter, r *http.Request) {
	c, ok := h.crowdForm(w, r)
	if !ok {
		return
	}
	v := formInts(r, "position", "rating")
	if v[1] >= 1 && v[1] <= 7 {
		_, err := h.DB.SaveCrowdRating(r.Context(), c.study.ID, crowdToken(r, c.study.ID), v[0], v[1], rtParam(r), c.s)
		if err != nil && domain.ErrorCode(err) != domain.ENOTFOUND {
			h.Error(w, r, err)
			return
		}
	}
	redirect(w, r, c.base+"/screen")
}

// CrowdPreview handles GET /s/{study}/preview?step=N, allowed by a study
// setting: the landing page, the training and the first batch, walked with
// links; nothing is stored.
func (h *Handler) CrowdPreview(w http.ResponseWriter, r *http.Request) {
	c, ok := h.crowd(w, r)
	if !ok {
		return
	}
	if !c.s.AllowPreview {
		h.crowdMessage(w, r, c, http.StatusNotFound, "missing", "")
		return
	}
	step, _ := strconv.Atoi(r.URL.Query().Get("step"))
	lang := c.study.Lang
	next := func(n int) string { return c.base + "/preview?step=" + strconv.Itoa(n) }
	if step <= 0 {
		h.render(w, r, http.StatusOK, templates.CrowdLanding(templates.CrowdLandingView{
			Lang: lang, Base: c.base, Title: c.s.Title, Intro: c.s.Intro, Consent: c.s.Consent, Preview: true, Action: next(1),
		}))
		return
	}
	training, err := h.DB.CrowdTraining(r.Context(), c.study.ID)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	v := templates.CrowdItemView{Lang: lang, Preview: true, Action: c.base + "/preview"}
	if step <= len(training) {
		sc := training[step-1]
		v.Training, v.Position, v.Total, v.Item = true, step, len(training), sc.Item
		v.FollowUp = sc.Item.FollowUp(sc.Condition)
	} else {
		prog, err := h.DB.CrowdProgress(r.Context(), c.study.ID, c.s)
		if err != nil {
			h.Error(w, r, err)
			return
		}
		pos := step - len(training)
		if len(prog) == 0 || pos > prog[0].Screens {
			h.crowdMessage(w, r, c, http.StatusOK, "preview_done", " ")
			return
		}
		sc, err := h.DB.CrowdScreen(r.Context(), prog[0].BatchID, pos)
		if err != nil {
			h.Error(w, r, err)
			return
		}
		v.Position, v.Total, v.Done, v.Item = pos, prog[0].Screens, pos-1, sc.Item
		v.FollowUp = sc.Item.FollowUp(sc.Condition)
	}
	// The form is a GET to this page carrying the next step.
	v.NextStep = step + 1
	h.render(w, r, http.StatusOK, templates.CrowdItem(v))
}

// CrowdQuestionnaireAnswer handles POST /s/{study}/questionnaire: the
// optional post-study questionnaire of a participant who completed, stored
// once; then the completion page.
func (h *Handler) CrowdQuestionnaireAnswer(w http.ResponseWriter, r *http.Request) {
	c, ok := h.crowd(w, r)
	if !ok {
		return
	}
	if err := parseForm(w, r); err != nil {
		h.Error(w, r, err)
		return
	}
	q := domain.Questionnaire{
		NativeLanguages: r.PostFormValue("native_languages"), AgeRange: r.PostFormValue("age_range"),
		Gender: r.PostFormValue("gender"), Comments: r.PostFormValue("comments"),
	}
	if err := h.DB.SaveQuestionnaire(r.Context(), c.study.ID, crowdToken(r, c.study.ID), c.s.Questionnaire, q); err != nil {
		if domain.ErrorCode(err) != domain.EINVALID {
			h.Error(w, r, err)
			return
		}
		h.render(w, r, http.StatusUnprocessableEntity, templates.CrowdQuestionnaire(templates.CrowdQuestionnaireView{
			Lang: c.study.Lang, Action: c.base + "/questionnaire", Ask: c.s.Questionnaire, Answers: q, Error: domain.ErrorMessage(err),
		}))
		return
	}
	redirect(w, r, c.base+"/screen")
}
