package domain

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// MaxTextLen bounds every text field of an item, in characters.
const MaxTextLen = 5000

// Item is an implicature item (docs/items.md#implicature-items). ID is the
// row id; Key is the item's own id from the imported file.
type Item struct {
	ID            int64  `json:"-"`
	Key           string `json:"id"`
	Type          string `json:"type"`
	Context       string `json:"context"`
	Utterance     string `json:"utterance"`
	Implicature   string `json:"implicature"`
	Cancellation  string `json:"cancellation"`
	Negation      string `json:"negation,omitempty"`
	Strengthening string `json:"strengthening,omitempty"`
	Neutral       string `json:"neutral,omitempty"`
	// Check is "" for a data item, "high" or "low" for an attention check
	// (the answer it expects; for experts a check is always "low").
	Check string `json:"check,omitempty"`
	// Training is "" for a data item, "high" or "low" for a crowd training
	// item and the answer it expects: "high" is shown without its
	// cancellation (rated above 3), "low" with it (rated below 5).
	Training string `json:"training,omitempty"`
	// Variants are a judgement item's texts by condition (type judgement,
	// docs/items.md#judgement-items); nil for an implicature item.
	Variants map[string]Variant `json:"variants,omitempty"`
	Status   string             `json:"-"`
	Version  int                `json:"-"`
	// Decision is the review's decision on a flagged item: "" (none yet),
	// or one of the Review constants.
	Decision string `json:"-"`
}

// IsData reports whether the item is a data item: neither an attention
// check nor a training item.
func (it Item) IsData() bool { return it.Check == "" && it.Training == "" }

// TrainingCondition is the condition a training item is shown in.
func (it Item) TrainingCondition() string {
	if it.Training == "low" {
		return ConditionCancel
	}
	return ConditionTrigger
}

// CheckConditions refuses an item that fills the follow-up text of a
// condition its study does not declare (docs/items.md#conditions): the
// text would be stored but never shown, and the tables would promise a
// measure the study does not run. trigger and cancel are always declared.
func (it Item) CheckConditions(declared []string) error { return it.checkConditions(declared, nil) }

// CheckEditedConditions is CheckConditions for a correction of old: only a
// follow-up text the correction adds or changes is refused, so an item
// stored before its study declared its conditions can still be corrected.
func (it Item) CheckEditedConditions(old Item, declared []string) error {
	return it.checkConditions(declared, &old)
}

func (it Item) checkConditions(declared []string, old *Item) error {
	for _, c := range []string{ConditionNegation, ConditionStrengthen, ConditionNeutral} {
		text := strings.TrimSpace(it.FollowUp(c))
		if text == "" || slices.Contains(declared, c) || (old != nil && text == old.FollowUp(c)) {
			continue
		}
		f := FollowUpField(c)
		return &FieldError{f, fmt.Sprintf("item %q has a %s text, but the study does not declare the condition %s (its conditions: %s); add %s to the study's conditions first, or leave the field empty",
			it.Key, f, c, strings.Join(declared, ", "), c)}
	}
	return nil
}

// FieldError names the field of an item that is wrong.
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return fmt.Sprintf("field %q: %s", e.Field, e.Msg) }

// Validate checks an item; the error is a *FieldError.
func (it *Item) Validate() error {
	if strings.EqualFold(strings.TrimSpace(it.Type), TypeJudgement) {
		return it.validateJudgement()
	}
	if len(it.Variants) > 0 {
		return &FieldError{"condition", "sentences by condition belong to judgement items (type judgement)"}
	}
	texts := []NamedValue{}
	for _, f := range it.TextFields() {
		texts = append(texts, NamedValue{f.Name, *f.V})
	}
	if err := CheckControls([]NamedValue{{"id", it.Key}, {"type", it.Type}, {"check", it.Check}}, texts); err != nil {
		return err
	}
	it.Key = strings.TrimSpace(it.Key)
	it.Type = strings.ToLower(strings.TrimSpace(it.Type))
	it.Check = strings.ToLower(strings.TrimSpace(it.Check))
	it.Training = strings.ToLower(strings.TrimSpace(it.Training))
	if err := it.validateKeyType(); err != nil {
		return err
	}
	if err := it.validateTexts(); err != nil {
		return err
	}
	return it.validateRole()
}

