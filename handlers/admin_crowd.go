package handlers

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"pragmalab/domain"
	"strconv"
	"strings"
	"unicode"

	"pragmalab/studies"
	"pragmalab/templates"
)

// crowdStudyPage renders the admin page of a crowd study with its stored
// settings and an error, if any.
func (h *Handler) crowdStudyPage(w http.ResponseWriter, r *http.Request, s *domain.Study, errMsg string) {
	set, err := studies.CrowdSettings(s)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	h.crowdAdmin(w, r, s, set, templates.TrainingText(set.Training), errMsg)
}

// crowdAdmin renders the crowd admin page with the given settings (the
// stored ones, or those just submitted) and an error, if any.
func (h *Handler) crowdAdmin(w http.ResponseWriter, r *http.Request, s *domain.Study, set domain.CrowdSettings, training, errMsg string) {
	h.crowdAdminOffering(w, r, s, set, training, errMsg, 0)
}

// crowdAdminOffering is crowdAdmin offering, beside the refusal of a
// frozen save, to start design version next with the form's settings
// (0: no offer; docs/studies.md#design-versions).
func (h *Handler) crowdAdminOffering(w http.ResponseWriter, r *http.Request, s *domain.Study, set domain.CrowdSettings, training, errMsg string, next int) {
	a, err := h.Service.CrowdAdmin(r.Context(), s, set)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	v := templates.CrowdStudyView{Nav: h.studyNav(w, r, s), Audit: h.auditLog(r.Context(), s.ID), Study: s, Settings: set, TrainingText: training,
		EntryURL: templates.CrowdStudyEntryURL(baseURL(r), s.ID), Items: a.Items, ProlificStatus: a.ProlificStatus,
		Progress: crowdBatchRows(a.Progress), Participants: crowdParticipantRows(a.Participants), PlanError: a.PlanError, LLMEcho: a.LLMEcho}
	if h.DataPackage != nil {
		v.PackageURL = templates.StudyURL(s.ID, "/export/package.zip")
	}
	v.Nav.Error = errMsg
	v.OfferVersion = next
	versions, err := h.Service.DesignVersions(r.Context(), s.ID)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	for _, dv := range versions {
		v.Versions = append(v.Versions, templates.DesignVersionRow{Version: dv.Version, CreatedAt: dv.CreatedAt, Batches: dv.Batches, Participants: dv.Participants})
	}
	for _, t := range a.Training {
		v.Training = append(v.Training, templates.CrowdTrainingRow{Key: t.Item.Key, Type: t.Item.Type, Condition: t.Condition})
	}
	if a.Plan != nil {
		// The design a build gives now, shown before building.
		v.Plan, v.PlanTraining = a.Plan.Design(), a.Plan.TrainingNote()
	}
	status := http.StatusOK
	if errMsg != "" {
		status = http.StatusBadRequest
	}
	h.render(w, r, status, templates.CrowdStudy(v))
}

// crowdAdminStudy loads the {study} parameter as a crowd study and parses
// the form of a post.
func (h *Handler) crowdAdminStudy(w http.ResponseWriter, r *http.Request) (*domain.Study, domain.CrowdSettings, bool) {
	var set domain.CrowdSettings
	s, err := h.study(r)
	if err == nil {
		set, err = studies.CrowdSettings(s)
	}
	if err == nil && r.Method == http.MethodPost {
		err = parseForm(w, r)
	}
	if err != nil {
		h.Error(w, r, err)
		return nil, set, false
	}
	return s, set, true
}

// judgementConditions reads a judgement study's conditions field: the
// researcher's names, separated by commas or spaces, in their order.
func judgementConditions(text string) []string {
	f := strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == ';' || unicode.IsSpace(r) })
	if len(f) == 0 {
		return nil
	}
	return f
}

