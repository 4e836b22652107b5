// Package templates holds pragmalab's pages as templ components and the
// typed view data each page takes.
package templates

// texts holds the participant-facing strings per language. English is the
// fallback for a key missing in another language.
var texts = map[string]map[string]string{
	"en": {
		"yes": "Yes", "no": "No", "next": "Save and continue", "back": "Back", "start": "Start",
		"progress":           "Progress",
		"plausible_q":        "Is the implicature plausible?",
		"cancellation_q":     "Is the cancellation correct?",
		"alt_implicature":    "Please write a plausible implicature instead (optional):",
		"alt_cancellation":   "Please write a correct cancellation instead (optional):",
		"context":            "Context",
		"utterance":          "Utterance",
		"implicature":        "Candidate implicature",
		"cancellation":       "Candidate cancellation",
		"keys_hint":          "Keyboard: Y / N answer the current question, Enter saves and goes on.",
		"done_title":         "Thank you!",
		"done_body":          "Every answer of this batch is saved. You can still go back and change an answer.",
		"your_batches":       "Your batches",
		"continue":           "Continue",
		"review":             "Review answers",
		"instructions_for":   "Instructions:",
		"examples":           "Worked examples",
		"begin_type":         "Begin these items",
		"answered_of":        "answered of",
		"cancellation_skip":  "(Not needed when the implicature is not plausible.)",
		"study_draft_title":  "This study has not started yet",
		"study_draft_body":   "The researcher has not opened the study yet. Please try again later.",
		"study_paused_title": "This study is paused",
		"study_paused_body":  "The researcher has paused the study for a while. Nothing is lost: the answers you have given are saved. Please try again later.",
		"study_closed_title": "This study is closed",
		"study_closed_body":  "The study has ended and takes no more answers. Thank you for your interest.",
		"study_prolific":     "If you came from Prolific, please return the study there; you will not be penalised.",
		"pilot_banner":       "Pilot — this is the study's pilot link: answers are kept apart from the live study's.",
	},
	"it": {
		"yes": "Sì", "no": "No", "next": "Salva e continua", "back": "Indietro", "start": "Inizia",
		"progress":           "Avanzamento",
		"plausible_q":        "L'implicatura è plausibile?",
		"cancellation_q":     "La cancellazione è corretta?",
		"alt_implicature":    "Scrivi un'implicatura plausibile (facoltativo):",
		"alt_cancellation":   "Scrivi una cancellazione corretta (facoltativo):",
		"context":            "Contesto",
		"utterance":          "Enunciato",
		"implicature":        "Implicatura proposta",
		"cancellation":       "Cancellazione proposta",
		"keys_hint":          "Tastiera: S / N rispondono alla domanda corrente, Invio salva e prosegue.",
		"done_title":         "Grazie!",
		"done_body":          "Tutte le risposte di questo blocco sono salvate. Puoi ancora tornare indietro e cambiarle.",
		"your_batches":       "I tuoi blocchi",
		"continue":           "Continua",
		"review":             "Rivedi le risposte",
		"instructions_for":   "Istruzioni:",
		"examples":           "Esempi svolti",
		"begin_type":         "Inizia questi item",
		"answered_of":        "risposte su",
		"cancellation_skip":  "(Non serve se l'implicatura non è plausibile.)",
		"study_draft_title":  "Questo studio non è ancora iniziato",
		"study_draft_body":   "Il ricercatore non ha ancora aperto lo studio. Riprova più tardi.",
		"study_paused_title": "Questo studio è in pausa",
		"study_paused_body":  "Il ricercatore ha sospeso lo studio per un po'. Non si perde nulla: le risposte che hai dato sono salvate. Riprova più tardi.",
		"study_closed_title": "Questo studio è chiuso",
		"study_closed_body":  "Lo studio è terminato e non accetta più risposte. Grazie per l'interesse.",
		"study_prolific":     "Se sei arrivato da Prolific, restituisci lo studio su Prolific; non sarai penalizzato.",
		"pilot_banner":       "Pilota — questo è il link pilota dello studio: le risposte sono tenute separate da quelle dello studio vero e proprio.",
	},
}

// T returns the text for key in lang, falling back to English, then the key.
func T(lang, key string) string {
	if s, ok := texts[lang][key]; ok {
		return s
	}
	if s, ok := texts["en"][key]; ok {
		return s
	}
	return key
}
