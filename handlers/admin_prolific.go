package handlers

import (
	"fmt"
	"net/http"
	"pragmalab/domain"
	"pragmalab/recruit"
	"strconv"
	"strings"

	"pragmalab/prolific"
	"pragmalab/templates"
)

// The Prolific page of a crowd study (docs/prolific.md): every button that
// approves, rejects or pays shows what it will send and asks to confirm;
// the use cases record each call before it is sent.

// prolificStudy loads the crowd {study} and its Prolific use cases.
func (h *Handler) prolificStudy(w http.ResponseWriter, r *http.Request) (*domain.Study, *recruit.Service, bool) {
	// A judgement study runs on Prolific as the crowd study does
	// (docs/studies.md#judgement-study).
	s, err := h.study(r)
	if err == nil && !domain.IsCrowdKind(s.Kind) {
		err = domain.Errorf(domain.ENOTFOUND, "not a crowd or judgement study")
	}
	if err == nil {
		err = parseForm(w, r)
	}
	if err != nil {
		h.Error(w, r, err)
		return nil, nil, false
	}
	return s, h.Recruit, true
}

// ProlificPage handles GET /admin/studies/{study}/prolific.
func (h *Handler) ProlificPage(w http.ResponseWriter, r *http.Request) {
	s, p, ok := h.prolificStudy(w, r)
	if !ok {
		return
	}
	h.renderProlific(w, r, s, p, http.StatusOK, "")
}

func (h *Handler) renderProlific(w http.ResponseWriter, r *http.Request, s *domain.Study, p *recruit.Service, status int, errMsg string) {
	ctx := r.Context()
	conn := p.Connection()
	v := templates.ProlificView{Nav: h.nav(w, r, s), Study: s, TokenSet: conn.Connected, EntryURL: fmt.Sprintf("%s/s/%d", baseURL(r), s.ID),
		TokenEnv: prolific.TokenEnv}
	v.Nav.Error = errMsg
	v.APIBase, v.APIError = conn.APIBase, conn.Problem
	st, err := p.Status(ctx, s.ID)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	v.Places, v.Link, v.Calls = st.Places, st.Link, st.Calls
	sc, err := p.Screening(ctx, s.ID)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	v.Screening = prolificScreening(sc)
	if v.Demographics, err = h.prolificDemographicsView(r, s.ID); err != nil {
		h.Error(w, r, err)
		return
	}
	if st.Review != nil {
		v.Review = &templates.ProlificReview{Rows: prolificRows(st.Review.Rows), NeverReached: prolificRows(st.Review.NeverReached),
			Disagreements: prolificRows(st.Review.Disagreements()), Approvable: len(st.Review.Approvable())}
		life, err := p.Life(ctx, s.ID)
		if err != nil {
			h.Error(w, r, err)
			return
		}
		v.Life = prolificLifeView(life, st.Review)
	}
	h.render(w, r, status, templates.Prolific(v))
}

// prolificDone shows a domain error on the Prolific page, or flashes msg
// and goes back to it.
func (h *Handler) prolificDone(w http.ResponseWriter, r *http.Request, s *domain.Study, p *recruit.Service, err error, msg string) {
	if err != nil {
		if c := domain.ErrorCode(err); c == domain.EINVALID || c == domain.ENOTFOUND || c == domain.ECONFLICT {
			status := http.StatusBadRequest
			if c == domain.ECONFLICT {
				status = http.StatusConflict
			}
			h.renderProlific(w, r, s, p, status, domain.ErrorMessage(err))
			return
		}
		h.Error(w, r, err)
		return
	}
	auditf(r, "%s", msg)
	h.flash(w, r, msg)
	redirect(w, r, templates.StudyURL(s.ID, "/prolific"))
}

// prolificForm opens a Prolific POST: the study, the use cases and the
// form; with confirm, the form must carry confirm=yes.
func (h *Handler) prolificForm(w http.ResponseWriter, r *http.Request, confirm bool) (*domain.Study, *recruit.Service, bool) {
	s, p, ok := h.prolificStudy(w, r)
	if !ok {
		return nil, nil, false
	}
	if err := parseForm(w, r); err != nil {
		h.Error(w, r, err)
		return nil, nil, false
	}
	if confirm && r.PostFormValue("confirm") != "yes" {
		h.renderProlific(w, r, s, p, http.StatusBadRequest, "Nothing was sent: tick the confirmation box first.")
		return nil, nil, false
	}
	return s, p, true
}

