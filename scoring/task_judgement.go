package scoring

import (
	"fmt"
	"strings"

	"pragmalab/domain"
)

// JudgementItem is a judgement study's item for the likert task
// (docs/items.md#judgement-items): its sentence, and the context shown
// above it, in each of the study's conditions it has.
type JudgementItem struct {
	Key      string
	Variants map[string]JudgementVariant
}

// JudgementVariant is one condition's texts of a JudgementItem.
type JudgementVariant struct {
	Context, Sentence string
}

// BuildJudgementPrompts renders the screen of a judgement study's every
// item in every condition of conds it has, in both orders of the scale:
// the context, the sentence, the study's question, its scale
// (docs/scoring.md#the-humans-own-questions). It asks what the
// participants were asked, on the scale they saw it on.
func BuildJudgementPrompts(items []JudgementItem, conds []string, scale LikertScale, tx HumanTexts) []Prompt {
	sentence := tx.Text("j_label_utterance")
	if sentence == "" || sentence == "j_label_utterance" {
		sentence = tx.Text("label_utterance")
	}
	var out []Prompt
	for _, it := range items {
		for _, c := range conds {
			v, ok := it.Variants[c]
			if !ok {
				continue
			}
			for _, o := range HumanOrders {
				var b strings.Builder
				field(&b, tx.Text("label_context"), v.Context)
				field(&b, sentence, v.Sentence)
				question := scale.Question
				if question == "" {
					question = tx.Text("question")
				}
				fmt.Fprintf(&b, "%s\n", question)
				text := finish(&b, Likert, tx.Lang, scale.Labels, o)
				out = append(out, Prompt{Key: HumanPromptKey(it.Key, c, o), Task: Likert, ItemKey: it.Key,
					Condition: Condition(c), Order: o, Text: text, Points: scale.Points})
			}
		}
	}
	return out
}

// Asks reports whether a human task asks the participants of a study of
// kind: the likert task those of a crowd and of a judgement study, each
// other task its one kind (StudyKind).
func (t Task) Asks(kind string) bool {
	return kind == t.StudyKind() || (t == Likert && kind == domain.KindJudgement)
}
