package scoring

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"pragmalab/domain"
)

// The humans' own questions put to models (docs/scoring.md#the-humans-own-questions):
// each task asks what the participants of one kind of study were asked,
// with their texts, in the study's language, with their options. The model
// answers with an option (a letter A/B, or a number on a scale) and its
// answer is kept as a distribution over the options in their canonical
// order — the order of the participants' screen — whatever order the
// prompt listed them in.

// The four tasks.
const (
	Likert            Task = "likert"
	Expert            Task = "expert"
	ContextTask       Task = "context"
	ExplanationRating Task = "explanation-rating"
)

// HumanTasks lists them, in the order --help names them.
var HumanTasks = []Task{Likert, Expert, ContextTask, ExplanationRating}

// IsHumanTask reports whether t is one of HumanTasks.
func IsHumanTask(t Task) bool {
	for _, h := range HumanTasks {
		if t == h {
			return true
		}
	}
	return false
}

// StudyKind is the kind of study whose participants a human task asks as.
func (t Task) StudyKind() string {
	switch t {
	case Likert:
		return domain.KindCrowd
	case Expert:
		return domain.KindExpert
	case ContextTask:
		return domain.KindContext
	case ExplanationRating:
		return domain.KindExplain
	}
	return ""
}

// The two option orders of the human tasks: the options as the participants
// saw them (Forward), and listed the other way round (Reversed) — for a
// scale, its numbers then stand for the opposite ends.
const (
	Forward  Order = "fwd"
	Reversed Order = "rev"
)

// HumanOrders lists both.
var HumanOrders = []Order{Forward, Reversed}

// The questions of the expert task and the answers of the binary tasks, in
// canonical order.
const (
	QPlausible    = "plausible"
	QCancellation = "cancellation"
)

var (
	yesNo          = []string{"yes", "no"}
	sufficientMore = []string{"sufficient", "more"}
)

// OptionLabels are a task's canonical options (likert: the scale's points
// as numbers).
func OptionLabels(t Task, points int) []string {
	switch t {
	case Likert:
		out := make([]string, points)
		for i := range out {
			out[i] = strconv.Itoa(i + 1)
		}
		return out
	case Expert:
		return yesNo
	case ContextTask:
		return sufficientMore
	case ExplanationRating:
		return domain.Judgments
	}
	return nil
}

// numbered reports whether a task's options are answered with a number
// (a scale, the five explanation ratings) rather than a letter.
func numbered(t Task) bool { return t == Likert || t == ExplanationRating }

// HumanTexts are the participant-facing strings a human task's prompts are
// made of, looked up by key in the study's language (the runner reads
// them from the participants' screens, templates/).
type HumanTexts struct {
	Lang string
	Text func(key string) string
}

// instructions are what the model is told beyond the participants' screen:
// how to answer.
var instructions = map[string]map[string]string{
	"en": {"number": "Answer with one number from 1 to %d only.", "letter": "Answer with the letter A or B only.", "answer": "Answer:"},
	"it": {"number": "Rispondi solo con un numero da 1 a %d.", "letter": "Rispondi solo con la lettera A o B.", "answer": "Risposta:"},
}

func instruction(lang, key string) string {
	if m, ok := instructions[lang]; ok {
		return m[key]
	}
	return instructions["en"][key]
}

// HumanPromptKey is the key of one prompt of a human task: the item (for
// explanation-rating the passage), the question or condition, the order.
func HumanPromptKey(item, question string, o Order) string {
	return item + "|" + question + "|" + string(o)
}

// SplitPromptKey splits a key made by HumanPromptKey (or TFPromptKey).
func SplitPromptKey(key string) (item, question string, o Order, ok bool) {
	j := strings.LastIndex(key, "|")
	if j < 0 {
		return "", "", "", false
	}
	i := strings.LastIndex(key[:j], "|")
	if i < 0 {
		return "", "", "", false
	}
	return key[:i], key[i+1 : j], Order(key[j+1:]), true
}

// position maps the option shown at 1-based place p of a prompt in order o
// to its canonical 1-based index, among k options.
func position(p, k int, o Order) int {
	if o == Reversed {
		return k + 1 - p
	}
	return p
}

