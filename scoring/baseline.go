package scoring

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
)

// Builtin describes a scorer shipped in the binary that needs no network.
type Builtin struct {
	Name        string
	Description string
	Tasks       []Task
}

// Builtins lists the built-in scorers, for forms and --help.
var Builtins = []Builtin{
	{"always-true", "True/False: P(True) = 1 for every prompt (the majority answer: most implicatures hold).", []Task{TrueFalse}},
	{"constant-0.5", "True/False: P(True) = 0.5 for every prompt (a scorer with no preference; 'P > 0.5' measures come out 0).", []Task{TrueFalse}},
	{"random", "True/False: P(True) drawn uniformly from [0,1]; multiple choice: a letter drawn uniformly from A–D; likert, expert, context, explanation-rating: one option drawn uniformly. Seeded per prompt, so a rerun gives the same answers.", []Task{TrueFalse, MultipleChoice, Likert, Expert, ContextTask, ExplanationRating}},
	{"uniform", "Likert, expert, context, explanation-rating: the same probability for every option (no preference: the chance level of the distributions).", []Task{Likert, Expert, ContextTask, ExplanationRating}},
	{"bleu4", "Multiple choice: the option with the highest smoothed BLEU-4 (BLEU+1) against the target sentence.", []Task{MultipleChoice}},
	{"copy-target", "Generation: the target sentence itself as the explanation (a floor for the explanation-rating study).", []Task{Generation}},
}

// NewBuiltin returns the built-in scorer name for task; seed only matters for
// "random".
func NewBuiltin(name string, task Task, seed uint64) (Scorer, error) {
	i := slices.IndexFunc(Builtins, func(b Builtin) bool { return b.Name == name })
	if i < 0 {
		names := make([]string, len(Builtins))
		for j, b := range Builtins {
			names[j] = b.Name
		}
		return nil, fmt.Errorf("unknown built-in scorer %q (known: %s)", name, strings.Join(names, ", "))
	}
	if !slices.Contains(Builtins[i].Tasks, task) {
		return nil, fmt.Errorf("built-in scorer %s does not do the %s task", name, task)
	}
	return &builtin{name: name, seed: seed}, nil
}

type builtin struct {
	name string
	seed uint64
}

func (b *builtin) Name() string {
	if b.name == "random" {
		return fmt.Sprintf("random (seed %d)", b.seed)
	}
	return b.name
}

// Score answers without looking at anything but the prompt's item; it does
// no I/O, so it only fails on a prompt of a task it does not do.
func (b *builtin) Score(ctx context.Context, p Prompt) (Answer, error) {
	if err := ctx.Err(); err != nil {
		return Answer{}, err
	}
	for _, r := range builtinRules {
		if r.name == b.name && r.task == p.Task && (!r.needsMC || p.MC != nil) {
			return r.answer(b, p), nil
		}
	}
	if IsHumanTask(p.Task) && p.Points > 0 && (b.name == "random" || b.name == "uniform") {
		return b.human(p), nil
	}
	return Answer{}, fmt.Errorf("built-in scorer %s cannot answer prompt %s (task %s)", b.name, p.Key, p.Task)
}

// builtinRule is how one built-in scorer answers one task's prompts;
// needsMC, only prompts that carry their item.
type builtinRule struct {
	name    string
	task    Task
	needsMC bool
	answer  func(b *builtin, p Prompt) Answer
}

// builtinRules are the built-in scorers' answers to the model tasks (the
// human tasks are answered by builtin.human).
var builtinRules = []builtinRule{
	{"always-true", TrueFalse, false, func(*builtin, Prompt) Answer { return Answer{PTrue: 1} }},
	{"constant-0.5", TrueFalse, false, func(*builtin, Prompt) Answer { return Answer{PTrue: 0.5} }},
	{"random", TrueFalse, false, func(b *builtin, p Prompt) Answer { return Answer{PTrue: b.rng(p.Key).Float64()} }},
	{"random", MultipleChoice, false, func(b *builtin, p Prompt) Answer { return Answer{Letter: letters[b.rng(p.Key).IntN(4)]} }},
	{"bleu4", MultipleChoice, true, func(_ *builtin, p Prompt) Answer { return Answer{Letter: BLEUChoice(*p.MC)} }},
	{"copy-target", Generation, true, func(_ *builtin, p Prompt) Answer { return Answer{Reply: p.MC.Target} }},
}

// rng is a generator seeded by the scorer's seed and the prompt key, so an
// answer does not depend on the order prompts are asked in.
func (b *builtin) rng(key string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(key))
	return rand.New(rand.NewPCG(b.seed, h.Sum64()))
}

// BLEUChoice picks the option with the highest BLEU4 against the item's
// target sentence (Text when Target is empty); ties go to the earlier letter.
//
// The reference is the target sentence, not the whole passage: against a
// five-sentence passage the brevity penalty dominates and the baseline just
// picks the longest option (35% on the published sample), while against the
// target sentence it scores 62% on that sample, near the 64% the paper
// reports for its BLEU-4 baseline.
func BLEUChoice(it MCItem) string {
	refText := it.Target
	if refText == "" {
		refText = it.Text
	}
	ref := Tokenize(refText)
	best, bestScore := 0, -1.0
	for i, o := range it.Options {
		if s := BLEU4(Tokenize(StripLetter(o, letters[i])), ref); s > bestScore {
			best, bestScore = i, s
		}
	}
	return letters[best]
}

// human answers a human-task prompt: one option drawn uniformly (random),
// or the same probability for each (uniform, whose Choice is the first).
func (b *builtin) human(p Prompt) Answer {
	d := make([]float64, p.Points)
	if b.name == "uniform" {
		for i := range d {
			d[i] = 1 / float64(len(d))
		}
		return Answer{Dist: d, Choice: 1}
	}
	i := b.rng(p.Key).IntN(len(d))
	d[i] = 1
	return Answer{Dist: d, Choice: i + 1}
}
