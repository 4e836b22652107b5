package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"pragmalab/domain"
	"pragmalab/studies"
	"pragmalab/templates"
)

// The crowd participant's pages (docs/studies.md#crowd-entry). The rules
// are studies.CrowdSession's; each handler here parses the request, calls
// one of its methods and renders what it returns.

// crowdCtx is what every crowd participant page needs.
type crowdCtx struct {
	studies.CrowdSession
	base  string       // /s/{study}
	traps domain.Traps // the participant's, drawn from their cookie
}

// crowdCookie names the cookie that binds a crowd session to a browser.
func crowdCookie(studyID int64) string { return "crowd_" + strconv.FormatInt(studyID, 10) }

// crowdBase is the address of a crowd study's participant pages.
func crowdBase(studyID int64) string { return "/s/" + strconv.FormatInt(studyID, 10) }

// ProlificCompleteURL is where a participant who finished (or was screened
// out) goes back to Prolific with a code.
func ProlificCompleteURL(code string) string {
	return "https://app.prolific.com/submissions/complete?cc=" + url.QueryEscape(code)
}

// crowd opens the browser's visit to the crowd study of the {study} URL
// parameter; an archived study says it is closed.
func (h *Handler) crowd(w http.ResponseWriter, r *http.Request) (*crowdCtx, bool) {
	id, err := idParam(r, "study")
	var c crowdCtx
	if err == nil {
		c.CrowdSession, err = h.Service.CrowdSession(r.Context(), id, crowdToken(r, id))
	}
	if err != nil {
		h.Error(w, r, err)
		return nil, false
	}
	if c.Study.Archived() {
		h.studyClosed(w, r, c.Study.Lang)
		return nil, false
	}
	w.Header().Set("Cache-Control", "no-store")
	c.base = crowdBase(id)
	c.traps = h.traps(crowdToken(r, id))
	c.From(addrKey(clientAddr(r, h.TrustedProxyHeader)))
	return &c, true
}

// crowdToken is the session cookie's value, or "".
func crowdToken(r *http.Request, studyID int64) string {
	c, err := r.Cookie(crowdCookie(studyID))
	if err != nil {
		return ""
	}
	return c.Value
}

func (h *Handler) setCrowdCookie(w http.ResponseWriter, studyID int64, token string) {
	http.SetCookie(w, &http.Cookie{
		Name: crowdCookie(studyID), Value: token, Path: crowdBase(studyID),
		MaxAge: 30 * 24 * 3600, HttpOnly: true, Secure: h.SecureCookies, SameSite: http.SameSiteLaxMode,
	})
}

// crowdMessage renders one of the pages that end or refuse a visit.
func (h *Handler) crowdMessage(w http.ResponseWriter, r *http.Request, c *crowdCtx, status int, kind, body string) {
	lang := c.Study.Lang
	v := templates.CrowdMessageView{Lang: lang, Kind: kind, Body: body}
	switch kind {
	case "full", "limit", "moved", "foreign", "screened", "declined", "closed", "missing", "incomplete", "busy", "rating":
		v.Title = templates.CT(lang, kind+"_title")
	case "preview_done":
		v.Title = templates.CT(lang, "preview_done")
	}
	if body == "" {
		v.Body = templates.CT(lang, kind+"_body")
	}
	if kind == "screened" && c.Settings.ScreenOutCode != "" {
		v.Code, v.URL = c.Settings.ScreenOutCode, ProlificCompleteURL(c.Settings.ScreenOutCode)
	}
	if kind == "limit" {
		v.Body = fmt.Sprintf(templates.CT(lang, "limit_body"), templates.CN(lang, "minutes", c.Settings.HoldMinutes))
	}
	if kind == "declined" {
		if code := c.NoConsentCode(); code != "" {
			v.Code, v.URL = code, ProlificCompleteURL(code)
		} else {
			v.Body = templates.CT(lang, "declined_nocode")
		}
	}
	h.render(w, r, status, templates.CrowdMessage(v))
}

