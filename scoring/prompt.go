package scoring

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"text/template"

	"pragmalab/domain"
)

// Templates are the prompt templates of a study (Go text/template syntax).
// DefaultTemplates gives ours; a study may edit them.
type Templates struct {
	TrueFalse      string `json:"truefalse"`
	Prior          string `json:"prior"`
	MultipleChoice string `json:"multiplechoice"`
	ZeroShot       string `json:"zero_shot"`
	FewShot        string `json:"few_shot"`
	ChainOfThought string `json:"chain_of_thought"`
}

// MaxTemplateLen bounds each template so a pasted file cannot bloat a study.
const MaxTemplateLen = 20000

// TFData is what the True/False and prior templates see.
// Utterances holds u and, except in the trigger condition, the follow-up
// utterance; each may span several "S1: …" lines.
type TFData struct {
	Context    string
	Utterances []string
	Belief     string
	OptionA    string
	OptionB    string
}

// MCData is what the multiple-choice template sees. Options are the four
// explanations without any "A. " prefix, in letter order.
type MCData struct {
	Text    string
	Target  string
	Options [4]string
}

// GenExample is one worked example of a few-shot prompt.
type GenExample struct {
	Text        string
	Target      string
	Explanation string
}

// GenData is what the generation templates see; Examples is empty except
// for few-shot prompts.
type GenData struct {
	Text     string
	Target   string
	Examples []GenExample
}

const defaultTrueFalse = `Read the conversation and decide whether the statement is true.
{{if .Context}}
Context:
{{.Context}}
{{end}}
Conversation:
{{range .Utterances}}{{.}}
{{end}}
Statement: {{.Belief}}

Question: Given the conversation, is the statement true?
A) {{.OptionA}}
B) {{.OptionB}}
Answer with the letter A or B only.
Answer:`

const defaultPrior = `Decide whether the statement is true.

Statement: {{.Belief}}

Question: Without any context, from your general knowledge alone, is the statement true?
A) {{.OptionA}}
B) {{.OptionB}}
Answer with the letter A or B only.
Answer:`

const defaultMultipleChoice = `The following passage comes from an Italian political speech. Its last sentence is the target sentence, which conveys some implicit content (an implicature or a presupposition).

Passage:
{{.Text}}

Target sentence: "{{.Target}}"

Which explanation best describes the implicit content of the target sentence?
A. {{index .Options 0}}
B. {{index .Options 1}}
C. {{index .Options 2}}
D. {{index .Options 3}}
Answer with the letter A, B, C or D only.
Answer:`

const defaultZeroShot = `The following passage comes from an Italian political speech. Its last sentence is the target sentence, which conveys some implicit content (an implicature or a presupposition).

Passage:
{{.Text}}

Target sentence: "{{.Target}}"

In one sentence, in Italian, state the implicit content of the target sentence.
Explanation:`

const defaultFewShot = `Passages from Italian political speeches. The last sentence of each is the target sentence, which conveys some implicit content (an implicature or a presupposition). For each, state the implicit content in one sentence, in Italian.
{{range .Examples}}
Passage:
{{.Text}}

Target sentence: "{{.Target}}"
Explanation: {{.Explanation}}
{{end}}
Passage:
{{.Text}}

Target sentence: "{{.Target}}"
Explanation:`

const defaultChainOfThought = `The following passage comes from an Italian political speech. Its last sentence is the target sentence, which conveys some implicit content (an implicature or a presupposition).

Passage:
{{.Text}}

Target sentence: "{{.Target}}"

Think step by step: what does the speaker take for granted or suggest without saying it, and what in the passage shows it? Then, on a last line starting with "Explanation:", state the implicit content in one sentence, in Italian.`

// DefaultTemplates returns the templates we wrote.
func DefaultTemplates() Templates {
	return Templates{
		TrueFalse:      defaultTrueFalse,
		Prior:          defaultPrior,
		MultipleChoice: defaultMultipleChoice,
		ZeroShot:       defaultZeroShot,
		FewShot:        defaultFewShot,
		ChainOfThought: defaultChainOfThought,
	}
}