// parseTraining reads the training field: one "key condition" per line.
func parseTraining(text string) ([]domain.CrowdTrainingSpec, error) {
	var out []domain.CrowdTrainingSpec
	for i, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		switch len(f) {
		case 0:
			continue
		case 2:
			out = append(out, domain.CrowdTrainingSpec{Key: f[0], Condition: strings.ToLower(f[1])})
		default:
			return nil, domain.Errorf(domain.EINVALID, "training line %d: write the item id, a space, then trigger or cancel", i+1)
		}
	}
	return out, nil
}

// SaveCrowdSettings handles POST /admin/studies/{study}/crowd/settings.
func (h *Handler) SaveCrowdSettings(w http.ResponseWriter, r *http.Request) {
	s, set, ok := h.crowdAdminStudy(w, r)
	if !ok {
		return
	}
	f := r.PostFormValue
	fail := func(msg string) { h.crowdAdmin(w, r, s, set, f("training"), msg) }
	for _, n := range []struct {
		field, label string
		dst          *int
	}{
		{"batch_size", "items per batch", &set.BatchSize},
		{"quota", "participants per batch", &set.Quota},
		{"timeout_minutes", "time-out", &set.TimeoutMinutes},
		{"check_high_min", "high check threshold", &set.CheckHighMin},
		{"check_low_max", "low check threshold", &set.CheckLowMax},
		{"max_failed_checks", "failed checks for exclusion", &set.MaxFailedChecks},
	} {
		v, err := strconv.Atoi(strings.TrimSpace(f(n.field)))
		if err != nil {
			fail(fmt.Sprintf("%s must be a whole number, got %q", n.label, f(n.field)))
			return
		}
		*n.dst = v
	}
	// The data-quality rules: empty is off (the fast threshold: its sourced
	// default, domain.DefaultFastMS).
	for _, n := range []struct {
		field, label string
		dst          *int
		empty        int
	}{
		{"fast_ms", "fast answer threshold", &set.FastMS, domain.DefaultFastMS},
		{"exclude_fast_percent", "share of fast answers", &set.ExcludeFastPercent, 0},
		{"exclude_median_rt_ms", "median response time", &set.ExcludeMedianRT, 0},
		{"exclude_identical_run", "identical ratings in a row", &set.ExcludeRun, 0},
		{"exclude_total_below_s", "total time", &set.ExcludeTotalSeconds, 0},
		{"exclude_hidden_s", "hidden time", &set.ExcludeHiddenSeconds, 0},
	} {
		v, err := strconv.Atoi(strings.TrimSpace(f(n.field)))
		switch {
		case strings.TrimSpace(f(n.field)) == "":
			v = n.empty
		case err != nil:
			fail(fmt.Sprintf("%s must be a whole number, got %q", n.label, f(n.field)))
			return
		}
		*n.dst = v
	}
	// No hoarding and the consent page's length (docs/studies.md#no-hoarding,
	// #consent): empty keeps the hold and the limit, and estimates the minutes.
	for _, n := range []struct {
		field, label string
		dst          *int
		empty        int
	}{
		{"hold_minutes", "hold before the first answer", &set.HoldMinutes, set.HoldMinutes},
		{"places_per_address", "places per address", &set.PlacesPerAddress, set.PlacesPerAddress},
		{"minutes", "estimated minutes", &set.Minutes, 0},
	} {
		v, err := strconv.Atoi(strings.TrimSpace(f(n.field)))
		switch {
		case strings.TrimSpace(f(n.field)) == "":
			v = n.empty
		case err != nil:
			fail(fmt.Sprintf("%s must be a whole number, got %q", n.label, f(n.field)))
			return
		}
		*n.dst = v
	}
	set.Researcher, set.Contact, set.EthicsRef = strings.TrimSpace(f("researcher")), strings.TrimSpace(f("contact")), strings.TrimSpace(f("ethics_ref"))
	set.NoConsentCode = f("no_consent_code")
	if set.Judgement() {
		// The researcher's own conditions, one field; the practice screen-out
		// (docs/studies.md#judgement-settings).
		set.Conditions = judgementConditions(f("conditions"))
		v := strings.TrimSpace(f("practice_screen_out"))
		n, err := strconv.Atoi(v)
		switch {
		case v == "":
			n = 0
		case err != nil:
			fail(fmt.Sprintf("practice screen-out must be a whole number, got %q", v))
			return
		}
		set.PracticeScreenOut = n
	} else {
		set.Conditions = append([]string{"trigger", "cancel"}, r.PostForm["conditions"]...)
	}
	set.CompletionCode, set.ScreenOutCode = f("completion_code"), f("screen_out_code")
	set.AllowPreview = f("allow_preview") == "yes"
	set.FinishWhenPaused = f("finish_when_paused") == "yes"
	set.MachineCheck = f("machine_check") == "yes"
	if j := strings.TrimSpace(f("justifications")); j != "" {
		n, err := strconv.Atoi(j)
		if err != nil {
			fail(fmt.Sprintf("justifications must be 0, 1 or 2, got %q", j))
			return
		}
		set.Justifications = n
	} else {
		set.Justifications = 0
	}
	set.AnyPID = f("any_pid") == "yes"
	set.SignedURL = f("signed_url") == "yes"
	set.Questionnaire = domain.QuestionnaireSettings{
		Languages: f("q_languages") == "yes", Age: f("q_age") == "yes", Gender: f("q_gender") == "yes", Comments: f("q_comments") == "yes",
	}
	set.Title, set.Intro, set.Consent = strings.TrimSpace(f("title")), strings.TrimSpace(f("intro")), strings.TrimSpace(f("consent"))
	if err := crowdScaleForm(r, &set); err != nil {
		fail(domain.ErrorMessage(err))
		return
	}
	training, err := parseTraining(f("training"))
	if set.Judgement() {
		training = nil // a judgement study marks its practice items in the items file
	}
	startVersion := f("design_version") == "start"
	var version int
	var build studies.CrowdBuild
	if err == nil {
		set.Training = training
		if startVersion {
			// The second button of a refused save: design version k+1
			// with these settings (docs/studies.md#design-versions).
			version, build, err = h.Service.StartDesignVersion(r.Context(), s.ID, f("lang"), set)
		} else {
			// The service validates the settings, then the language.
			err = h.Store.SaveCrowdStudy(r.Context(), s.ID, f("lang"), set)
		}
	}
	if err != nil {
		// A refused value, or a frozen setting of an opened study
		// (docs/studies.md#frozen-design): the form again, with why, and
		// the posted values; a frozen refusal, or a refused version,
		// offers the next design version of a crowd or judgement study.
		if c := domain.ErrorCode(err); c == domain.EINVALID || c == domain.ECONFLICT {
			if errors.Is(err, domain.DesignFrozen) || startVersion {
				k, verr := h.Service.CurrentDesignVersion(r.Context(), s.ID)
				if verr != nil {
					h.Error(w, r, verr)
					return
				}
				shown := *s // the language posted, which the version would take
				shown.Lang = f("lang")
				h.crowdAdminOffering(w, r, &shown, set, f("training"), domain.ErrorMessage(err), k+1)
				return
			}
			fail(domain.ErrorMessage(err))
			return
		}
		h.Error(w, r, err)
		return
	}
	if startVersion {
		auditf(r, "%s", studies.AuditDesignVersion(version, build))
		h.flash(w, r, fmt.Sprintf("Design version %d started: %s. Newcomers are given its batches; the ratings of earlier versions are kept with their version.", version, build.Design()))
		redirect(w, r, templates.StudyURL(s.ID, ""))
		return
	}
	h.flash(w, r, "Settings saved.")
	redirect(w, r, templates.StudyURL(s.ID, ""))
}