// LinkProlific handles POST /admin/studies/{study}/prolific/link.
func (h *Handler) LinkProlific(w http.ResponseWriter, r *http.Request) {
	s, p, ok := h.prolificForm(w, r, false)
	if !ok {
		return
	}
	id := strings.TrimSpace(r.PostFormValue("prolific_study_id"))
	h.prolificDone(w, r, s, p, p.Link(r.Context(), s.ID, id), "Linked to Prolific study "+strings.ToLower(id)+".")
}

// CheckProlific handles POST /admin/studies/{study}/prolific/check.
func (h *Handler) CheckProlific(w http.ResponseWriter, r *http.Request) {
	s, p, ok := h.prolificForm(w, r, false)
	if !ok {
		return
	}
	st, err := p.Check(r.Context(), s.ID)
	msg := ""
	if err == nil {
		msg = "Connected: Prolific study “" + st.Name + "” (" + st.Status + ")."
	}
	h.prolificDone(w, r, s, p, err, msg)
}

// SyncProlific handles POST /admin/studies/{study}/prolific/sync.
func (h *Handler) SyncProlific(w http.ResponseWriter, r *http.Request) {
	s, p, ok := h.prolificForm(w, r, false)
	if !ok {
		return
	}
	res, err := p.Sync(r.Context(), s.ID)
	msg := ""
	if err == nil {
		msg = "Synced " + itoa(res.Submissions) + " submissions; " + itoa(len(res.Freed)) + " slots freed (returned or timed out)."
	}
	h.prolificDone(w, r, s, p, err, msg)
}

// ProlificApprovePage handles GET /admin/studies/{study}/prolific/approve:
// who an approval would pay.
func (h *Handler) ProlificApprovePage(w http.ResponseWriter, r *http.Request) {
	s, p, ok := h.prolificStudy(w, r)
	if !ok {
		return
	}
	rev, err := p.Review(r.Context(), s.ID)
	if err != nil {
		h.prolificDone(w, r, s, p, err, "")
		return
	}
	h.render(w, r, http.StatusOK, templates.ProlificApprove(templates.ProlificApproveView{Nav: h.nav(w, r, s), Study: s, Rows: prolificRows(rev.Approvable())}))
}

// ApproveProlific handles POST /admin/studies/{study}/prolific/approve:
// the confirmed approval of the listed submissions.
func (h *Handler) ApproveProlific(w http.ResponseWriter, r *http.Request) {
	s, p, ok := h.prolificForm(w, r, true)
	if !ok {
		return
	}
	ids := r.PostForm["submission"]
	if len(ids) == 0 {
		h.prolificDone(w, r, s, p, domain.Errorf(domain.EINVALID, "no submission was chosen"), "")
		return
	}
	res, err := p.Approve(r.Context(), s.ID, actor(r), ids)
	msg := "Approved " + itoa(len(res.Approved)) + " submissions on Prolific."
	if res.ScreenedOut.Due > 0 {
		msg += " " + screenOutMessage(res.ScreenedOut)
	}
	h.prolificDone(w, r, s, p, err, msg)
}

// ProlificRejectPage handles GET /admin/studies/{study}/prolific/reject?pid=:
// the rejection with its message from the template, to edit and confirm.
func (h *Handler) ProlificRejectPage(w http.ResponseWriter, r *http.Request) {
	s, p, ok := h.prolificStudy(w, r)
	if !ok {
		return
	}
	rev, err := p.Review(r.Context(), s.ID)
	if err != nil {
		h.prolificDone(w, r, s, p, err, "")
		return
	}
	row := rev.Row(r.URL.Query().Get("pid"))
	if row == nil {
		h.NotFound(w, r)
		return
	}
	if row.FlagsOnly { // docs/studies.md#integrity-flags: no rejection proposed on flags alone
		h.Error(w, r, domain.Errorf(domain.ECONFLICT, "participant %s passed the attention checks and is excluded with integrity flags (%s): "+
			"flags alone are no reason to reject on Prolific (exclude, do not reject); no rejection is proposed", row.PID, strings.Join(row.Flags, "; ")))
		return
	}
	h.render(w, r, http.StatusOK, templates.ProlificReject(templates.ProlificRejectView{Nav: h.nav(w, r, s), Study: s, Row: prolificRow(*row),
		Category: "FAILED_CHECK", Message: recruit.RejectionMessage(recruit.DefaultRejectionTemplate, *row),
		Categories: prolific.RejectionCategories, MinMessage: prolific.MinRejectMessage}))
}

