package web

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"pragmalab/static"
)

func chiRoutePattern(r *http.Request) string {
	if rc := chi.RouteContext(r.Context()); rc != nil {
		return rc.RoutePattern()
	}
	return ""
}

// routes lists every route of pragmalab: method and path side by side.
func (s *Server) routes() http.Handler {
	h := s.Handler
	r := chi.NewRouter()
	r.Use(recoverer(s.cfg.Log), logRequests(s.cfg.Log), securityHeaders(s.cfg.SecureCookies), crossOrigin(s.cfg.Log, r))
	r.NotFound(h.NotFound)

	r.Handle("/static/*", http.StripPrefix("/static/", fileServer(static.FS)))
	r.Get("/", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/admin", http.StatusSeeOther) })
	r.Get("/healthz", h.Healthz)

	// Prolific's webhooks (docs/prolific.md#webhooks): signed, no session.
	r.Post("/webhooks/prolific", h.ProlificWebhook)

	// Admin login.
	r.With(h.OfferOIDC).Get("/admin/login", h.LoginPage)
	r.With(h.OfferOIDC).Post("/admin/login", h.Login)
	r.Post("/admin/logout", h.Logout)
	// Institutional sign-in (docs/deploy.md#institutional-sign-in-openid-connect).
	r.Get("/admin/oidc/login", h.OIDCLogin)
	r.Get("/admin/oidc/callback", h.OIDCCallback)

	// Admin area: everything below needs a logged-in admin; a viewer may
	// only read, and every change an owner makes goes to the audit log.
	r.Route("/admin", func(r chi.Router) {
		r.Use(h.RequireAdmin, h.RequireOwnerForChanges, h.Audited)
		r.Get("/", h.Studies)
		r.Post("/studies", h.CreateStudy)
		r.Post("/studies/design", h.CreateStudyFromDesign)

		// accounts and roles (docs/deploy.md#admin-accounts)
		r.Get("/accounts", h.AccountsPage)
		r.Post("/accounts", h.CreateAccount)
		r.Post("/accounts/{admin}/role", h.SetAccountRole)
		r.Post("/accounts/{admin}/password", h.ResetAccountPassword)
		r.Post("/accounts/{admin}/sessions", h.EndAccountSessions)
		r.Get("/audit.csv", h.ExportAccountsAudit)
		r.Get("/accounts/sign-in", h.OIDCRulesPage)
		r.Post("/accounts/sign-in", h.AddOIDCRule)
		r.Post("/accounts/sign-in/{rule}/delete", h.DeleteOIDCRule)

		// the operator's view (docs/deploy.md#monitoring): owner only
		r.Group(func(r chi.Router) {
			r.Use(h.OwnerOnly) // owner only
			r.Get("/metrics", h.MetricsPage)
			r.Handle("/debug/pprof/*", h.Pprof())
		})

		r.Route("/studies/{study}", func(r chi.Router) {
			r.Use(h.PilotScope)
			// an archived study is read-only (docs/studies.md#archiving)
			r.Use(h.Writable)
			r.Get("/", h.StudyPage)
			r.Get("/export/audit.csv", h.ExportAudit)
			r.Get("/design.json", h.DownloadDesign)
			r.Get("/design-at-opening.json", h.DownloadOpeningDesign)
			r.Get("/design-versions/{version}", h.DownloadDesignVersion)
			r.Get("/template/{file}", h.ItemsTemplate)
			r.Post("/items", h.ImportItems)
			r.Post("/state", h.SetStudyState)
			r.Post("/pilot", h.Pilot)

			// a lab's everyday admin (docs/studies.md#managing-studies)
			r.Post("/rename", h.RenameStudy)
			r.Post("/archive", h.ArchiveStudy)
			r.Post("/clone", h.CloneStudy)
			r.Get("/delete", h.DeleteStudyPage)
			r.Post("/delete", h.DeleteStudy)
			r.Get("/items/{item}/edit", h.EditItemPage)
			r.Post("/items/{item}/edit", h.EditItem)
			r.Post("/items/reimport", h.ReimportItems)
			r.Get("/items/reimport/{upload}", h.ReimportPreview)
			r.Post("/items/reimport/{upload}", h.ApplyReimport)
			r.Post("/people/{annotator}/rename", h.RenameAnnotator)
			r.Post("/people/{annotator}/revoke", h.RevokeAnnotator)
			r.Post("/people/{annotator}/reissue", h.ReissueAnnotator)
			r.Get("/export/alternatives.csv", h.ExportAlternatives)
			r.Post("/jobs/{job}/delete", h.DeleteJob)

			// expert validation (docs/studies.md#expert-validation)
			r.Post("/items/{item}/check", h.SetItemCheck)
			r.Post("/batches", h.BuildExpertBatches)
			r.Post("/experts", h.InviteExpert)
			r.Post("/rounds/{round}", h.AssignRound)
			r.Get("/review", h.ReviewPage)
			r.Post("/review/{item}", h.ReviewItem)
			r.Get("/review/{item}/drop", h.ConfirmDropPage)
			r.Get("/export/judgements.csv", h.ExportJudgements)
			r.Get("/export/items.{format}", h.ExportItems)

			// crowd study admin (docs/studies.md#crowd-likelihood-study)
			r.Post("/crowd/settings", h.SaveCrowdSettings)
			r.Post("/crowd/batches", h.BuildCrowdStudyBatches)
			r.Get("/crowd/progress", h.CrowdProgressPage)
			r.Post("/crowd/participants/{participant}/exclusion", h.SetCrowdExclusion)
			r.Post("/crowd/participants/{participant}/trusted", h.SetCrowdTrusted)
			r.Get("/export/ratings.csv", h.ExportCrowdRatings)
			r.Get("/export/participants.csv", h.ExportCrowdParticipants)
			r.Get("/export/justifications.csv", h.ExportCrowdJustifications)
			r.Get("/export/package.zip", h.ExportCrowdPackage)

			// Prolific's API for a crowd study (docs/prolific.md)
			r.Get("/prolific", h.ProlificPage)
			r.Post("/prolific/link", h.LinkProlific)
			r.Post("/prolific/check", h.CheckProlific)
			r.Post("/prolific/sync", h.SyncProlific)
			r.Get("/prolific/approve", h.ProlificApprovePage)
			r.Post("/prolific/approve", h.ApproveProlific)
			r.Get("/prolific/reject", h.ProlificRejectPage)
			r.Post("/prolific/reject", h.RejectProlific)
			r.Post("/prolific/bonus/plan", h.PlanProlificBonus)
			r.Post("/prolific/bonus/setup", h.SetUpProlificBonus)
			r.Post("/prolific/bonus/pay", h.PayProlificBonus)
			r.Post("/prolific/bonus/not-sent", h.ProlificPaymentNotSent)
			r.Post("/prolific/create", h.CreateProlificDraft)
			r.Post("/prolific/group", h.AddProlificGroup)
			r.Post("/prolific/transition", h.TransitionProlific)
			r.Get("/prolific/cost", h.ProlificCostPage)
			r.Get("/prolific/places", h.ProlificPlacesPage)
			r.Post("/prolific/places", h.AddProlificPlaces)
			r.Post("/prolific/screen-out", h.ScreenOutProlific)
			r.Post("/prolific/flags", h.SendProlificFlags)
			r.Post("/prolific/message/preview", h.ProlificMessagePreview)
			r.Post("/prolific/message", h.SendProlificMessage)
			r.Post("/prolific/screening", h.SaveProlificScreening)
			r.Post("/prolific/eligible", h.ProlificEligible)
			r.Post("/prolific/return", h.RequestProlificReturn)
			r.Get("/prolific/inbox", h.ProlificInboxPage)
			r.Post("/prolific/test-participant", h.CreateProlificTestParticipant)
			r.Post("/prolific/participants.csv", h.ProlificDemographicsCSV)
			r.Post("/prolific/demographics", h.KeepProlificDemographics)
			r.Get("/prolific/plan", h.ProlificPlanPage)

			// context-expansion and explanation-rating studies admin (docs/studies.md)
			r.Post("/surveys", h.BuildContextSurveys)
			r.Post("/context/experts", h.InviteContextExpert)
			r.Get("/export/context_answers.csv", h.ExportContextAnswers)
			r.Post("/outputs", h.ImportOutputs)
			r.Post("/explain/settings", h.SaveExplainSettings)
			r.Post("/explain/experts", h.InviteExplainExpert)
			r.Post("/explain/experts/{annotator}/assign", h.AssignExplainScreens)
			r.Get("/export/explanation_ratings.csv", h.ExportExplanationRatings)

			// analysis pages (docs/statistics.md)
			r.Get("/analysis", h.AnalysisPage)
			r.Get("/analysis/r-companion.zip", h.AnalysisRCompanion)
			r.Get("/analysis/{table}.{format}", h.AnalysisDownload)
			r.Get("/analysis/plots/{figure}.{format}", h.AnalysisPlot)

			// model-scoring jobs (docs/scoring.md#jobs)
			r.Get("/jobs", h.JobsPage)
			r.Post("/jobs", h.CreateJob)
			r.Get("/jobs/{job}", h.JobPage)
			r.Get("/jobs/{job}/progress.json", h.JobProgressJSON)
			r.Post("/jobs/{job}/cancel", h.CancelJob)
			r.Post("/jobs/{job}/retry", h.RetryJob)
			r.Get("/jobs/{job}/results.{format}", h.JobResults)
			r.Get("/jobs/{job}/bars/{measure}.{format}", h.JobBars)
			r.Get("/jobs/{job}/human-figures/{name}.{format}", h.JobHumanFigure)
			r.Post("/jobs/{job}/outputs", h.JobOutputs)
			r.Get("/prompts", h.PromptsPage)
			r.Post("/prompts", h.SavePrompts)

		})
	})

	// Pilot links (docs/studies.md#pilots): a study's own token, any kind,
	// any state.
	r.Get("/p/{token}", h.PilotEntry)

	// Expert participants: the invitation token is the credential.
	r.Route("/e/{token}", func(r chi.Router) {
		r.Use(h.ParticipantPages)
		r.Use(h.NoViewerAnswers) // a viewer's browser answers nothing
		r.Get("/", h.ExpertLanding)
		r.Get("/b/{assignment}", h.ExpertResume)
		r.Get("/b/{assignment}/done", h.ExpertDone)
		r.Get("/b/{assignment}/{pos}", h.ExpertScreen)
		r.Post("/b/{assignment}/{pos}", h.ExpertAnswer)
	})

	// Crowd participants from Prolific (docs/studies.md#crowd-entry): the
	// session cookie is the credential once the entry URL has admitted them.
	r.Route("/s/{study}", func(r chi.Router) {
		r.Use(h.ParticipantPages)
		r.Use(h.NoViewerAnswers) // a viewer's browser answers nothing
		r.Get("/", h.CrowdEntry)
		r.Get("/screen", h.CrowdScreen)
		r.Post("/consent", h.CrowdConsent)
		r.Post("/decline", h.CrowdDecline)
		r.Post("/training", h.CrowdTrainingAnswer)
		r.Post("/answer", h.CrowdAnswer)
		r.Post("/questionnaire", h.CrowdQuestionnaireAnswer)
		r.Get("/preview", h.CrowdPreview)
	})

	// IMPAQTS participants: context-survey experts (/c) and
	// explanation raters (/x); the invitation token is the credential.
	r.Route("/c/{token}", func(r chi.Router) {
		r.Use(h.ParticipantPages)
		r.Use(h.NoViewerAnswers) // a viewer's browser answers nothing
		r.Get("/", h.ContextLanding)
		r.Get("/s/{assignment}", h.ContextResume)
		r.Get("/s/{assignment}/done", h.ContextDone)
		r.Get("/s/{assignment}/{pos}", h.ContextQuestionPage)
		r.Post("/s/{assignment}/{pos}", h.ContextAnswer)
	})
	r.Route("/x/{token}", func(r chi.Router) {
		r.Use(h.ParticipantPages)
		r.Use(h.NoViewerAnswers) // a viewer's browser answers nothing
		r.Get("/", h.ExplainLanding)
		r.Get("/done", h.ExplainDone)
		r.Get("/{pos}", h.ExplainScreenPage)
		r.Post("/{pos}", h.ExplainAnswer)
	})

	return r
}
