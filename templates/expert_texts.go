package templates

// Example is a worked example shown before the first item of a type.
type Example struct {
	Context, Utterance, Implicature, Cancellation string
	Plausible, CancellationCorrect                string
	Why                                           string
}

// TypeGuide is the instructions and worked examples for one item type.
type TypeGuide struct {
	Title        string
	Instructions string
	Examples     []Example
}

// definitions are shown on the expert landing page.
var definitions = map[string][2]string{
	"en": {
		"An implicature is a belief b that a hearer draws from what a speaker said, beyond its literal meaning: \"Some of the students passed\" implies that not all of them did. The speaker never said it, yet a cooperative hearer infers it.",
		"A cancellation is a follow-up utterance by the same speaker that withdraws the implicature without contradicting what was said: \"Some of the students passed — in fact, all of them did.\" After a correct cancellation the belief b is no longer likely, and the conversation is still coherent.",
	},
	"it": {
		"Un'implicatura è una credenza b che chi ascolta ricava da ciò che il parlante ha detto, oltre il significato letterale: \"Alcuni studenti sono stati promossi\" implica che non tutti lo siano stati. Il parlante non lo dice, ma un ascoltatore cooperativo lo inferisce.",
		"Una cancellazione è un enunciato successivo dello stesso parlante che ritira l'implicatura senza contraddire quanto detto: \"Alcuni studenti sono stati promossi, anzi, tutti.\" Dopo una cancellazione corretta la credenza b non è più probabile e la conversazione resta coerente.",
	},
}

// guides hold per-type instructions; English is used where a language has
// none of its own.
var guides = map[string]map[string]TypeGuide{
	"en": {
		"scalar": {
			Title:        "Scalar items",
			Instructions: "Each item is a single utterance with a weak scalar term (some, most, possible…). The candidate implicature negates the stronger term (not all). Judge whether a typical hearer would draw it, then whether the cancellation withdraws it without contradiction.",
			Examples: []Example{{
				Utterance: "Some of my friends came to the party.", Implicature: "Not all of the speaker's friends came to the party.",
				Cancellation: "Actually, all of them did.", Plausible: "yes", CancellationCorrect: "yes",
				Why: "\"Some\" suggests \"not all\"; \"all of them did\" removes that suggestion and is consistent with \"some\".",
			}},
		},
		"synthetic": {
			Title:        "Constructed two-turn conversations",
			Instructions: "S1 asks or says something, S2 answers indirectly. The implicature is what S1 would conclude from S2's answer. The cancellation is a further sentence by S2. A cancellation that flatly contradicts S2's first answer is not correct.",
			Examples: []Example{{
				Context: "S1: Do you need help with anything?", Utterance: "S2: I think C was looking for someone to do X.",
				Implicature: "You can help by doing X for C.", Cancellation: "S2: Though they must be done by now.",
				Plausible: "yes", CancellationCorrect: "yes",
				Why: "S2's answer suggests helping C; saying C must be done by now makes that help unlikely without taking back what S2 said.",
			}},
		},
		"natural": {
			Title:        "Naturally occurring conversations",
			Instructions: "Excerpts of real telephone conversations (S1, S2), with disfluencies kept. Judge the implicature and the cancellation as for the constructed conversations. For these items you are not asked for alternatives.",
			Examples: []Example{{
				Context: "S1: so do you have any pets?", Utterance: "S2: well we had a dog for about twelve years.",
				Implicature: "S2 no longer has the dog.", Cancellation: "S2: and she's still going strong, believe it or not.",
				Plausible: "yes", CancellationCorrect: "yes",
				Why: "\"We had\" suggests the dog is gone; \"she's still going strong\" cancels it.",
			}},
		},
		"discourse": {
			Title:        "Discourse relations in news text",
			Instructions: "Two adjacent sentences from newspaper text. The implicature is an unstated relation between them, usually a cause or a result. The cancellation is a sentence that says the relation does not hold.",
			Examples: []Example{{
				Context: "The company's shares fell 12% on Monday.", Utterance: "Its chief executive resigned over the weekend.",
				Implicature: "The shares fell because the chief executive resigned.", Cancellation: "The fall had been expected for weeks, after a weak quarterly report.",
				Plausible: "yes", CancellationCorrect: "yes",
				Why: "Juxtaposition suggests a cause; naming another cause withdraws it.",
			}, {
				Context: "It rained all day in Boston.", Utterance: "The city council approved the budget.",
				Implicature: "The budget was approved because it rained.", Cancellation: "The budget was not approved.",
				Plausible: "no", CancellationCorrect: "no",
				Why: "No reader infers that link (implausible), and the \"cancellation\" contradicts what was said.",
			}},
		},
	},
}

// Definitions returns the two definitions of the landing page.
func Definitions(lang string) [2]string {
	if d, ok := definitions[lang]; ok {
		return d
	}
	return definitions["en"]
}

// Guide returns the instructions for an item type.
func Guide(lang, itemType string) TypeGuide {
	if g, ok := guides[lang][itemType]; ok {
		return g
	}
	return guides["en"][itemType]
}
