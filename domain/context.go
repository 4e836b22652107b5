package domain

import (
	"strings"
	"unicode/utf8"
)

// The value types of the IMPAQTS studies' passages and of context-expansion
// surveys (docs/studies.md#context-design).

// Passage kinds (the tag_simpl_IMPAQTS-PID column of IMPAQTS-PID).
const (
	PassageImpl = "Impl" // implicature
	PassagePpp  = "Ppp"  // presupposition
)

// Periods of the IMPAQTS corpus, named as in docs/items.md#periods.
const (
	Period1946 = "1946–1972"
	Period1973 = "1973–1993"
	Period1994 = "1994–2023"
)

// Length limits for passage fields: generous for real speeches, small
// enough that a malformed file cannot make one field swallow the database.
const (
	MaxPassageKey  = 64
	maxPassageTag  = 64
	maxPassageSrc  = 128
	maxPassageText = 32 << 10
	maxPassageExpl = 8 << 10
)

// Passage is an IMPAQTS-style passage item (docs/items.md#passage-items): a
// passage of a political speech whose last sentence (the target) carries an
// implicit content, with the annotators' explanation and the multiple-choice
// options.
type Passage struct {
	ID          int64    // row id in the database; 0 before it is stored
	StudyID     int64    // the study it belongs to; 0 before it is stored
	Key         string   // the passage's own id in the file (IMPAQTS_id)
	Tag         string   // fine tag, e.g. Impl_cvrs, Ppp_rel
	Kind        string   // PassageImpl or PassagePpp
	Source      string   // speech file id, e.g. ADGA46-A1.xmi
	Period      string   // one of the Period constants, or "" when unknown
	Text        string   // the passage as published
	Sentences   []string // Text split into sentences; the target is the last
	Explanation string   // the implicit content as the annotators wrote it
	Topic       int      // topic cluster of the distractors; -1 = residual cluster
	Options     [4]string
	Answer      string // "A".."D", or "" when the passage has no options
}

// Target returns the passage's target sentence (its last).
func (p Passage) Target() string {
	if len(p.Sentences) == 0 {
		return ""
	}
	return p.Sentences[len(p.Sentences)-1]
}

// HasOptions reports whether the passage carries a multiple-choice task.
func (p Passage) HasOptions() bool {
	for _, o := range p.Options {
		if o != "" {
			return true
		}
	}
	return false
}

// Validate checks a passage's domain rules; the error names the field.
func (p Passage) Validate() error {
	texts := []NamedValue{{Name: "text", V: p.Text}, {Name: "right_answer", V: p.Explanation}}
	for _, o := range p.Options {
		texts = append(texts, NamedValue{Name: "MCs", V: o})
	}
	if err := CheckControls([]NamedValue{{Name: "IMPAQTS_id", V: p.Key}, {Name: "IMPAQTS_Implicit_content_tag", V: p.Tag}, {Name: "IMPAQTS_file", V: p.Source}, {Name: "right_answer_id", V: p.Answer}}, texts); err != nil {
		return err
	}
	if err := p.validateLabels(); err != nil {
		return err
	}
	if err := p.validateTexts(); err != nil {
		return err
	}
	return p.validateOptions()
}

// validateLabels checks what names and classifies the passage: its key,
// kind, tag, source file and period.
func (p Passage) validateLabels() error {
	switch {
	case strings.TrimSpace(p.Key) == "":
		return FieldErrorf("IMPAQTS_id", "is empty")
	case utf8.RuneCountInString(p.Key) > MaxPassageKey:
		return FieldErrorf("IMPAQTS_id", "is longer than %d characters", MaxPassageKey)
	case p.Kind != PassageImpl && p.Kind != PassagePpp:
		return FieldErrorf("tag_simpl_IMPAQTS-PID", "kind %q is neither %q nor %q", p.Kind, PassageImpl, PassagePpp)
	case utf8.RuneCountInString(p.Tag) > maxPassageTag:
		return FieldErrorf("IMPAQTS_Implicit_content_tag", "is longer than %d characters", maxPassageTag)
	case utf8.RuneCountInString(p.Source) > maxPassageSrc:
		return FieldErrorf("IMPAQTS_file", "is longer than %d characters", maxPassageSrc)
	case p.Period != "" && p.Period != Period1946 && p.Period != Period1973 && p.Period != Period1994:
		return FieldErrorf("period", "%q is not one of %s, %s, %s", p.Period, Period1946, Period1973, Period1994)
	}
	return nil
}

// validateTexts checks what a participant reads: the passage, its
// sentences and the explanation of its implicit content.
func (p Passage) validateTexts() error {
	switch {
	case strings.TrimSpace(p.Text) == "":
		return FieldErrorf("text", "is empty")
	case len(p.Text) > maxPassageText:
		return FieldErrorf("text", "is longer than %d bytes", maxPassageText)
	case len(p.Sentences) == 0:
		return FieldErrorf("text", "has no sentence")
	case strings.TrimSpace(p.Explanation) == "":
		return FieldErrorf("right_answer", "(the explanation of the implicit content) is empty")
	case len(p.Explanation) > maxPassageExpl:
		return FieldErrorf("right_answer", "is longer than %d bytes", maxPassageExpl)
	}
	return nil
}