// WithDefaults fills every empty template with ours.
func (t Templates) WithDefaults() Templates {
	d := DefaultTemplates()
	fill := func(s *string, def string) {
		if strings.TrimSpace(*s) == "" {
			*s = def
		}
	}
	fill(&t.TrueFalse, d.TrueFalse)
	fill(&t.Prior, d.Prior)
	fill(&t.MultipleChoice, d.MultipleChoice)
	fill(&t.ZeroShot, d.ZeroShot)
	fill(&t.FewShot, d.FewShot)
	fill(&t.ChainOfThought, d.ChainOfThought)
	return t
}

// compiled holds parsed templates.
type compiled struct {
	tf, prior, mc, zero, few, cot *template.Template
}

// templateField pairs a template's name (as forms and errors show it) with
// its text and a sample value it must render.
type templateField struct {
	name   string
	text   string
	sample any
}

func (t Templates) fields() []templateField {
	tf := TFData{Context: "c", Utterances: []string{"u", "u2"}, Belief: "b", OptionA: "True", OptionB: "False"}
	mc := MCData{Text: "t", Target: "t", Options: [4]string{"a", "b", "c", "d"}}
	gen := GenData{Text: "t", Target: "t", Examples: []GenExample{{"t", "t", "e"}}}
	return []templateField{
		{"truefalse", t.TrueFalse, tf},
		{"prior", t.Prior, tf},
		{"multiplechoice", t.MultipleChoice, mc},
		{"zero_shot", t.ZeroShot, gen},
		{"few_shot", t.FewShot, gen},
		{"chain_of_thought", t.ChainOfThought, gen},
	}
}

// Validate parses every template and renders it on sample data, so a typo
// shows when the template is saved rather than mid-job. The error names the
// template.
func (t Templates) Validate() error {
	_, err := t.compile()
	return err
}

func (t Templates) compile() (*compiled, error) {
	var out []*template.Template
	var errs []error
	for _, f := range t.fields() {
		if err := domain.CheckText("template "+f.name, f.text, MaxTemplateLen, domain.MultiLine); err != nil {
			errs = append(errs, errors.New(domain.ErrorMessage(err)))
			continue
		}
		if len(f.text) > MaxTemplateLen {
			errs = append(errs, fmt.Errorf("template %s: longer than %d characters", f.name, MaxTemplateLen))
			continue
		}
		tp, err := template.New(f.name).Option("missingkey=error").Parse(f.text)
		if err == nil {
			err = tp.Execute(&bytes.Buffer{}, f.sample)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("template %s: %w", f.name, err))
			continue
		}
		out = append(out, tp)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &compiled{tf: out[0], prior: out[1], mc: out[2], zero: out[3], few: out[4], cot: out[5]}, nil
}

func render(t *template.Template, data any) (string, error) {
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return "", err
	}
	return b.String(), nil
}

// TFPromptKey is the key of one True/False prompt.
func TFPromptKey(item string, c Condition, o Order) string {
	return item + "|" + string(c) + "|" + string(o)
}

// BuildTFPrompts renders every True/False prompt for the items: each
// condition the item has, in both option orders. Items lacking an optional
// follow-up simply get no prompt for that condition.
func BuildTFPrompts(items []TFItem, t Templates) ([]Prompt, error) {
	ct, err := t.WithDefaults().compile()
	if err != nil {
		return nil, err
	}
	prompts := make([]Prompt, 0, len(items)*len(Conditions)*len(Orders))
	for _, it := range items {
		for _, c := range Conditions {
			follow, ok := it.followUp(c)
			if !ok {
				continue
			}
			for _, o := range Orders {
				text, err := renderTF(ct, it, c, follow, o)
				if err != nil {
					return nil, fmt.Errorf("item %s, condition %s: %w", it.Key, c, err)
				}
				prompts = append(prompts, Prompt{
					Key: TFPromptKey(it.Key, c, o), Task: TrueFalse, ItemKey: it.Key,
					Condition: c, Order: o, Text: text,
				})
			}
		}
	}
	return prompts, nil
}

