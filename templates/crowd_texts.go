package templates

import (
	"fmt"

	"pragmalab/domain"
)

// crowdTexts are the participant-facing strings of the crowd study, per
// language; the researcher may replace the title, introduction and consent
// text in the study settings.
var crowdTexts = map[string]map[string]string{
	"en": {
		"title":                  "How likely is it?",
		"intro":                  "In this study you will read short texts and conversations. After each one you will see a statement and rate how likely it is that the statement is true, given what was said. There are no right or wrong answers in the main part; we are interested in your own judgement. The study takes about 15 minutes.",
		"consent":                "Your answers are stored with your Prolific ID, which is needed to pay you and is never published, and are used for research only. Taking part is voluntary and you can stop at any time by closing this page; you can come back to where you left off through the same Prolific link.",
		"agree":                  "I agree — start",
		"training_intro":         "First a few practice items. They show how the scale works: if an answer does not fit what was said, you will be asked to try again.",
		"training":               "Practice",
		"try_again":              "Try again: read the text once more. Does what was said make the statement likely or unlikely?",
		"question":               "Given what was said, how likely is it that the following is true?",
		"scale_low":              "absolutely impossible",
		"scale_high":             "absolutely certain",
		"next":                   "Next",
		"keys_hint":              "Keyboard: press %d–%d to answer.",
		"screen_of":              "Item",
		"done_title":             "Thank you!",
		"done_body":              "All your answers are saved. Your completion code is:",
		"done_go":                "You are being sent back to Prolific. If nothing happens, use this button:",
		"back_to_prolific":       "Back to Prolific",
		"no_code":                "The researcher has not set a completion code yet. Please contact them through Prolific; your answers are saved.",
		"full_title":             "The study is full",
		"full_body":              "Every place in this study has been taken. Please return the study on Prolific (you will not be penalised).",
		"moved_title":            "The study has moved on",
		"moved_body":             "You were away longer than the time allowed, and your place has been given to someone else. Please return the submission on Prolific.",
		"foreign_title":          "This session is open elsewhere",
		"foreign_body":           "This Prolific ID already has a session in another browser. To continue there, open the study from the same Prolific link (it carries your session id), or go back to the browser where you started.",
		"incomplete_title":       "This link is incomplete",
		"incomplete_missing":     "The address you opened lacks your Prolific ID (PROLIFIC_PID), so the study cannot know who you are and nothing would be recorded. Please go back to Prolific and open the study from its link there.",
		"incomplete_empty":       "The address you opened has an empty Prolific ID (PROLIFIC_PID), so nothing would be recorded. Please go back to Prolific and open the study from its link there.",
		"incomplete_placeholder": "The address still holds the placeholder {{%PROLIFIC_PID%}} where Prolific puts your Prolific ID, so nothing would be recorded. Please go back to Prolific and open the study from its link there; if this page comes again, message the researcher: the study URL on Prolific needs fixing.",
		"busy_title":             "Too many attempts",
		"busy_body":              "This study has been opened too many times from your network in the last few minutes. Please wait a few minutes and open it again from Prolific.",
		"rating_title":           "Choose a rating",
		"rating_body":            "The rating must be %d–%d: go back, choose one of the points of the scale and send the page again. Nothing was saved.",
		"practice_end_title":     "End of the practice",
		"practice_end_body":      "Well done: the practice is over. Now come the %d items of the study. From here on there is no feedback and no right or wrong answer: give your own judgement of each one.",
		"practice_end_go":        "Start the study",
		"q_title":                "A few questions about you",
		"q_intro":                "Every question is optional; leave out any you prefer not to answer. Your completion code comes next.",
		"q_languages":            "Your native language(s)",
		"q_age":                  "Your age",
		"q_age_18-24":            "18–24", "q_age_25-34": "25–34", "q_age_35-44": "35–44", "q_age_45-54": "45–54", "q_age_55-64": "55–64", "q_age_65+": "65 or older", "q_age_no_answer": "I prefer not to say",
		"q_gender":       "Your gender",
		"q_gender_woman": "Woman", "q_gender_man": "Man", "q_gender_non_binary": "Non-binary", "q_gender_other": "Another gender", "q_gender_no_answer": "I prefer not to say",
		"q_comments":     "Any comments on the study",
		"q_send":         "Send and finish",
		"missing_title":  "Please start from Prolific",
		"missing_body":   "Please open the study from its link on Prolific: this address lacks what identifies your session.",
		"screened_title": "Thank you for your time",
		"screened_body":  "Unfortunately the practice answers did not match the instructions, so the study ends here. Your screening code is:",
		"closed_title":   "The study is not open yet",
		"closed_body":    "Please try again later.",
		"preview":        "Preview — nothing you do here is stored.",
		"preview_done":   "End of the preview.",
	},
	"it": {
		"title":                  "Quanto è probabile?",
		"intro":                  "In questo studio leggerai brevi testi e conversazioni. Dopo ciascuno vedrai un'affermazione e valuterai quanto è probabile che sia vera, dato ciò che è stato detto. Nella parte principale non ci sono risposte giuste o sbagliate: ci interessa il tuo giudizio. Lo studio dura circa 15 minuti.",
		"consent":                "Le tue risposte sono conservate con il tuo ID Prolific, che serve per pagarti e non viene mai pubblicato, e sono usate solo per la ricerca. La partecipazione è volontaria e puoi interromperla in qualsiasi momento chiudendo la pagina; puoi riprendere da dove eri rimasto con lo stesso link di Prolific.",
		"agree":                  "Accetto — inizia",
		"training_intro":         "Prima alcuni esempi di prova, che mostrano come funziona la scala: se una risposta non corrisponde a ciò che è stato detto, ti verrà chiesto di riprovare.",
		"training":               "Prova",
		"try_again":              "Riprova: rileggi il testo. Ciò che è stato detto rende l'affermazione probabile o improbabile?",
		"question":               "Dato ciò che è stato detto, quanto è probabile che quanto segue sia vero?",
		"scale_low":              "assolutamente impossibile",
		"scale_high":             "assolutamente certo",
		"next":                   "Avanti",
		"keys_hint":              "Tastiera: premi %d–%d per rispondere.",
		"screen_of":              "Item",
		"done_title":             "Grazie!",
		"done_body":              "Tutte le tue risposte sono salvate. Il tuo codice di completamento è:",
		"done_go":                "Stai per tornare su Prolific. Se non succede nulla, usa questo pulsante:",
		"back_to_prolific":       "Torna su Prolific",
		"no_code":                "Il ricercatore non ha ancora impostato un codice di completamento. Contattalo tramite Prolific; le tue risposte sono salvate.",
		"full_title":             "Lo studio è al completo",
		"full_body":              "Tutti i posti di questo studio sono stati presi. Restituisci lo studio su Prolific (non sarai penalizzato).",
		"moved_title":            "Lo studio è andato avanti",
		"moved_body":             "Sei stato assente più a lungo del tempo consentito e il tuo posto è stato assegnato a qualcun altro. Restituisci la sottomissione su Prolific.",
		"foreign_title":          "Questa sessione è aperta altrove",
		"foreign_body":           "Questo ID Prolific ha già una sessione in un altro browser. Per continuare qui apri lo studio dallo stesso link di Prolific (contiene l'id della sessione), oppure torna al browser in cui hai iniziato.",
		"incomplete_title":       "Questo link è incompleto",
		"incomplete_missing":     "All'indirizzo che hai aperto manca il tuo ID Prolific (PROLIFIC_PID): lo studio non sa chi sei e nulla verrebbe registrato. Torna su Prolific e apri lo studio dal suo link.",
		"incomplete_empty":       "L'indirizzo che hai aperto ha un ID Prolific (PROLIFIC_PID) vuoto: nulla verrebbe registrato. Torna su Prolific e apri lo studio dal suo link.",
		"incomplete_placeholder": "L'indirizzo contiene ancora il segnaposto {{%PROLIFIC_PID%}} al posto del tuo ID Prolific: nulla verrebbe registrato. Torna su Prolific e apri lo studio dal suo link; se questa pagina ricompare, scrivi al ricercatore: l'URL dello studio su Prolific va corretto.",
		"busy_title":             "Troppi tentativi",
		"busy_body":              "Lo studio è stato aperto troppe volte dalla tua rete negli ultimi minuti. Aspetta qualche minuto e aprilo di nuovo da Prolific.",
		"rating_title":           "Scegli una valutazione",
		"rating_body":            "La valutazione deve essere da %d a %d: torna indietro, scegli un punto della scala e invia di nuovo la pagina. Non è stato salvato nulla.",
		"practice_end_title":     "Fine della prova",
		"practice_end_body":      "Bene: la prova è finita. Ora arrivano i %d item dello studio. Da qui in poi non ci sono indicazioni né risposte giuste o sbagliate: dai il tuo giudizio su ciascuno.",
		"practice_end_go":        "Inizia lo studio",
		"q_title":                "Qualche domanda su di te",
		"q_intro":                "Tutte le domande sono facoltative; puoi saltare quelle a cui preferisci non rispondere. Subito dopo ricevi il codice di completamento.",
		"q_languages":            "La tua lingua madre (o le tue lingue madri)",
		"q_age":                  "La tua età",
		"q_age_18-24":            "18–24", "q_age_25-34": "25–34", "q_age_35-44": "35–44", "q_age_45-54": "45–54", "q_age_55-64": "55–64", "q_age_65+": "65 o più", "q_age_no_answer": "Preferisco non dirlo",
		"q_gender":       "Il tuo genere",
		"q_gender_woman": "Donna", "q_gender_man": "Uomo", "q_gender_non_binary": "Non binario", "q_gender_other": "Altro genere", "q_gender_no_answer": "Preferisco non dirlo",
		"q_comments":     "Eventuali commenti sullo studio",
		"q_send":         "Invia e concludi",
		"missing_title":  "Inizia da Prolific",
		"missing_body":   "Apri lo studio dal suo link su Prolific: a questo indirizzo manca ciò che identifica la tua sessione.",
		"screened_title": "Grazie per il tuo tempo",
		"screened_body":  "Purtroppo le risposte di prova non corrispondevano alle istruzioni, quindi lo studio finisce qui. Il tuo codice è:",
		"closed_title":   "Lo studio non è ancora aperto",
		"closed_body":    "Riprova più tardi.",
		"preview":        "Anteprima — nulla di ciò che fai qui viene salvato.",
		"preview_done":   "Fine dell'anteprima.",
	},
}

// CrowdRatingRange says a rating was off the scale, in lang.
func CrowdRatingRange(lang string) string {
	return fmt.Sprintf(CT(lang, "rating_body"), domain.RatingMin, domain.RatingMax)
}

// CT returns the crowd study's text for key in lang, English as fallback.
func CT(lang, key string) string {
	if s, ok := crowdTexts[lang][key]; ok {
		return s
	}
	return crowdTexts["en"][key]
}