// optionLines writes the k options in order o, each as "N = label" for a
// numbered task (a scale's unlabelled points are left out, as on the
// participants' screen) or "A) label".
func optionLines(b *strings.Builder, t Task, labels []string, o Order) {
	k := len(labels)
	for p := 1; p <= k; p++ {
		l := labels[position(p, k, o)-1]
		switch {
		case numbered(t) && l == "":
		case numbered(t):
			fmt.Fprintf(b, "%d = %s\n", p, l)
		default:
			fmt.Fprintf(b, "%s) %s\n", letters[p-1], l)
		}
	}
}

// finish writes the options, the answer instruction and the answer cue.
func finish(b *strings.Builder, t Task, lang string, labels []string, o Order) string {
	optionLines(b, t, labels, o)
	if numbered(t) {
		fmt.Fprintf(b, instruction(lang, "number")+"\n", len(labels))
	} else {
		b.WriteString(instruction(lang, "letter") + "\n")
	}
	b.WriteString(instruction(lang, "answer"))
	return b.String()
}

func field(b *strings.Builder, label, text string) {
	if strings.TrimSpace(text) == "" {
		return
	}
	fmt.Fprintf(b, "%s:\n%s\n\n", label, strings.TrimSpace(text))
}

// LikertScale is a crowd study's rating scale: its number of points, the
// label of each (1-based; "" for a point shown as a bare number) and the
// question above it ("": the language's default).
type LikertScale struct {
	Points   int
	Labels   []string
	Question string
}

// BuildLikertPrompts renders the crowd screen of every item in every
// condition of conds the item has, in both orders: context, what was said,
// the question with the statement, the scale.
func BuildLikertPrompts(items []TFItem, conds []Condition, scale LikertScale, tx HumanTexts) []Prompt {
	var out []Prompt
	for _, it := range items {
		for _, c := range conds {
			follow, ok := it.followUp(c)
			if !ok || c == Prior {
				continue
			}
			for _, o := range HumanOrders {
				var b strings.Builder
				field(&b, tx.Text("label_context"), it.Context)
				said := it.Utterance
				if follow != "" {
					said += "\n" + follow
				}
				field(&b, tx.Text("label_utterance"), said)
				question := scale.Question
				if question == "" {
					question = tx.Text("question")
				}
				fmt.Fprintf(&b, "%s %s\n", question, it.Belief)
				text := finish(&b, Likert, tx.Lang, scale.Labels, o)
				out = append(out, Prompt{Key: HumanPromptKey(it.Key, string(c), o), Task: Likert, ItemKey: it.Key,
					Condition: c, Order: o, Text: text, Points: scale.Points})
			}
		}
	}
	return out
}

// BuildExpertPrompts renders the expert form of every item: the two
// definitions of the landing page, the item as the form shows it, and each
// of its two questions, plausibility then cancellation, in both orders of
// yes and no. Both questions are asked of every item so a job needs one
// pass (batch and offline runs included); the form's condition — the
// cancellation is judged only when the implicature is plausible — is
// applied to the answers (AggregateHuman).
func BuildExpertPrompts(items []TFItem, definitions [2]string, tx HumanTexts) []Prompt {
	var out []Prompt
	labels := []string{tx.Text("yes"), tx.Text("no")}
	for _, it := range items {
		for _, q := range []string{QPlausible, QCancellation} {
			for _, o := range HumanOrders {
				var b strings.Builder
				b.WriteString(definitions[0] + "\n" + definitions[1] + "\n\n")
				field(&b, tx.Text("context"), it.Context)
				field(&b, tx.Text("utterance"), it.Utterance)
				field(&b, tx.Text("implicature"), it.Belief)
				field(&b, tx.Text("cancellation"), it.Cancellation)
				key := "plausible_q"
				if q == QCancellation {
					key = "cancellation_q"
				}
				b.WriteString(tx.Text(key) + "\n")
				text := finish(&b, Expert, tx.Lang, labels, o)
				out = append(out, Prompt{Key: HumanPromptKey(it.Key, q, o), Task: Expert, ItemKey: it.Key,
					Condition: Condition(q), Order: o, Text: text, Points: 2})
			}
		}
	}
	return out
}

// ContextStep names the step of a context question that shows n preceding
// sentences.
func ContextStep(n int) string { return "step-" + strconv.Itoa(n) }