func renderTF(ct *compiled, it TFItem, c Condition, follow string, o Order) (string, error) {
	d := TFData{Belief: it.Belief, OptionA: "True", OptionB: "False"}
	if o == FalseFirst {
		d.OptionA, d.OptionB = "False", "True"
	}
	if c == Prior {
		return render(ct.prior, d)
	}
	d.Context = it.Context
	d.Utterances = []string{it.Utterance}
	if follow != "" {
		d.Utterances = append(d.Utterances, follow)
	}
	return render(ct.tf, d)
}

// BuildMCPrompts renders one multiple-choice prompt per item that has four
// options and a gold answer; the others are skipped and counted.
func BuildMCPrompts(items []MCItem, t Templates) (prompts []Prompt, skipped int, err error) {
	ct, err := t.WithDefaults().compile()
	if err != nil {
		return nil, 0, err
	}
	for i := range items {
		it := &items[i]
		if !it.HasOptions() {
			skipped++
			continue
		}
		d := MCData{Text: it.Text, Target: it.Target}
		for j, o := range it.Options {
			d.Options[j] = StripLetter(o, letters[j])
		}
		text, err := render(ct.mc, d)
		if err != nil {
			return nil, 0, fmt.Errorf("item %s: %w", it.Key, err)
		}
		prompts = append(prompts, Prompt{Key: it.Key + "|mc", Task: MultipleChoice, ItemKey: it.Key, Text: text, MC: it})
	}
	return prompts, skipped, nil
}

// FewShotExamples is how many worked examples a few-shot prompt shows.
const FewShotExamples = 4

// BuildGenPrompts renders one generation prompt per item for strategy s.
// Few-shot prompts show the first FewShotExamples items that have an
// explanation (never the item itself), the same examples for every item.
func BuildGenPrompts(items []MCItem, s Strategy, t Templates) ([]Prompt, error) {
	ct, err := t.WithDefaults().compile()
	if err != nil {
		return nil, err
	}
	tp := map[Strategy]*template.Template{ZeroShot: ct.zero, FewShot: ct.few, ChainOfThought: ct.cot}[s]
	if tp == nil {
		return nil, fmt.Errorf("unknown generation strategy %q", s)
	}
	var pool []int
	if s == FewShot {
		for i, it := range items {
			if it.Explanation != "" && len(pool) < FewShotExamples+1 {
				pool = append(pool, i)
			}
		}
		if len(pool) < FewShotExamples {
			return nil, fmt.Errorf("few-shot prompts need %d items with an explanation, the data set has %d", FewShotExamples, len(pool))
		}
	}
	prompts := make([]Prompt, 0, len(items))
	for i := range items {
		it := &items[i]
		d := GenData{Text: it.Text, Target: it.Target}
		for _, j := range pool {
			if j != i && len(d.Examples) < FewShotExamples {
				ex := items[j]
				d.Examples = append(d.Examples, GenExample{Text: ex.Text, Target: ex.Target, Explanation: ex.Explanation})
			}
		}
		text, err := render(tp, d)
		if err != nil {
			return nil, fmt.Errorf("item %s: %w", it.Key, err)
		}
		prompts = append(prompts, Prompt{Key: it.Key + "|" + string(s), Task: Generation, ItemKey: it.Key, Strategy: s, Text: text, MC: it})
	}
	return prompts, nil
}

// StripLetter removes a leading "A. ", "A) " or "(A) " naming letter from an
// option text (the published data writes options as "A. …").
func StripLetter(option, letter string) string {
	s := strings.TrimSpace(option)
	for _, p := range []string{letter + ". ", letter + ") ", "(" + letter + ") ", letter + ": "} {
		if strings.HasPrefix(s, p) {
			return strings.TrimSpace(s[len(p):])
		}
	}
	return s
}

// ExtractExplanation returns the explanation of a generation reply: the text
// after the last "Explanation:" line marker if there is one (chain of
// thought), otherwise the whole reply, trimmed.
func ExtractExplanation(reply string) string {
	low := strings.ToLower(reply)
	if i := strings.LastIndex(low, "explanation:"); i >= 0 {
		return strings.TrimSpace(reply[i+len("explanation:"):])
	}
	return strings.TrimSpace(reply)
}
