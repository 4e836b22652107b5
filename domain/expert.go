package domain

import (
	"strings"
)

// The value types of expert validation studies (docs/studies.md#expert-flow):
// the settings, the batches, the invited experts and their answers, as the
// store keeps them and the pages show them.

// ExpertSettings are the options of an expert validation study.
type ExpertSettings struct {
	BatchSize int `json:"batch_size"` // screens per batch, checks included
	Checks    int `json:"checks"`     // attention checks per batch
}

// DefaultExpertSettings are the paper's: 53 screens with 7 checks.
func DefaultExpertSettings() ExpertSettings { return ExpertSettings{BatchSize: 53, Checks: 7} }

// Validate checks the settings.
func (s ExpertSettings) Validate() error {
	if s.BatchSize < 2 || s.BatchSize > 1000 {
		return Errorf(EINVALID, "batch size must be 2–1000")
	}
	if s.Checks < 0 || s.Checks >= s.BatchSize {
		return Errorf(EINVALID, "attention checks must be 0 or more and fewer than the batch size")
	}
	return nil
}

// Batch is a numbered batch of a study.
type Batch struct {
	ID      int64
	StudyID int64
	Number  int
	Size    int
}

// Annotator is an expert invited to a study; Token is the secret of the
// invitation link.
type Annotator struct {
	ID      int64
	StudyID int64
	Name    string
	Token   string
	Pilot   bool // opened with the study's pilot link: kept apart
	// Revoked is set while the expert has no working link (RevokeAnnotator).
	Revoked bool
}

// Assignment is one batch given to one expert, with its progress.
type Assignment struct {
	ID           int64
	AnnotatorID  int64
	Annotator    string
	BatchID      int64
	BatchNumber  int
	Round        int
	Total        int
	Answered     int
	ChecksTotal  int
	ChecksFailed int
}

// Done reports whether every screen has an answer.
func (a Assignment) Done() bool { return a.Total > 0 && a.Answered >= a.Total }

// Judgement is an expert's answer on one screen.
type Judgement struct {
	Plausible           string // yes | no
	CancellationCorrect string // yes | no | "" (not asked once implausible)
	AltImplicature      string
	AltCancellation     string
	// RTms is the browser's response time of the answer, in ms (0: not
	// measured); it is stored, not compared.
	RTms int
	// Integrity is stored with the answer, never validated against it
	// (docs/studies.md#integrity-signals).
	Integrity Integrity
}

// MaxAltLen bounds an alternative typed by an expert.
const MaxAltLen = 2000

// Validate checks a judgement for an item of the given type.
func (j *Judgement) Validate(itemType string) error {
	j.AltImplicature = strings.TrimSpace(j.AltImplicature)
	j.AltCancellation = strings.TrimSpace(j.AltCancellation)
	if j.Plausible != "yes" && j.Plausible != "no" {
		return FieldErrorf("plausible", "please answer whether the implicature is plausible")
	}
	switch j.CancellationCorrect {
	case "yes", "no":
	case "":
		if j.Plausible == "yes" {
			return FieldErrorf("cancellation_correct", "please answer whether the cancellation is correct")
		}
	default:
		return FieldErrorf("cancellation_correct", "answer yes or no")
	}
	for _, f := range []struct{ field, v string }{{"alt_implicature", j.AltImplicature}, {"alt_cancellation", j.AltCancellation}} {
		if err := CheckText("the alternative", f.v, MaxAltLen, MultiLine); err != nil {
			return FieldErrorf(f.field, "%s", ErrorMessage(err))
		}
	}
	// The cancellation is judged only when the implicature is plausible:
	// an answer sent with No (a browser that still shows the question) is
	// not kept.
	if j.Plausible == "no" {
		j.CancellationCorrect = ""
	}
	// Alternatives are only asked where an answer is no, and never for
	// natural items; anything else sent is not kept.
	if itemType == TypeNatural || j.Plausible == "yes" {
		j.AltImplicature = ""
	}
	if itemType == TypeNatural || (j.Plausible == "yes" && j.CancellationCorrect == "yes") {
		j.AltCancellation = ""
	}
	return nil
}

// Screen is one position of an expert's batch with its item and answer.
type Screen struct {
	Position int
	Item     Item
	Answer   *Judgement
}

// Flag is one expert's objection to an item, with the alternatives typed.
type Flag struct {
	Annotator           string
	Plausible           string
	CancellationCorrect string
	AltImplicature      string
	AltCancellation     string
}

// FlaggedItem is a data item that at least one expert judged implausible or
// whose cancellation they judged incorrect.
type FlaggedItem struct {
	Item  Item
	Flags []Flag
}

// Review decisions on a flagged item (docs/studies.md#expert-review).
const (
	ReviewAccepted = "accepted" // an expert's alternative replaces the text
	ReviewOwn      = "own"      // the researcher's own fix replaces it
	ReviewKept     = "kept"     // kept as is
	ReviewDropped  = "dropped"  // dropped from the cleaned data set
)
