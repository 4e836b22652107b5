package handlers

import (
	"errors"
	"net/http"
	"pragmalab/domain"
	"pragmalab/studies"
	"strings"

	"pragmalab/scoring"
	"pragmalab/templates"
)

// promptFields lists the templates a study edits, with their help texts.
func promptFields(t scoring.Templates) []templates.PromptField {
	return []templates.PromptField{
		{Name: "truefalse", Label: "True/False", Help: "Fields: .Context, .Utterances (u and the follow-up), .Belief, .OptionA, .OptionB (True/False in the asked order).", Value: t.TrueFalse},
		{Name: "prior", Label: "True/False, prior condition (no context, no utterance)", Help: "Fields: .Belief, .OptionA, .OptionB.", Value: t.Prior},
		{Name: "multiplechoice", Label: "Multiple choice", Help: "Fields: .Text (the passage), .Target, .Options (four, index 0–3).", Value: t.MultipleChoice},
		{Name: "zero_shot", Label: "Generation, zero-shot", Help: "Fields: .Text, .Target.", Value: t.ZeroShot},
		{Name: "few_shot", Label: "Generation, few-shot", Help: "Fields: .Text, .Target, .Examples (4, each with .Text, .Target, .Explanation).", Value: t.FewShot},
		{Name: "chain_of_thought", Label: "Generation, chain-of-thought", Help: "Fields: .Text, .Target. The explanation is read after the last \"Explanation:\".", Value: t.ChainOfThought},
	}
}

// PromptsPage handles GET /admin/studies/{study}/prompts.
func (h *Handler) PromptsPage(w http.ResponseWriter, r *http.Request) {
	s, err := h.study(r)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	t, custom, err := h.Service.PromptTemplates(r.Context(), s.ID)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, templates.Prompts(templates.PromptsView{Nav: h.nav(w, r, s), StudyID: s.ID, Fields: promptFields(t), Custom: custom}))
}

// SavePrompts handles POST /admin/studies/{study}/prompts: save the
// templates (each must parse and render), or restore the defaults.
func (h *Handler) SavePrompts(w http.ResponseWriter, r *http.Request) {
	s, err := h.study(r)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 6*scoring.MaxTemplateLen*4+4096)
	if err := r.ParseForm(); err != nil {
		h.Error(w, r, domain.Errorf(domain.EINVALID, "the form could not be read (too large or malformed)"))
		return
	}
	if r.PostFormValue("reset") != "" {
		if err := h.Service.ResetPromptTemplates(r.Context(), s.ID); err != nil {
			h.Error(w, r, err)
			return
		}
		h.flash(w, r, "Prompt templates restored to the defaults.")
		redirect(w, r, templates.StudyURL(s.ID, "/prompts"))
		return
	}
	t := scoring.Templates{
		TrueFalse: r.PostFormValue("truefalse"), Prior: r.PostFormValue("prior"), MultipleChoice: r.PostFormValue("multiplechoice"),
		ZeroShot: r.PostFormValue("zero_shot"), FewShot: r.PostFormValue("few_shot"), ChainOfThought: r.PostFormValue("chain_of_thought"),
	}
	for _, f := range []*string{&t.TrueFalse, &t.Prior, &t.MultipleChoice, &t.ZeroShot, &t.FewShot, &t.ChainOfThought} {
		*f = strings.ReplaceAll(*f, "\r\n", "\n")
	}
	if err := h.Service.SavePromptTemplates(r.Context(), s.ID, t); err != nil {
		var bad *studies.InvalidTemplates
		if errors.As(err, &bad) {
			h.render(w, r, http.StatusBadRequest, templates.Prompts(templates.PromptsView{Nav: h.nav(w, r, s), StudyID: s.ID,
				Fields: promptFields(t), Custom: h.Service.HasOwnPromptTemplates(r.Context(), s.ID), Error: "Nothing was saved: " + err.Error()}))
			return
		}
		h.Error(w, r, err)
		return
	}
	h.flash(w, r, "Prompt templates saved; new jobs use them.")
	redirect(w, r, templates.StudyURL(s.ID, "/prompts"))
}
