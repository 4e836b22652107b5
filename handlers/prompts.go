package handlers

import (
	"encoding/json"
	"net/http"
	"pragmalab/domain"
	"strings"

	"pragmalab/runner"
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
	t, err := runner.Templates(r.Context(), h.DB, s.ID)
	if err != nil {
		h.Error(w, r, err)
		return
	}
	_, custom, _ := h.DB.ScoringTemplates(r.Context(), s.ID)
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
		if err := h.DB.SaveScoringTemplates(r.Context(), s.ID, nil); err != nil {
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
	if err := t.Validate(); err != nil {
		_, custom, _ := h.DB.ScoringTemplates(r.Context(), s.ID)
		h.render(w, r, http.StatusBadRequest, templates.Prompts(templates.PromptsView{Nav: h.nav(w, r, s), StudyID: s.ID,
			Fields: promptFields(t), Custom: custom, Error: "Nothing was saved: " + err.Error()}))
		return
	}
	b, _ := json.Marshal(t)
	if err := h.DB.SaveScoringTemplates(r.Context(), s.ID, b); err != nil {
		h.Error(w, r, err)
		return
	}
	h.flash(w, r, "Prompt templates saved; new jobs use them.")
	redirect(w, r, templates.StudyURL(s.ID, "/prompts"))
}