// validateJudgement is Validate for a judgement item: its id, its texts
// by condition and its role (docs/items.md#judgement-items).
func (it *Item) validateJudgement() error {
	if err := CheckControls([]NamedValue{{"id", it.Key}, {"check", it.Check}, {"training", it.Training}}, nil); err != nil {
		return err
	}
	it.Key = strings.TrimSpace(it.Key)
	it.Type = TypeJudgement
	it.Check = strings.ToLower(strings.TrimSpace(it.Check))
	if err := it.validateKey(); err != nil {
		return err
	}
	return it.validateJudgementTexts()
}

// validateKeyType checks the trimmed id and type.
func (it *Item) validateKeyType() error {
	if err := it.validateKey(); err != nil {
		return err
	}
	if IsPooledName(it.Type) {
		return &FieldError{"type", fmt.Sprintf("%q is reserved for the pooled row of the tables (want scalar, discourse, synthetic or natural)", it.Type)}
	}
	if !IsItemType(it.Type) {
		return &FieldError{"type", fmt.Sprintf("unknown type %q (want scalar, discourse, synthetic or natural)", it.Type)}
	}
	return nil
}

// validateKey checks the trimmed id.
func (it *Item) validateKey() error {
	if it.Key == "" {
		return &FieldError{"id", "is empty"}
	}
	if !utf8.ValidString(it.Key) {
		// Like the text fields: a JSON export would turn the bytes into
		// U+FFFD and the item would come back under another id.
		return &FieldError{"id", "is not valid UTF-8"}
	}
	if utf8.RuneCountInString(it.Key) > 100 || strings.ContainsAny(it.Key, "\r\n\t") {
		return &FieldError{"id", "must be at most 100 characters on one line"}
	}
	return nil
}

// validateTexts normalizes the text fields (line breaks, surrounding
// space) and checks their encoding, length and the three required ones.
func (it *Item) validateTexts() error {
	for _, f := range it.TextFields() {
		if !utf8.ValidString(*f.V) {
			return &FieldError{f.Name, "is not valid UTF-8"}
		}
		*f.V = strings.TrimSpace(LineBreaks.Replace(*f.V))
		if utf8.RuneCountInString(*f.V) > MaxTextLen {
			return &FieldError{f.Name, fmt.Sprintf("is longer than %d characters", MaxTextLen)}
		}
	}
	for _, f := range []struct {
		name, v string
	}{{"utterance", it.Utterance}, {"implicature", it.Implicature}, {"cancellation", it.Cancellation}} {
		if f.v == "" {
			return &FieldError{f.name, "is empty"}
		}
	}
	return nil
}

// validateRole checks the item's part in a session: an attention check,
// a training item with its expected answer, or neither.
func (it *Item) validateRole() error {
	switch it.Check {
	case "", "high", "low":
	default:
		return &FieldError{"check", fmt.Sprintf("unknown value %q (want empty, high or low)", it.Check)}
	}
	switch it.Training {
	case "", "high", "low":
	default:
		return &FieldError{"training", fmt.Sprintf("unknown value %q (want empty, or the answer expected: high or low)", it.Training)}
	}
	if it.Training != "" && it.Check != "" {
		return &FieldError{"training", "an item cannot be both a training item and an attention check"}
	}
	return nil
}

// LineBreaks turns CR LF and a lone CR into LF. Replacing CR LF alone
// left "\r\r\n" as "\r\n", which the next export and import changed again.
var LineBreaks = strings.NewReplacer("\r\n", "\n", "\r", "\n")

// NamedField is an item's text field: its name (the file's column) and
// a pointer to its value.
type NamedField struct {
	Name string
	V    *string
}

// TextFields lists the item's text fields in file order.
func (it *Item) TextFields() []NamedField {
	return []NamedField{
		{"context", &it.Context}, {"utterance", &it.Utterance}, {"implicature", &it.Implicature},
		{"cancellation", &it.Cancellation}, {"negation", &it.Negation},
		{"strengthening", &it.Strengthening}, {"neutral", &it.Neutral},
	}
}