// BuildContextPrompts renders every step of the context-expansion question
// of each passage: the target sentence with 0, 1, … up to maxShown
// preceding sentences (fewer when the passage has fewer), its implicit
// content, and the choice between "sufficient" and "more context needed"
// (at the last step, "not sufficient even with all the context"), in both
// orders. The survey's rule — the first "sufficient" ends the question —
// is applied to the answers.
func BuildContextPrompts(ps []MCItem, sentences map[string][]string, maxShown int, tx HumanTexts) []Prompt {
	var out []Prompt
	for _, p := range ps {
		s := sentences[p.Key]
		if len(s) == 0 || strings.TrimSpace(p.Explanation) == "" {
			continue
		}
		limit := min(maxShown, len(s)-1)
		for n := 0; n <= limit; n++ {
			labels := []string{tx.Text("ctx_sufficient"), tx.Text("ctx_more")}
			if n == limit {
				labels[1] = tx.Text("ctx_more_final")
			}
			for _, o := range HumanOrders {
				var b strings.Builder
				if n > 0 {
					field(&b, fmt.Sprintf("%s (%d/%d)", tx.Text("ctx_context"), n, maxShown), strings.Join(s[len(s)-1-n:len(s)-1], "\n"))
				}
				field(&b, tx.Text("ctx_target"), "“"+s[len(s)-1]+"”")
				field(&b, tx.Text("ctx_implicit"), p.Explanation)
				b.WriteString(tx.Text("ctx_legend") + "\n")
				text := finish(&b, ContextTask, tx.Lang, labels, o)
				out = append(out, Prompt{Key: HumanPromptKey(p.Key, ContextStep(n), o), Task: ContextTask, ItemKey: p.Key,
					Condition: Condition(ContextStep(n)), Order: o, Text: text, Points: 2})
			}
		}
	}
	return out
}

// RatedOutput is one model output of an explanation-rating study, the
// screen the experts rate.
type RatedOutput struct {
	ID       int64
	Passage  MCItem
	Sents    []string
	Strategy string
	Model    string
	Output   string
}

// OutputQuestion names the question about one output.
func OutputQuestion(id int64) string { return "output-" + strconv.FormatInt(id, 10) }

// BuildExplanationPrompts renders the rating screen of every output: the
// passage (Text), the annotators' explanation (Human annotation), the
// model's output, and the five answers numbered 1–5, in both orders.
func BuildExplanationPrompts(outs []RatedOutput, tx HumanTexts) []Prompt {
	labels := make([]string, len(domain.Judgments))
	for i := range labels {
		labels[i] = tx.Text(fmt.Sprintf("ex_%d", i+1))
	}
	var out []Prompt
	for _, r := range outs {
		for _, o := range HumanOrders {
			var b strings.Builder
			text := strings.Join(r.Sents, "\n")
			if len(r.Sents) == 0 {
				text = r.Passage.Text
			}
			field(&b, tx.Text("ex_text"), text)
			field(&b, tx.Text("ex_human"), r.Passage.Explanation)
			output := r.Output
			if strings.TrimSpace(output) == "" {
				output = tx.Text("ex_empty")
			}
			field(&b, tx.Text("ex_output"), output)
			b.WriteString(tx.Text("ex_legend") + "\n")
			q := OutputQuestion(r.ID)
			out = append(out, Prompt{Key: HumanPromptKey(r.Passage.Key, q, o), Task: ExplanationRating, ItemKey: r.Passage.Key,
				Condition: Condition(q), Order: o, Text: finish(&b, ExplanationRating, tx.Lang, labels, o), Points: len(labels)})
		}
	}
	return out
}

// humanTokens are the tokens naming a human-task prompt's shown options,
// in the order they are listed: the numbers 1…k, or the letters A and B.
func humanTokens(p Prompt) []string {
	if numbered(p.Task) {
		out := make([]string, p.Points)
		for i := range out {
			out[i] = strconv.Itoa(i + 1)
		}
		return out
	}
	return letters[:2]
}

