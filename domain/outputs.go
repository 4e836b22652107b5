package domain

import (
	"strings"
	"unicode/utf8"
)

// OutputColumns is the header of a model outputs file
// (docs/formats.md): what a generation job writes and an
// explanation-rating study imports.
var OutputColumns = []string{"item_id", "strategy", "model", "output"}

// Output is a model's explanation of a passage's implicit content, to be
// rated by experts; ItemKey is the passage's own id.
type Output struct {
	ID       int64
	StudyID  int64
	ItemKey  string
	Strategy string // e.g. zero-shot, few-shot, chain-of-thought
	Model    string
	Output   string
}

// PassageKeyColumn is the passage file's column holding a passage's own
// id; import errors name it.
const PassageKeyColumn = "IMPAQTS_id"

// Limits on an output's fields.
const (
	maxOutputName = 128
	maxOutputText = 20000
)

// Validate checks an output; the error is a *FieldError named after the
// CSV column. An empty output is valid: "answer not given" rates it.
func (o *Output) Validate() error {
	if err := CheckControls([]NamedValue{{Name: "item_id", V: o.ItemKey}, {Name: "strategy", V: o.Strategy}, {Name: "model", V: o.Model}}, []NamedValue{{Name: "output", V: o.Output}}); err != nil {
		return err
	}
	o.ItemKey = strings.TrimSpace(o.ItemKey)
	o.Strategy = strings.TrimSpace(o.Strategy)
	o.Model = strings.TrimSpace(o.Model)
	o.Output = LineBreaks.Replace(o.Output)
	for _, f := range []NamedValue{{Name: "item_id", V: o.ItemKey}, {Name: "strategy", V: o.Strategy}, {Name: "model", V: o.Model}, {Name: "output", V: o.Output}} {
		// Invalid bytes would be stored, rendered and exported as they
		// are, and come back as U+FFFD from any JSON round trip.
		if !utf8.ValidString(f.V) {
			return FieldErrorf(f.Name, "is not valid UTF-8")
		}
	}
	switch {
	case o.ItemKey == "":
		return FieldErrorf("item_id", "is empty")
	case utf8.RuneCountInString(o.ItemKey) > MaxPassageKey:
		return FieldErrorf("item_id", "is longer than %d characters", MaxPassageKey)
	case o.Strategy == "" || utf8.RuneCountInString(o.Strategy) > maxOutputName || strings.ContainsAny(o.Strategy, "\r\n"):
		return FieldErrorf("strategy", "must be 1–%d characters on one line", maxOutputName)
	case IsPooledName(o.Strategy):
		// The explanation table pools the strategies under "all".
		return FieldErrorf("strategy", "%q is reserved for the pooled rows of the tables (all, overall)", o.Strategy)
	case o.Model == "" || utf8.RuneCountInString(o.Model) > maxOutputName || strings.ContainsAny(o.Model, "\r\n"):
		return FieldErrorf("model", "must be 1–%d characters on one line", maxOutputName)
	case IsPooledName(o.Model):
		// The explanation analysis pools the models under "all".
		return FieldErrorf("model", "%q is reserved for the pooled rows of the tables (all, overall)", o.Model)
	case utf8.RuneCountInString(o.Output) > maxOutputText:
		return FieldErrorf("output", "is longer than %d characters", maxOutputText)
	}
	return nil
}