// RejectProlific handles POST /admin/studies/{study}/prolific/reject.
func (h *Handler) RejectProlific(w http.ResponseWriter, r *http.Request) {
	s, p, ok := h.prolificStudy(w, r)
	if !ok {
		return
	}
	if err := parseForm(w, r); err != nil {
		h.Error(w, r, err)
		return
	}
	pid, cat, msg := r.PostFormValue("pid"), r.PostFormValue("category"), strings.TrimSpace(r.PostFormValue("message"))
	var err error
	if cerr := prolific.CheckRejection(cat, msg); cerr != nil {
		err = domain.Errorf(domain.EINVALID, "%v", cerr)
	} else if r.PostFormValue("confirm") != "yes" {
		err = domain.Errorf(domain.EINVALID, "Nothing was sent: tick the confirmation box first.")
	}
	if err == nil {
		err = p.Reject(r.Context(), s.ID, actor(r), pid, cat, msg)
	}
	if err != nil && domain.ErrorCode(err) != domain.EINTERNAL {
		rev, rerr := p.Review(r.Context(), s.ID)
		if rerr == nil && rev.Row(pid) != nil {
			h.render(w, r, http.StatusBadRequest, templates.ProlificReject(templates.ProlificRejectView{Nav: h.nav(w, r, s), Study: s,
				Row: prolificRow(*rev.Row(pid)), Category: cat, Message: msg, Error: domain.ErrorMessage(err),
				Categories: prolific.RejectionCategories, MinMessage: prolific.MinRejectMessage}))
			return
		}
	}
	h.prolificDone(w, r, s, p, err, "Rejected "+pid+" on Prolific.")
}

// PlanProlificBonus handles POST /admin/studies/{study}/prolific/bonus/plan:
// the bonuses and their total, before anything is sent.
func (h *Handler) PlanProlificBonus(w http.ResponseWriter, r *http.Request) {
	s, p, ok := h.prolificForm(w, r, false)
	if !ok {
		return
	}
	ctx := r.Context()
	var lines []recruit.BonusLine
	var err error
	if r.PostFormValue("source") == "csv" {
		lines, err = recruit.ParseBonusCSV(strings.NewReader(r.PostFormValue("csv")))
	} else {
		lines, err = p.BonusRule(ctx, s.ID, r.PostFormValue("amount"))
	}
	var plan *recruit.BonusPlan
	if err == nil {
		plan, err = p.PlanBonuses(ctx, s.ID, lines)
	}
	if err != nil {
		h.prolificDone(w, r, s, p, err, "")
		return
	}
	h.render(w, r, http.StatusOK, templates.ProlificBonus(templates.ProlificBonusView{Nav: h.nav(w, r, s), Study: s, Plan: bonusPlanView(plan), CSV: bonusCSV(plan)}))
}

// prolificRow lays a participant's review row out for the pages.
func prolificRow(r recruit.ReviewRow) templates.ProlificRow {
	return templates.ProlificRow{PID: r.PID, Here: r.Here, SubmissionID: r.SubmissionID, ProlificStatus: r.ProlificStatus,
		Excluded: r.Excluded, ChecksAnswered: r.ChecksAnswered, ChecksFailed: r.ChecksFailed, FailedChecks: r.FailedChecks,
		BonusCents: r.BonusCents, AwaitingReview: r.ProlificStatus == prolific.StatusAwaitingReview, ScreenOut: r.ScreenOut,
		ExcludedReasons: r.ExcludedReasons, QualityOnly: r.QualityOnly, Flags: r.Flags, FlagsOnly: r.FlagsOnly}
}

func prolificRows(rs []recruit.ReviewRow) []templates.ProlificRow {
	var out []templates.ProlificRow
	for _, r := range rs {
		out = append(out, prolificRow(r))
	}
	return out
}

// bonusPlanView lays a bonus plan out for the confirmation page.
func bonusPlanView(p *recruit.BonusPlan) *templates.ProlificBonusPlan {
	v := &templates.ProlificBonusPlan{ID: p.ID, TotalCents: p.TotalCents, Repeats: p.Repeats}
	for _, l := range p.Lines {
		v.Lines = append(v.Lines, templates.ProlificBonusLine{PID: l.PID, AmountCents: l.AmountCents, Before: l.Before})
	}
	return v
}

// bonusCSV writes a plan's lines as the bonus file format.
func bonusCSV(p *recruit.BonusPlan) string {
	var b strings.Builder
	for _, l := range p.Lines {
		b.WriteString(l.PID + "," + recruit.FormatCents(l.AmountCents) + "\n")
	}
	return b.String()
}

