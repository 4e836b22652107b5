package templates

// impaqtsTexts are the participant-facing texts of the two IMPAQTS studies
// (context-expansion survey and rating of model explanations), per study
// language; TI falls back to English, then to the shared texts of T.
var impaqtsTexts = map[string]map[string]string{
	"en": {
		"ctx_title":        "How much context is needed?",
		"ctx_intro":        "Each question shows a sentence from an Italian political speech and an implicit content it conveys (an implicature or a presupposition). Decide whether the sentence as shown is enough to infer that implicit content. If it is not, ask for more context: one more preceding sentence of the speech appears, highlighted, and you are asked again, up to five sentences. After the fifth (or when the speech has no earlier sentence) your answer is final.",
		"ctx_intro_saved":  "Every answer is saved the moment you give it: you can stop at any time and continue later from this link. Back takes you to an earlier question, where you can change your answer.",
		"ctx_your_surveys": "Your surveys",
		"ctx_survey":       "Survey",
		"ctx_none":         "No survey is assigned to you yet. Please come back later.",
		"ctx_question":     "Question",
		"ctx_of":           "of",
		"ctx_target":       "Sentence",
		"ctx_context":      "Preceding context",
		"ctx_new":          "new",
		"ctx_implicit":     "Implicit content",
		"ctx_legend":       "Is the context shown enough to infer the implicit content?",
		"ctx_sufficient":   "The context is sufficient to infer the implicit content",
		"ctx_more":         "More context is needed",
		"ctx_more_final":   "Not sufficient, even with all the context there is (final answer)",
		"ctx_shown":        "Preceding sentences shown",
		"ctx_answer_yes":   "Your answer: the context is sufficient with %d preceding sentences.",
		"ctx_answer_no":    "Your answer: the context is not sufficient even with %d preceding sentences.",
		"ctx_restart":      "Start this question again",
		"ctx_next":         "Next question",
		"ctx_keys":         "Keyboard: Tab moves to an answer, Enter gives the one in focus; nothing is chosen until you move to it.",
		"ctx_done":         "Every question of this survey has its answer. Thank you! You can still go back and change an answer.",
		"ctx_answered":     "answered of",
		"ex_title":         "Rating explanations of implicit content",
		"ex_intro":         "Each screen shows a passage of an Italian political speech (Text), the implicit content its last sentence conveys according to the annotators of the corpus (Human annotation), and an explanation written by a language model (Output). Rate the Output against the Human annotation with one of the five answers.",
		"ex_intro_saved":   "Every answer is saved the moment you give it: you can stop and continue later from this link, and Back lets you change an answer.",
		"ex_text":          "Text",
		"ex_human":         "Human annotation",
		"ex_output":        "Output",
		"ex_empty":         "(the model gave no answer)",
		"ex_legend":        "How good is the Output?",
		"ex_1":             "Totally correct",
		"ex_2":             "Correct among various options",
		"ex_3":             "Partially correct",
		"ex_4":             "Totally wrong",
		"ex_5":             "Answer not given",
		"ex_keys":          "Keyboard: keys 1–5 choose an answer and go on; Back returns to the previous screen.",
		"ex_required":      "Please choose one of the five answers.",
		"ex_none":          "No screen is assigned to you yet. Please come back later.",
		"ex_done":          "Every screen has its answer. Thank you! You can still go back and change an answer.",
		"ex_screens":       "screens",
		"attribution":      "Passages from IMPAQTS-PID (Paci, Panunzi, Pezzelle 2025; IMPAQTS corpus, Cominetti et al. 2024), CC BY-NC 4.0.",
	},
	"it": {
		"ctx_title":        "Quanto contesto serve?",
		"ctx_intro":        "Ogni domanda mostra una frase tratta da un discorso politico italiano e un contenuto implicito che essa veicola (un'implicatura o una presupposizione). Decidi se la frase così come è mostrata basta per ricavare quel contenuto implicito. Se non basta, chiedi più contesto: compare, evidenziata, la frase precedente del discorso e la domanda ti viene riproposta, fino a cinque frasi. Dopo la quinta (o quando il discorso non ha frasi precedenti) la risposta è definitiva.",
		"ctx_intro_saved":  "Ogni risposta viene salvata nel momento in cui la dai: puoi interrompere quando vuoi e riprendere più tardi da questo link. Con «Indietro» torni a una domanda precedente e puoi cambiare la risposta.",
		"ctx_your_surveys": "I tuoi questionari",
		"ctx_survey":       "Questionario",
		"ctx_none":         "Non ti è ancora stato assegnato un questionario. Torna più tardi.",
		"ctx_question":     "Domanda",
		"ctx_of":           "di",
		"ctx_target":       "Frase",
		"ctx_context":      "Contesto precedente",
		"ctx_new":          "nuova",
		"ctx_implicit":     "Contenuto implicito",
		"ctx_legend":       "Il contesto mostrato basta per ricavare il contenuto implicito?",
		"ctx_sufficient":   "Il contesto è sufficiente per ricavare il contenuto implicito",
		"ctx_more":         "Serve più contesto",
		"ctx_more_final":   "Non sufficiente, nemmeno con tutto il contesto disponibile (risposta definitiva)",
		"ctx_shown":        "Frasi precedenti mostrate",
		"ctx_answer_yes":   "La tua risposta: il contesto è sufficiente con %d frasi precedenti.",
		"ctx_answer_no":    "La tua risposta: il contesto non è sufficiente nemmeno con %d frasi precedenti.",
		"ctx_restart":      "Ricomincia questa domanda",
		"ctx_next":         "Domanda successiva",
		"ctx_keys":         "Tastiera: Tab porta a una risposta, Invio conferma quella selezionata; nulla è scelto finché non ci arrivi.",
		"ctx_done":         "Tutte le domande di questo questionario hanno una risposta. Grazie! Puoi ancora tornare indietro e cambiare una risposta.",
		"ctx_answered":     "risposte su",
		"ex_title":         "Valutazione delle spiegazioni del contenuto implicito",
		"ex_intro":         "Ogni schermata mostra un passo di un discorso politico italiano (Testo), il contenuto implicito che la sua ultima frase veicola secondo gli annotatori del corpus (Annotazione umana) e una spiegazione scritta da un modello linguistico (Output). Valuta l'Output rispetto all'annotazione umana con una delle cinque risposte.",
		"ex_intro_saved":   "Ogni risposta viene salvata nel momento in cui la dai: puoi interrompere e riprendere più tardi da questo link, e con «Indietro» puoi cambiare una risposta.",
		"ex_text":          "Testo",
		"ex_human":         "Annotazione umana",
		"ex_output":        "Output",
		"ex_empty":         "(il modello non ha dato risposta)",
		"ex_legend":        "Quanto è corretto l'Output?",
		"ex_1":             "Totalmente corretta",
		"ex_2":             "Corretta tra varie opzioni",
		"ex_3":             "Parzialmente corretta",
		"ex_4":             "Totalmente sbagliata",
		"ex_5":             "Risposta non data",
		"ex_keys":          "Tastiera: i tasti 1–5 scelgono una risposta e proseguono; «Indietro» torna alla schermata precedente.",
		"ex_required":      "Scegli una delle cinque risposte.",
		"ex_none":          "Non ti è ancora stata assegnata nessuna schermata. Torna più tardi.",
		"ex_done":          "Tutte le schermate hanno una risposta. Grazie! Puoi ancora tornare indietro e cambiare una risposta.",
		"ex_screens":       "schermate",
		"attribution":      "Passi tratti da IMPAQTS-PID (Paci, Panunzi, Pezzelle 2025; corpus IMPAQTS, Cominetti et al. 2024), CC BY-NC 4.0.",
	},
}

// TI returns an IMPAQTS study text in lang, falling back to English and
// then to the shared texts.
func TI(lang, key string) string {
	if s, ok := impaqtsTexts[lang][key]; ok {
		return s
	}
	if s, ok := impaqtsTexts["en"][key]; ok {
		return s
	}
	return T(lang, key)
}