// humanFromLogprobs turns the merged log-probabilities of the shown
// options' tokens into a distribution over the canonical options,
// renormalised over the options (a token missing from the candidates
// counts as probability 0).
func humanFromLogprobs(p Prompt, lp map[string]float64, top int, began string) (Answer, error) {
	toks := humanTokens(p)
	k := len(toks)
	dist := make([]float64, k)
	best := math.Inf(-1)
	for _, t := range toks {
		if v, ok := lp[t]; ok {
			best = max(best, v)
		}
	}
	if math.IsInf(best, -1) {
		return Answer{}, fmt.Errorf("none of %s among the top %d next tokens (model began %q)", strings.Join(toks, ", "), top, began)
	}
	sum := 0.0
	for i, t := range toks {
		if v, ok := lp[t]; ok {
			e := math.Exp(v - best)
			dist[position(i+1, k, p.Order)-1] = e
			sum += e
		}
	}
	for i := range dist {
		dist[i] /= sum
	}
	return Answer{Dist: dist, Choice: argmax(dist) + 1, Logprobs: lp}, nil
}

// humanFromSamples reads each sampled reply as an option and gives their
// shares among the replies that name one; the others are unparseable,
// kept and counted.
func humanFromSamples(p Prompt, samples []string) (Answer, error) {
	toks := humanTokens(p)
	k := len(toks)
	dist := make([]float64, k)
	parsed := 0
	for _, s := range samples {
		var place int
		if numbered(p.Task) {
			place = ParsePoint(s, k)
		} else {
			place = parseBinary(s, p.Text, toks)
		}
		if place == 0 {
			continue
		}
		dist[position(place, k, p.Order)-1]++
		parsed++
	}
	if parsed == 0 {
		return Answer{}, fmt.Errorf("none of the %d samples names one of the options %s (first: %q)", len(samples), strings.Join(toks, ", "), clipText(samples[0], 80))
	}
	for i := range dist {
		dist[i] /= float64(parsed)
	}
	return Answer{Dist: dist, Choice: argmax(dist) + 1, Samples: samples, Unparsed: len(samples) - parsed}, nil
}

var (
	pointMarkerRe = regexp.MustCompile(`(?i)\b(?:answer|risposta|rating|valutazione|punteggio)\b[^0-9\n]{0,24}?(\d+)`)
	onlyNumberRe  = regexp.MustCompile(`^[\s(\[{*"'“#>]*(\d+)[\s)\]}*"'”.,:;!]*$`)
	numberRe      = regexp.MustCompile(`\d+(?:[.,]\d+)?`)
)

// ParsePoint reads a number 1–k from a sampled reply: after an answer
// marker ("Answer: 5", "Risposta: 3"), or a reply that is only a number,
// or else the one number of the reply standing alone; it returns 0 when
// no rule finds exactly one number in range (several different numbers,
// "5/7" or "3.5" included, make the reply ambiguous).
func ParsePoint(reply string, k int) int {
	in := func(s string) int {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > k {
			return 0
		}
		return n
	}
	found := map[int]bool{}
	for _, m := range pointMarkerRe.FindAllStringSubmatch(reply, -1) {
		if n := in(m[1]); n > 0 {
			found[n] = true
		}
	}
	if len(found) == 1 {
		for n := range found {
			return n
		}
	}
	if len(found) > 1 {
		return 0
	}
	if m := onlyNumberRe.FindStringSubmatch(reply); m != nil {
		return in(m[1])
	}
	nums := numberRe.FindAllString(reply, -1)
	for _, s := range nums {
		n := in(s)
		if n == 0 {
			return 0
		}
		found[n] = true
	}
	if len(found) == 1 {
		for n := range found {
			return n
		}
	}
	return 0
}

// parseBinary reads a reply to a lettered prompt: the letter A or B as
// ParseLetter reads it, or failing that the text of exactly one of the two
// options as the prompt lists them ("Yes", "Sì", "More context is
// needed"), as a whole word or phrase in any case; 0 when neither or both.
func parseBinary(reply, prompt string, toks []string) int {
	if l := ParseLetter(reply, toks); l != Refusal {
		return int(l[0]-'A') + 1
	}
	found := 0
	for i, t := range toks {
		label := ""
		for _, ln := range strings.Split(prompt, "\n") {
			if rest, ok := strings.CutPrefix(ln, t+") "); ok {
				label = strings.TrimSpace(rest)
			}
		}
		if label == "" {
			continue
		}
		if regexp.MustCompile(`(?i)(^|[^\pL])` + regexp.QuoteMeta(label) + `($|[^\pL])`).MatchString(reply) {
			if found != 0 {
				return 0
			}
			found = i + 1
		}
	}
	return found
}

func argmax(d []float64) int {
	best := 0
	for i, v := range d {
		if v > d[best] {
			best = i
		}
	}
	return best
}