// crowdFailed shows the page of a refusal or an error of the crowd
// session: the study's state, a rating off the scale, the refusals of an
// entry or a consent, else the error page.
func (h *Handler) crowdFailed(w http.ResponseWriter, r *http.Request, c *crowdCtx, err error) {
	switch {
	case errors.Is(err, studies.ErrCrowdUnavailable):
		h.crowdUnavailable(w, r, c)
	case errors.Is(err, domain.ErrAddressLimit):
		h.crowdMessage(w, r, c, http.StatusTooManyRequests, "limit", "")
	case errors.Is(err, domain.ErrRatingRange):
		h.crowdMessage(w, r, c, http.StatusBadRequest, "rating", templates.CrowdRatingRange(c.Study.Lang, c.Settings.ScalePoints))
	case errors.Is(err, domain.ErrStudyFull):
		h.crowdMessage(w, r, c, http.StatusConflict, "full", "")
	case errors.Is(err, domain.ErrNotYourSession):
		h.crowdMessage(w, r, c, http.StatusForbidden, "foreign", "")
	case errors.Is(err, domain.ErrNoBatches):
		h.crowdMessage(w, r, c, http.StatusServiceUnavailable, "closed", "")
	case domain.ErrorCode(err) == domain.ENOTFOUND:
		h.crowdMessage(w, r, c, http.StatusForbidden, "missing", "")
	case domain.ErrorCode(err) == domain.EINVALID:
		// The refusal's own words are English: they follow the page's
		// only on an English study's, never mid-page on a German or
		// Italian one (docs/studies.md#languages).
		body := templates.CT(c.Study.Lang, "missing_body")
		if c.Study.Lang == "" || c.Study.Lang == "en" {
			body += " (" + domain.ErrorMessage(err) + ")"
		}
		h.crowdMessage(w, r, c, http.StatusBadRequest, "missing", body)
	default:
		h.Error(w, r, err)
	}
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
	pid, problem := prolificPID(r.URL.RawQuery)
	if problem == "" && !h.signedEntryOK(w, r, c, pid, q) {
		return
	}
	e, err := c.Enter(r.Context(), studies.CrowdArrival{PID: pid, Problem: problem, StudyID: q.Get("STUDY_ID"), SessionID: q.Get("SESSION_ID")},
		func() time.Duration { return h.entries.reserve(h.Now(), addrKey(clientAddr(r, h.TrustedProxyHeader))) })
	if err != nil {
		h.crowdFailed(w, r, c, err)
		return
	}
	switch e.Outcome {
	case studies.EntryUnavailable:
		h.crowdUnavailable(w, r, c)
	case studies.EntryIncomplete:
		// Never the preview, which stores nothing (docs/studies.md#crowd-entry).
		h.crowdMessage(w, r, c, http.StatusBadRequest, "incomplete", templates.CT(c.Study.Lang, "incomplete_"+problem))
	case studies.EntryBusy:
		w.Header().Set("Retry-After", strconv.Itoa(int(e.Wait.Seconds())+1))
		h.crowdMessage(w, r, c, http.StatusTooManyRequests, "busy", "")
	default:
		if e.Token != "" {
			h.setCrowdCookie(w, c.Study.ID, e.Token)
		}
		redirect(w, r, c.base+"/screen")
	}
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

// CrowdScreen handles GET /s/{study}/screen: whatever comes next for the
// participant — consent, a training item, the next unanswered item, or the
// end. Reloading it resumes; the state lives in the database.
func (h *Handler) CrowdScreen(w http.ResponseWriter, r *http.Request) {
	c, ok := h.crowd(w, r)
	if !ok {
		return
	}
	next, err := c.Next(r.Context(), r.URL.Query().Get("begin") != "")
	if err != nil {
		h.Error(w, r, err)
		return
	}
	lang := c.Study.Lang
	if next.Pilot {
		templates.MarkPilot(r.Context())
	}
	switch next.Page {
	case studies.PageStart:
		h.crowdMessage(w, r, c, http.StatusForbidden, "missing", "")
	case studies.PageUnavailable:
		h.crowdUnavailable(w, r, c)
	case studies.PageCannotStart:
		h.crowdFailed(w, r, c, next.Refusal)
	case studies.PageDeclined:
		h.crowdMessage(w, r, c, http.StatusOK, "declined", "")
	case studies.PageLanding:
		v, err := h.crowdLanding(r, c)
		if err != nil {
			h.Error(w, r, err)
			return
		}
		h.render(w, r, http.StatusOK, templates.CrowdLanding(v))
	case studies.PageQuestionnaire:
		h.render(w, r, http.StatusOK, templates.CrowdQuestionnaire(templates.CrowdQuestionnaireView{
			Lang: lang, Action: c.base + "/questionnaire", Ask: c.Settings.Questionnaire, Decoy: c.traps.Decoy,
		}))
	case studies.PageDone:
		// The completion code and a button back to Prolific; nothing leaves
		// by itself, so the participant can read and copy the code
		// (docs/studies.md#crowd-completion).
		v := templates.CrowdDoneView{Lang: lang, Code: c.Settings.CompletionCode, Total: next.Total}
		if v.Code != "" {
			v.URL = ProlificCompleteURL(v.Code)
		}
		h.render(w, r, http.StatusOK, templates.CrowdDone(v))
	case studies.PageMovedOn:
		h.crowdMessage(w, r, c, http.StatusOK, "moved", "")
	case studies.PageScreenedOut:
		h.crowdMessage(w, r, c, http.StatusOK, "screened", "")
	case studies.PageTraining:
		v := crowdItemView(next.Screen, c.Settings)
		v.Lang, v.Action, v.Training, v.Condition = lang, c.base+"/training", true, next.Screen.Condition
		v.Total, v.Attempt, v.Retry = next.Total, next.Attempt, next.Attempt > 0
		v.Traps = c.traps
		h.render(w, r, http.StatusOK, templates.CrowdItem(v))
	case studies.PagePracticeEnd:
		h.render(w, r, http.StatusOK, templates.CrowdPracticeEnd(templates.CrowdPracticeEndView{
			Lang: lang, Begin: c.base + "/screen?begin=1", Total: next.Total,
		}))
	case studies.PageItem:
		v := crowdItemView(next.Screen, c.Settings)
		v.Lang, v.Action, v.Total, v.Done = lang, c.base+"/answer", next.Total, next.Done
		v.Instruct, v.Traps, v.Justify = next.Instruct, c.traps, next.Justify
		v.Nonce = h.screenNonce(r, c, next.Screen.Position)
		h.render(w, r, http.StatusOK, templates.CrowdItem(v))
	default:
		h.Error(w, r, fmt.Errorf("crowd study %d: no page for %d", c.Study.ID, next.Page))
	}
}

// crowdItemView is the rating page of a screen, its item's texts filled in:
// a judgement study's are the condition's context and sentence, and a
// practice item's expected range (docs/studies.md#judgement-practice).
func crowdItemView(sc domain.CrowdScreen, set domain.CrowdSettings) templates.CrowdItemView {
	if set.Judgement() {
		v := sc.Item.Variants[sc.Condition]
		expect, _ := set.PracticeRangeOf(sc.Item.Training) // one off the scale, which the go-live checklist refuses, reads as any, as the store judges it
		return templates.CrowdItemView{Position: sc.Position, Context: v.Context, Utterance: v.Sentence,
			Scale: templates.ScaleOf(set), Judgement: true, Expect: expect}
	}
	return templates.CrowdItemView{Position: sc.Position, Context: sc.Item.Context, Utterance: sc.Item.Utterance,
		FollowUp: sc.FollowUp(), Belief: sc.Item.Implicature, Scale: templates.ScaleOf(set)}
}

// CrowdConsent handles POST /s/{study}/consent.
func (h *Handler) CrowdConsent(w http.ResponseWriter, r *http.Request) {
	c, ok := h.crowd(w, r)
	if !ok {
		return
	}
	token, err := c.Consent(r.Context())
	if err != nil {
		h.crowdFailed(w, r, c, err)
		return
	}
	if token != "" {
		h.setCrowdCookie(w, c.Study.ID, token)
	}
	redirect(w, r, c.base+"/screen")
}

// formInts reads small integer form fields; a missing or malformed one is 0.
func formInts(r *http.Request, names ...string) [3]int {
	var out [3]int
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
	h.crowdAnswer(w, r, true)
}

// CrowdAnswer handles POST /s/{study}/answer: the rating is committed durably
// before the redirect to the next screen; sending it twice
// changes nothing.
func (h *Handler) CrowdAnswer(w http.ResponseWriter, r *http.Request) {
	h.crowdAnswer(w, r, false)
}

// crowdAnswer is both answers' handler: a rating off the scale is refused
// with a page that says so; anything else goes on to the next screen.
func (h *Handler) crowdAnswer(w http.ResponseWriter, r *http.Request, training bool) {
	c, ok := h.crowd(w, r)
	if !ok {
		return
	}
	if err := parseForm(w, r); err != nil {
		h.Error(w, r, err)
		return
	}
	var err error
	if training {
		v := formInts(r, "position", "attempt", c.traps.Rating)
		err = c.AnswerTraining(r.Context(), v[0], v[1], v[2], rtParam(r))
	} else {
		v := formInts(r, "position", c.traps.Rating)
		tr := h.traceParam(r, c.traps.Decoy.Name)
		tr.Script = h.scriptVerdict(r, c, v[0])
		tr.Justification = justificationParam(r, c.traps.Justify)
		err = c.AnswerTraced(r.Context(), v[0], v[1], rtParam(r), tr)
	}
	if err != nil {
		h.crowdFailed(w, r, c, err)
		return
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
	step, _ := strconv.Atoi(r.URL.Query().Get("step"))
	p, err := c.Preview(r.Context(), step)
	if errors.Is(err, studies.ErrNoPreview) {
		h.crowdMessage(w, r, c, http.StatusNotFound, "missing", "")
		return
	}
	if err != nil {
		h.Error(w, r, err)
		return
	}
	lang := c.Study.Lang
	switch {
	case p.Landing:
		v, err := h.crowdLanding(r, c)
		if err != nil {
			h.Error(w, r, err)
			return
		}
		v.Preview, v.Action = true, c.base+"/preview?step=1"
		h.render(w, r, http.StatusOK, templates.CrowdLanding(v))
	case p.End:
		h.crowdMessage(w, r, c, http.StatusOK, "preview_done", " ")
	default:
		// The form is a GET to this page carrying the next step.
		v := crowdItemView(p.Screen, c.Settings)
		v.Lang, v.Preview, v.Action, v.NextStep = lang, true, c.base+"/preview", step+1
		v.Training, v.Total, v.Done = p.Training, p.Total, p.Done
		h.render(w, r, http.StatusOK, templates.CrowdItem(v))
	}
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
		Integrity: integrityParam(r, c.traps.Decoy.Name),
	}
	if err := c.SaveQuestionnaire(r.Context(), q); err != nil {
		if domain.ErrorCode(err) != domain.EINVALID {
			h.Error(w, r, err)
			return
		}
		h.render(w, r, http.StatusUnprocessableEntity, templates.CrowdQuestionnaire(templates.CrowdQuestionnaireView{
			Lang: c.Study.Lang, Action: c.base + "/questionnaire", Ask: c.Settings.Questionnaire, Answers: q, Error: domain.ErrorMessage(err),
			Decoy: c.traps.Decoy,
		}))
		return
	}
	redirect(w, r, c.base+"/screen")
}

// screenNonce is the nonce of the rating screen at position of the
// browser's session, "" without a key (docs/studies.md#server-evidence).
func (h *Handler) screenNonce(r *http.Request, c *crowdCtx, position int) string {
	if len(h.ScreenKey) == 0 {
		return ""
	}
	return domain.ScreenNonce(h.ScreenKey, c.Study.ID, crowdToken(r, c.Study.ID), position)
}

// scriptVerdict is whether the answer to the screen at position carried
// the token the page's script derives from that screen's nonce; invalid
// (not checked) without a key.
func (h *Handler) scriptVerdict(r *http.Request, c *crowdCtx, position int) domain.Signal {
	if len(h.ScreenKey) == 0 {
		return domain.Signal{}
	}
	return domain.ScriptVerdict(h.ScreenKey, c.Study.ID, crowdToken(r, c.Study.ID), position, r.PostFormValue(domain.ScriptTokenField))
}
