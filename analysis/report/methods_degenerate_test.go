package report

import (
	"bytes"
	"pragmalab/analysis"
	"pragmalab/analysis/agreement"
	"pragmalab/analysis/contextsurvey"
	"pragmalab/analysis/internal/atest"
	"pragmalab/analysis/modelhuman"
	"pragmalab/analysis/plan"
	"pragmalab/analysis/toplines"
	"pragmalab/domain"
	"regexp"
	"strings"
	"testing"
)

// badProse is what a methods paragraph must never say: a singular count
// with a plural noun, "undefined" as a number, or a JSON key.
var badProse = regexp.MustCompile(`\b1 (participants|items|experts|judgements|passages|surveys|ratings|rows|partecipanti|esperti|giudizi|passaggi|questionari|righe)\b|undefined|non definit|\w_\w|by_type|\b(surveys|overall)\.\w|\bdei 1\b|\bsui 1\b|\bper il 8`)

func checkProse(t *testing.T, what string, m *Methods, want ...string) {
	t.Helper()
	text := strings.Join(m.Paragraphs, "\n\n")
	if bad := badProse.FindString(text); bad != "" {
		t.Errorf("%s (%s) says %q:\n%s", what, m.Lang, bad, text)
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s (%s) lacks %q:\n%s", what, m.Lang, w, text)
		}
	}
}

