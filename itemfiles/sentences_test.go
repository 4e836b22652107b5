package itemfiles

import (
	"os"
	"pragmalab/domain"
	"reflect"
	"strings"
	"testing"
)

func TestSplitSentencesHardCases(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"plain", "Primo punto. Secondo punto! Terzo? Quarto.",
			[]string{"Primo punto.", "Secondo punto!", "Terzo?", "Quarto."}},
		{"honorific on.", "Ha parlato l'on. Moro. Poi Fanfani.",
			[]string{"Ha parlato l'on. Moro.", "Poi Fanfani."}},
		{"art. and n. before numbers", "Lo dice l'art. 87 della Costituzione e la legge n. 240 del 2010. Basta.",
			[]string{"Lo dice l'art. 87 della Costituzione e la legge n. 240 del 2010.", "Basta."}},
		{"Sig. before a name", "Il Sig. Rossi è qui. Benvenuto.",
			[]string{"Il Sig. Rossi è qui.", "Benvenuto."}},
		{"ecc. ends a sentence before a capital", "Pane, vino, olio ecc. Poi parliamo del resto.",
			[]string{"Pane, vino, olio ecc.", "Poi parliamo del resto."}},
		{"ecc. inside a sentence", "Pane, vino ecc. sono beni primari.",
			[]string{"Pane, vino ecc. sono beni primari."}},
		{"initial", "Lo scrisse A. Moro nel 1977. Lo ricordo.",
			[]string{"Lo scrisse A. Moro nel 1977.", "Lo ricordo."}},
		{"dotted abbreviation", "Il d.P.R. 616 lo prevede. Andiamo avanti.",
			[]string{"Il d.P.R. 616 lo prevede.", "Andiamo avanti."}},
		{"numbers with points", "Sono 1.000 euro e il 3.5 per cento. 170 mila disoccupati.",
			[]string{"Sono 1.000 euro e il 3.5 per cento.", "170 mila disoccupati."}},
		{"year then capital", "Era il 1996. Poi vennero gli altri.",
			[]string{"Era il 1996.", "Poi vennero gli altri."}},
		{"straight quotes, period outside", `Ho detto: "sono invidioso". E allora parlo.`,
			[]string{`Ho detto: "sono invidioso".`, "E allora parlo."}},
		{"exclamation after closing quote", `Rispondiamo: "combatteremo"! E lo faremo.`,
			[]string{`Rispondiamo: "combatteremo"!`, "E lo faremo."}},
		{"guillemets then period", "Scrive: «Caro senatore, la questione è aperta (...)». Era inverno.",
			[]string{"Scrive: «Caro senatore, la questione è aperta (...)».", "Era inverno."}},
		{"curly quotes spanning sentences", "Disse: “Basta così. A domani”. Poi uscì.",
			[]string{"Disse: “Basta così.", "A domani”.", "Poi uscì."}},
		{"ellipsis char before capital", "Non è successo neanche questo… Presidente, ho detto “irrilevanza”!",
			[]string{"Non è successo neanche questo…", "Presidente, ho detto “irrilevanza”!"}},
		{"ellipsis before lowercase continues", "Ce l’ho…io ce l’ho in mente, eh? E allora?",
			[]string{"Ce l’ho…io ce l’ho in mente, eh?", "E allora?"}},
		{"three dots", "Il fatto che... Beh, insomma, basta.",
			[]string{"Il fatto che...", "Beh, insomma, basta."}},
		{"question then lowercase", "Perché? perché lo dico io.",
			[]string{"Perché? perché lo dico io."}},
		{"sentence opening with a quote", `Lo disse. «Mai più» fu la risposta.`,
			[]string{"Lo disse.", "«Mai più» fu la risposta."}},
		{"accented capital", "Lo so. È vero.", []string{"Lo so.", "È vero."}},
		{"no final punctuation", "Una frase. Un'altra senza punto",
			[]string{"Una frase.", "Un'altra senza punto"}},
		{"newline inside", "Prima riga.\nSeconda riga.", []string{"Prima riga.", "Seconda riga."}},
		{"empty", "  ", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SplitSentences(tt.text)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("SplitSentences(%q)\n got %q\nwant %q", tt.text, got, tt.want)
			}
		})
	}
}

// TestSplitSentencesWholeSample checks every passage of the real sample:
// at least one sentence, the sentences give the text back, the target is the
// passage's last sentence, and nearly all passages come out as the corpus
// built them (the tagged sentence plus the four before it).
func TestSplitSentencesWholeSample(t *testing.T) {
	ps := mustParseSample(t)
	five := 0
	for _, p := range ps {
		if len(p.Sentences) == 0 {
			t.Errorf("passage %s: no sentence", p.Key)
			continue
		}
		if got, want := squash(strings.Join(p.Sentences, " ")), squash(p.Text); got != want {
			t.Errorf("passage %s: sentences do not join back to the text\n got %q\nwant %q", p.Key, got, want)
		}
		if !strings.HasSuffix(p.Text, p.Target()) || p.Target() != p.Sentences[len(p.Sentences)-1] {
			t.Errorf("passage %s: target %q is not the passage's last sentence", p.Key, p.Target())
		}
		for i, s := range p.Sentences {
			if s != strings.TrimSpace(s) || s == "" {
				t.Errorf("passage %s sentence %d: %q is empty or untrimmed", p.Key, i, s)
			}
		}
		if len(p.Sentences) == 5 {
			five++
		}
	}
	// 117 of 130 at the time of writing; the others open a speech (fewer
	// sentences before the target) or hold a hesitation "...".
	if five*100 < len(ps)*85 {
		t.Errorf("only %d of %d passages split into 5 sentences (target + 4 before it); want ≥ 85%%", five, len(ps))
	}
	// Spot checks on known passages.
	byKey := map[string]domain.Passage{}
	for _, p := range ps {
		byKey[p.Key] = p
	}
	if got := byKey["22185"].Target(); got != "Noi non abbiamo svenduto i nostri ideali e i nostri valori." {
		t.Errorf("target of 22185 = %q", got)
	}
	if got := byKey["14972"].Sentences[3]; !strings.HasSuffix(got, "un’interlocuzione (...)».") {
		t.Errorf("sentence 4 of 14972 = %q, want it to end with the closing guillemet", got)
	}
}

func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

func mustParseSample(t testing.TB) []domain.Passage {
	t.Helper()
	f, err := os.Open("testdata/impaqts-pid-sample.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ps, err := ParsePassagesTSV(f)
	if err != nil {
		t.Fatalf("ParsePassagesTSV(sample): %v", err)
	}
	return ps
}