// SetUpProlificBonus handles POST /admin/studies/{study}/prolific/bonus/setup:
// the first confirmation. It sets the bonuses up (paying nothing) and shows
// Prolific's total, fees included, for the second.
func (h *Handler) SetUpProlificBonus(w http.ResponseWriter, r *http.Request) {
	s, p, ok := h.prolificForm(w, r, true)
	if !ok {
		return
	}
	ctx := r.Context()
	lines, err := recruit.ParseBonusCSV(strings.NewReader(r.PostFormValue("csv")))
	var plan *recruit.BonusPlan
	if err == nil {
		plan, err = p.PlanBonuses(ctx, s.ID, lines)
	}
	if err != nil {
		h.prolificDone(w, r, s, p, err, "")
		return
	}
	if id := r.PostFormValue("plan"); len(id) == 24 {
		plan.ID = id // the same confirmation sent twice sets up once
	}
	setup, err := p.SetUpBonuses(ctx, s.ID, actor(r), plan)
	if err != nil {
		h.prolificDone(w, r, s, p, err, "")
		return
	}
	v := templates.ProlificBonusView{Nav: h.nav(w, r, s), Study: s, Plan: bonusPlanView(plan)}
	if setup != nil {
		v.Setup = &templates.ProlificBonusSetup{ID: setup.ID, Amount: setup.Amount, Fees: setup.Fees, VAT: setup.VAT, TotalAmount: setup.TotalAmount}
	}
	h.render(w, r, http.StatusOK, templates.ProlificBonus(v))
}

// PayProlificBonus handles POST /admin/studies/{study}/prolific/bonus/pay:
// the second confirmation.
func (h *Handler) PayProlificBonus(w http.ResponseWriter, r *http.Request) {
	s, p, ok := h.prolificForm(w, r, true)
	if !ok {
		return
	}
	setup := r.PostFormValue("setup")
	h.prolificDone(w, r, s, p, p.PayBonuses(r.Context(), s.ID, actor(r), setup), "Paid the bonuses of "+setup+" on Prolific.")
}

// ProlificPaymentNotSent handles POST
// /admin/studies/{study}/prolific/bonus/not-sent: the researcher's word,
// after checking on Prolific, that a payment whose answer was lost was not
// made.
func (h *Handler) ProlificPaymentNotSent(w http.ResponseWriter, r *http.Request) {
	s, p, ok := h.prolificForm(w, r, true)
	if !ok {
		return
	}
	setup := r.PostFormValue("setup")
	h.prolificDone(w, r, s, p, p.MarkPaymentNotSent(r.Context(), s.ID, actor(r), setup), "Payment "+setup+" marked as not made; it may be paid again.")
}

// CreateProlificDraft handles POST /admin/studies/{study}/prolific/create.
func (h *Handler) CreateProlificDraft(w http.ResponseWriter, r *http.Request) {
	s, p, ok := h.prolificForm(w, r, true)
	if !ok {
		return
	}
	reward, err1 := formInt(r, "reward_cents", 0)
	minutes, err2 := formInt(r, "minutes", 0)
	if err1 != nil || err2 != nil {
		h.prolificDone(w, r, s, p, domain.Errorf(domain.EINVALID, "the reward and the time must be whole numbers"), "")
		return
	}
	st, err := p.CreateDraft(r.Context(), s.ID, actor(r), recruit.DraftInput{
		Name: r.PostFormValue("name"), Description: r.PostFormValue("description"),
		StudyURL: fmt.Sprintf("%s/s/%d", baseURL(r), s.ID), RewardCents: reward, Minutes: minutes})
	msg := ""
	if err == nil {
		msg = "Created draft study " + st.ID + " on Prolific and linked it: publish it there."
	}
	h.prolificDone(w, r, s, p, err, msg)
}

// AddProlificGroup handles POST /admin/studies/{study}/prolific/group.
func (h *Handler) AddProlificGroup(w http.ResponseWriter, r *http.Request) {
	s, p, ok := h.prolificForm(w, r, true)
	if !ok {
		return
	}
	n, err := p.AddToGroup(r.Context(), s.ID, actor(r), strings.TrimSpace(r.PostFormValue("group")))
	h.prolificDone(w, r, s, p, err, "Added "+itoa(n)+" participants to the participant group.")
}

func itoa(n int) string { return strconv.Itoa(n) }