func readRatingsT(t *testing.T, csv string) *toplines.Ratings {
	t.Helper()
	rs, err := toplines.ReadRatings(strings.NewReader(atest.RatingsHeader + csv))
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// syntheticRatingsT reads WriteSyntheticRatings' rows.
func syntheticRatingsT(t *testing.T, rows, participants int, seed uint64) *toplines.Ratings {
	t.Helper()
	var buf bytes.Buffer
	if err := plan.WriteSyntheticRatings(&buf, rows, participants, seed); err != nil {
		t.Fatal(err)
	}
	rs, err := toplines.ReadRatings(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func TestToplinesMethodsDegenerate(t *testing.T) {
	// One participant, who answered only attention checks.
	top := toplines.ComputeToplines(readRatingsT(t, "p1,B,c1,,trigger,6,high\n"), toplines.DefaultOptions())
	checkProse(t, "checks only", ToplinesMethods(top, 1, English), "Of 1 participant, none was excluded", "1 participant gave only attention-check ratings",
		"No participant could be analysed (1 row read")
	checkProse(t, "checks only", ToplinesMethods(top, 1, Italian), "Su 1 partecipante, nessuno è stato escluso", "1 partecipante ha risposto solo ai controlli",
		"Nessun partecipante è stato analizzato (1 riga letta")

	// No participant at all.
	empty := &toplines.Toplines{ByType: map[string]*toplines.TypeToplines{}}
	checkProse(t, "empty", ToplinesMethods(empty, 0, English), "No participant gave a rating")
	checkProse(t, "empty", ToplinesMethods(empty, 0, Italian), "Nessun partecipante ha dato un giudizio")

	// One analysed participant, items only without cancellation: no
	// cancellation recognition, no correlation.
	one := toplines.ComputeToplines(readRatingsT(t, "p1,B,s1,scalar,trigger,6,\np1,B,s2,scalar,trigger,2,\np2,B,s1,scalar,trigger,4,\np2,B,s2,scalar,trigger,4,\n"),
		toplines.Options{HighPass: 5, LowPass: 3, MaxFailed: 3, Bootstrap: analysis.Bootstrap{Replicates: 0}})
	checkProse(t, "no cancel", ToplinesMethods(one, 4, English), "1 participant gave the same rating to every item", "1 participant was analysed",
		"Of the 2 items,", "for 50 % of the 2 rated without cancellation", "none was rated in both conditions, so cancellation recognition and belief update could not be computed",
		"correlation of item means without and with cancellation could not be computed", "there were 0)", "No intervals were computed.")
	checkProse(t, "no cancel", ToplinesMethods(one, 4, Italian), "È stato analizzato 1 partecipante", "Dei 2 item,", "per il 50 % dei 2 giudicati senza cancellazione",
		"nessuno è stato giudicato in entrambe le condizioni", "non è calcolabile", "Non sono stati calcolati intervalli.")

	// The same rounding as the table: 0.925 is 0.93 there and 93 % here.
	share := 0.925
	tl := &toplines.Toplines{Participants: toplines.ParticipantSummary{Total: 5, Analysed: 5}, Settings: toplines.Settings{HighPass: 5, LowPass: 3, MaxFailed: 3},
		ByType: map[string]*toplines.TypeToplines{domain.TypeAll: {Items: 40, ImplicatureRecognition: &share, LeftOut: map[string]int{}}}}
	if got := Text(&share); got != "0.93" {
		t.Fatalf("table cell %q", got)
	}
	checkProse(t, "rounding", ToplinesMethods(tl, 200, English), "for 93 % of the 40 rated")
	checkProse(t, "rounding", ToplinesMethods(tl, 200, Italian), "per il 93 % dei 40 giudicati")
	share = 0.8
	checkProse(t, "elision", ToplinesMethods(tl, 200, Italian), "per l'80 % dei 40")
}

func TestAgreementMethodsDegenerate(t *testing.T) {
	read := func(csv string) []agreement.Judgement {
		js, err := agreement.ReadJudgements(strings.NewReader("annotator_id,item_id,item_type,plausible,cancellation_correct\n" + csv))
		if err != nil {
			t.Fatal(err)
		}
		return js
	}
	single := read("a,i1,scalar,yes,yes\n")
	a := agreement.ComputeAgreementWith(single, analysis.Bootstrap{})
	checkProse(t, "one expert", AgreementMethods(a, 1, English), "1 expert (a) gave 1 judgement.", "With a single expert, agreement cannot be measured.")
	checkProse(t, "one expert", AgreementMethods(a, 1, Italian), "1 esperto (a) ha dato 1 giudizio.", "Con un solo esperto l'accordo non è misurabile.")

	// Two experts saying yes to everything: κ has chance agreement 1; no
	// cancellation item was answered by both.
	same := read("a,i1,scalar,yes,\nb,i1,scalar,yes,\na,i2,natural,yes,\nb,i2,natural,yes,\n")
	a = agreement.ComputeAgreementWith(same, analysis.Bootstrap{})
	checkProse(t, "all yes", AgreementMethods(a, 4, English), "2 experts (a, b) gave 4 judgements.", "raw agreement = 1.00 over 2 item pairs",
		"Cohen's κ and Krippendorff's α (nominal) could not be computed", "On the correctness of the cancellation (items both experts of a pair found plausible and answered), no item was judged by two experts",
		"No intervals were computed. The same coefficients are reported per item type.")
	checkProse(t, "all yes", AgreementMethods(a, 4, Italian), "2 esperti (a, b) hanno dato 4 giudizi.", "l'accordo osservato = 1,00 su 2 coppie di giudizi",
		"Il κ di Cohen e l'α di Krippendorff (nominale) non sono calcolabili", "nessun item è stato giudicato da due esperti")
}

func TestContextAndExplanationsMethodsDegenerate(t *testing.T) {
	as, err := contextsurvey.ReadContextAnswers(strings.NewReader("annotator_id,survey_id,item_id,kind,period,sentences,sufficient\ne1,S1,i1,Impl,p,2,yes\n"))
	if err != nil {
		t.Fatal(err)
	}
	c := contextsurvey.ComputeContextWith(as, analysis.Bootstrap{})
	checkProse(t, "one answer", ContextMethods(c, English), "Experts gave 1 final answer on 1 passage in 1 survey", "could not be computed",
		"No passage had two or more answers, so consensus could not be measured.", "With no added sentence, 0 % of the judgements")
	checkProse(t, "one answer", ContextMethods(c, Italian), "Gli esperti hanno dato 1 risposta finale su 1 passaggio in 1 questionario", "non sono calcolabili",
		"Nessun passaggio ha avuto due o più risposte", "Senza frasi aggiunte, lo 0 %")

	rs, err := modelhuman.ReadExplanationRatings(strings.NewReader("annotator_id,item_id,kind,strategy,judgment\ne1,i1,Impl,zero-shot,totally_correct\n"))
	if err != nil {
		t.Fatal(err)
	}
	e := modelhuman.ComputeExplanations(rs)
	checkProse(t, "one rating", ExplanationsMethods(e, 1, English), "Experts gave 1 rating of model explanations", "100 % (95 % CI 21–100 %) of the explanations were acceptable overall.")
	checkProse(t, "one rating", ExplanationsMethods(e, 1, Italian), "Gli esperti hanno dato 1 giudizio", "il 100 % (IC 95 % 21–100 %) delle spiegazioni.")
}