func (p Passage) validateOptions() error {
	if !p.HasOptions() {
		if p.Answer != "" {
			return FieldErrorf("right_answer_id", "answer %q given but the passage has no options", p.Answer)
		}
		return nil
	}
	for i, o := range p.Options {
		if strings.TrimSpace(o) == "" {
			return FieldErrorf("MCs", "option %c is empty", 'A'+i)
		}
		if len(o) > maxPassageExpl {
			return FieldErrorf("MCs", "option %c is longer than %d bytes", 'A'+i, maxPassageExpl)
		}
	}
	if len(p.Answer) != 1 || p.Answer[0] < 'A' || p.Answer[0] > 'D' {
		return FieldErrorf("right_answer_id", "%q is not a letter A–D", p.Answer)
	}
	return nil
}

// PeriodOfSource derives the period from a speech file id such as
// "ADGA46-A1.xmi" or "MaMAR18-C2.xmi": the two digits just before the first
// "-" are the year (46–99 → 19xx, 00–45 → 20xx). It returns "" when the id
// carries no such year or the year lies outside 1946–2023.
func PeriodOfSource(source string) string {
	dash := strings.IndexByte(source, '-')
	if dash < 2 {
		return ""
	}
	d1, d2 := source[dash-2], source[dash-1]
	if d1 < '0' || d1 > '9' || d2 < '0' || d2 > '9' {
		return ""
	}
	yy := int(d1-'0')*10 + int(d2-'0')
	year := 2000 + yy
	if yy >= 46 {
		year = 1900 + yy
	}
	return PeriodOfYear(year)
}

// PeriodOfYear maps a year to its period, or "" outside 1946–2023.
func PeriodOfYear(year int) string {
	switch {
	case year >= 1946 && year <= 1972:
		return Period1946
	case year >= 1973 && year <= 1993:
		return Period1973
	case year >= 1994 && year <= 2023:
		return Period1994
	}
	return ""
}

// NormalizePeriod reads an explicit period value: one of the three periods
// written with an en dash or a hyphen, or a four-digit year.
func NormalizePeriod(s string) (string, bool) {
	s = strings.TrimSpace(s)
	for _, p := range []string{Period1946, Period1973, Period1994} {
		if s == p || s == strings.Replace(p, "–", "-", 1) {
			return p, true
		}
	}
	if len(s) == 4 {
		year := 0
		for _, c := range s {
			if c < '0' || c > '9' {
				return "", false
			}
			year = year*10 + int(c-'0')
		}
		if p := PeriodOfYear(year); p != "" {
			return p, true
		}
	}
	return "", false
}

// ContextSettings are the options of a context-expansion study
// (docs/studies.md#context-design).
type ContextSettings struct {
	Surveys          int `json:"surveys"`            // number of surveys
	PerSurvey        int `json:"per_survey"`         // passages per survey
	ExpertsPerSurvey int `json:"experts_per_survey"` // experts answering each survey
	MaxSentences     int `json:"max_sentences"`      // preceding sentences that may be revealed
	// Report says what the data could not fill when the surveys were last
	// built (contextsurvey.SurveyPlan.Shortfall); empty when balanced.
	Report []string `json:"report,omitempty"`
}

// DefaultContextSettings are the paper's: 3 surveys of 42, 3 experts each,
// up to 5 added sentences.
func DefaultContextSettings() ContextSettings {
	return ContextSettings{Surveys: 3, PerSurvey: 42, ExpertsPerSurvey: 3, MaxSentences: 5}
}

// MaxContextSentences is the most preceding sentences a question reveals.
const MaxContextSentences = 5

// Validate checks the settings.
func (s ContextSettings) Validate() error {
	switch {
	case s.Surveys < 1 || s.Surveys > 100:
		return Errorf(EINVALID, "the number of surveys must be 1–100")
	case s.PerSurvey < 1 || s.PerSurvey > 1000:
		return Errorf(EINVALID, "passages per survey must be 1–1000")
	case s.ExpertsPerSurvey < 1 || s.ExpertsPerSurvey > 100:
		return Errorf(EINVALID, "experts per survey must be 1–100")
	case s.MaxSentences < 1 || s.MaxSentences > MaxContextSentences:
		return Errorf(EINVALID, "added sentences must be 1–%d", MaxContextSentences)
	}
	return nil
}

// ContextSurvey is a survey of a context study with its progress.
type ContextSurvey struct {
	ID       int64
	StudyID  int64
	Number   int
	Size     int
	Experts  int // experts assigned
	Finished int // experts who answered every question
}

// ContextAssignment is one expert's survey with progress.
type ContextAssignment struct {
	ID           int64
	AnnotatorID  int64
	Annotator    string
	SurveyID     int64
	SurveyNumber int
	Total        int
	Answered     int // questions with a final answer
}

// Done reports whether every question has a final answer.
func (a ContextAssignment) Done() bool { return a.Total > 0 && a.Answered >= a.Total }

// ContextQuestion is one question of a survey with the expert's state on it.
type ContextQuestion struct {
	Position   int
	Passage    Passage
	Shown      int    // preceding sentences revealed
	Sufficient string // "" while open, "yes" or "no" once final
}

// MaxShown is how many preceding sentences this question can reveal: the
// study's limit, or fewer when the passage has fewer before its target.
func (q ContextQuestion) MaxShown(limit int) int {
	return min(limit, max(len(q.Passage.Sentences)-1, 0))
}

// Final reports whether the question has a final answer.
func (q ContextQuestion) Final() bool { return q.Sufficient != "" }

// Context actions an expert can take on a question.
const (
	ContextSufficient = "sufficient" // the context shown is enough: final
	ContextMore       = "more"       // more context needed: reveal one more, or final "no" at the limit
	ContextRestart    = "restart"    // start the question again from the target alone
)