// BuildCrowdStudyBatches handles POST /admin/studies/{study}/crowd/batches.
func (h *Handler) BuildCrowdStudyBatches(w http.ResponseWriter, r *http.Request) {
	s, set, ok := h.crowdAdminStudy(w, r)
	if !ok {
		return
	}
	seed, err := strconv.ParseInt(strings.TrimSpace(r.PostFormValue("seed")), 10, 64)
	if err != nil {
		h.crowdAdmin(w, r, s, set, templates.TrainingText(set.Training), "The seed must be a whole number.")
		return
	}
	b, err := h.Service.BuildCrowdBatches(r.Context(), s.ID, set, seed)
	if err != nil {
		if c := domain.ErrorCode(err); c == domain.EINVALID || c == domain.ECONFLICT {
			s.Seed = seed
			h.crowdAdmin(w, r, s, set, templates.TrainingText(set.Training), "Cannot build batches: "+domain.ErrorMessage(err))
			return
		}
		h.Error(w, r, err)
		return
	}
	h.Log.Info("crowd batches built", "study", s.ID, "batches", b.Batches, "seed", seed)
	h.flash(w, r, b.String())
	redirect(w, r, templates.StudyURL(s.ID, ""))
}

// CrowdProgressPage handles GET /admin/studies/{study}/crowd/progress.
func (h *Handler) CrowdProgressPage(w http.ResponseWriter, r *http.Request) {
	s, set, ok := h.crowdAdminStudy(w, r)
	if !ok {
		return
	}
	ps, at, err := h.Service.CrowdProgress(r.Context(), s.ID, set)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	w.Header().Set("Refresh", "10")
	h.render(w, r, http.StatusOK, templates.CrowdProgress(templates.CrowdProgressView{
		Nav: h.nav(w, r, s), Study: s, Progress: crowdBatchRows(ps), Quota: set.Quota, At: at,
	}))
}

// SetCrowdExclusion handles POST
// /admin/studies/{study}/crowd/participants/{participant}/exclusion.
func (h *Handler) SetCrowdExclusion(w http.ResponseWriter, r *http.Request) {
	s, _, ok := h.crowdAdminStudy(w, r)
	if !ok {
		return
	}
	pid, err := idParam(r, "participant")
	reason := strings.TrimSpace(r.PostFormValue("reason"))
	if err == nil && len(reason) > maxExclusionReason {
		err = domain.Errorf(domain.EINVALID, "the reason for the exclusion decision is longer than %d characters", maxExclusionReason)
	}
	if err == nil {
		err = h.Store.SetCrowdExclusion(r.Context(), s.ID, pid, r.PostFormValue("override"))
	}
	if err != nil {
		h.Error(w, r, err)
		return
	}
	// The audit entry names the participant, the decision and the
	// researcher's reason (an integrity flag, say) from the form's fields.
	h.flash(w, r, "Exclusion decision saved.")
	redirect(w, r, templates.StudyURL(s.ID, ""))
}

// sendCSV writes a whole CSV built in memory, so that a failure gives an
// error page and never half a file.
func (h *Handler) sendCSV(w http.ResponseWriter, r *http.Request, name string, write func(*bytes.Buffer) error) {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		h.Error(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", name))
	if _, err := w.Write(buf.Bytes()); err == nil {
		if id, err := idParam(r, "study"); err == nil {
			h.exported(r, id)
		}
	}
}

// ExportCrowdRatings handles GET /admin/studies/{study}/export/ratings.csv:
// the ratings export (docs/formats.md#ratings-export); ?exclusions=apply
// leaves out the participants the researcher's decisions exclude, and
// ?with_texts=1 adds the item texts each rating was given on.
func (h *Handler) ExportCrowdRatings(w http.ResponseWriter, r *http.Request) {
	s, _, ok := h.crowdAdminStudy(w, r)
	if !ok {
		return
	}
	apply := r.URL.Query().Get("exclusions") == "apply"
	export, name := h.Store.ExportCrowdRatings, "ratings-study%d.csv"
	if r.URL.Query().Get("with_texts") == "1" {
		export, name = h.Store.ExportCrowdRatingsWithTexts, "ratings-texts-study%d.csv"
	}
	h.sendCSV(w, r, fmt.Sprintf(name, s.ID), func(b *bytes.Buffer) error {
		return export(r.Context(), s.ID, b, apply)
	})
}

// ExportCrowdParticipants handles GET
// /admin/studies/{study}/export/participants.csv.
func (h *Handler) ExportCrowdParticipants(w http.ResponseWriter, r *http.Request) {
	s, _, ok := h.crowdAdminStudy(w, r)
	if !ok {
		return
	}
	h.sendCSV(w, r, fmt.Sprintf("participants-study%d.csv", s.ID), func(b *bytes.Buffer) error {
		return h.Service.ExportCrowdParticipants(r.Context(), s.ID, b)
	})
}

// ExportCrowdPackage handles GET /admin/studies/{study}/export/package.zip:
// the study's data package, ready to deposit, as one zip — what
// `pragmalab export --what package` writes, the participants as
// pseudonyms (docs/formats.md#data-package).
func (h *Handler) ExportCrowdPackage(w http.ResponseWriter, r *http.Request) {
	s, _, ok := h.crowdAdminStudy(w, r)
	if !ok {
		return
	}
	if h.DataPackage == nil {
		h.NotFound(w, r)
		return
	}
	var buf bytes.Buffer
	if err := h.DataPackage(r.Context(), s, &buf); err != nil {
		h.Error(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="study-%d-package.zip"`, s.ID))
	if _, err := w.Write(buf.Bytes()); err == nil {
		h.exported(r, s.ID)
	}
}

// ExportCrowdJustifications handles GET
// /admin/studies/{study}/export/justifications.csv: the typed
// justifications and how they were typed (docs/formats.md#justifications-export).
func (h *Handler) ExportCrowdJustifications(w http.ResponseWriter, r *http.Request) {
	s, _, ok := h.crowdAdminStudy(w, r)
	if !ok {
		return
	}
	h.sendCSV(w, r, fmt.Sprintf("justifications-study%d.csv", s.ID), func(b *bytes.Buffer) error {
		return h.Service.ExportCrowdJustifications(r.Context(), s.ID, b)
	})
}

// crowdBatchRows are the lines of the progress table.
func crowdBatchRows(ps []studies.CrowdBatchProgress) []templates.CrowdBatchRow {
	out := make([]templates.CrowdBatchRow, len(ps))
	for i, b := range ps {
		out[i] = templates.CrowdBatchRow{Number: b.Number, Screens: b.Screens, Taken: b.Taken(), Completed: b.Completed,
			Active: b.Active, Idle: b.Idle, MovedOn: b.MovedOn, ScreenedOut: b.ScreenedOut, Answers: b.Answers,
			DesignVersion: b.DesignVersion, Retired: b.Retired}
	}
	return out
}

// crowdParticipantRows are the lines of the participants table.
func crowdParticipantRows(ps []studies.CrowdParticipantReport) []templates.CrowdParticipantRow {
	out := make([]templates.CrowdParticipantRow, len(ps))
	for i, p := range ps {
		out[i] = templates.CrowdParticipantRow{ID: p.ID, PID: p.PID, BatchNumber: p.BatchNumber, Status: p.Status,
			Answered: p.Answered, Screens: p.Screens, StartedAt: p.StartedAt, LastSeenAt: p.LastSeenAt,
			ChecksFailed: p.ChecksFailed, ChecksAnswered: p.ChecksAnswered, Quality: p.CrowdQuality, Reasons: p.Reasons,
			AutoExcluded: p.AutoExcluded, Excluded: p.Excluded, Override: p.Override, Flags: p.Flags, Trusted: p.Trusted}
	}
	return out
}

// maxExclusionReason bounds the reason a researcher gives for an exclusion
// decision, kept whole in the audit log (which cuts a field at 200).
const maxExclusionReason = 200
