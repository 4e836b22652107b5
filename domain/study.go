package domain

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"pragmalab/i18n"
)

// Study kinds (docs/studies.md#common-rules).
const (
	KindExpert  = "expert"
	KindCrowd   = "crowd"
	KindContext = "context"
	KindExplain = "explain"
)

// Study is one study of any kind; Settings hold the kind's own options as
// JSON, decoded by the code of that kind.
type Study struct {
	ID       int64
	Kind     string
	Name     string
	Lang     string
	Settings json.RawMessage
	Seed     int64
	// State is draft, open, paused or closed (docs/studies.md#study-states);
	// participants and experts answer only while it is open.
	State     string
	CreatedAt time.Time
	// ArchivedAt is zero while the study is in use; an archived study is
	// hidden from the dashboard and read-only until restored.
	ArchivedAt time.Time
	// ExportedAt is when a file of its responses was last downloaded.
	ExportedAt time.Time
}

// Archived reports whether the study is archived.
func (s *Study) Archived() bool { return !s.ArchivedAt.IsZero() }

// Study states (docs/studies.md#study-states).
const (
	StateDraft  = "draft"
	StateOpen   = "open"
	StatePaused = "paused"
	StateClosed = "closed"
)

// StudyStates lists the states in their usual order.
var StudyStates = []string{StateDraft, StateOpen, StatePaused, StateClosed}

// IsStudyState reports whether s is one of StudyStates.
func IsStudyState(s string) bool { return slices.Contains(StudyStates, s) }

// Validate checks the fields a researcher types.
func (s *Study) Validate() error {
	switch s.Kind {
	case KindExpert, KindCrowd, KindJudgement, KindContext, KindExplain:
	default:
		return Errorf(EINVALID, "kind must be expert, crowd, judgement, context or explain")
	}
	s.Name = strings.TrimSpace(s.Name)
	if err := CheckStudyName(s.Name); err != nil {
		return err
	}
	if !i18n.Has(s.Lang) {
		return Errorf(EINVALID, "language %q has no message catalog: the language must be one of %s (docs/studies.md, \"Languages\", says how to add one)", s.Lang, strings.Join(i18n.Codes(), ", "))
	}
	if len(s.Settings) == 0 {
		s.Settings = json.RawMessage(`{}`)
	}
	if !json.Valid(s.Settings) {
		return Errorf(EINVALID, "settings are not valid JSON")
	}
	return nil
}

// DecodeSettings fills v from the study's settings JSON; fields absent from
// the JSON keep the defaults v already holds.
func (s *Study) DecodeSettings(v any) error {
	if len(s.Settings) == 0 {
		return nil
	}
	if err := json.Unmarshal(s.Settings, v); err != nil {
		return fmt.Errorf("study %d settings: %w", s.ID, err)
	}
	return nil
}

// CheckStudyName checks a study's name as typed (trimmed): one line of
// 1–200 characters, some of which show (CheckName).
func CheckStudyName(name string) error {
	if name == "" {
		return Errorf(EINVALID, "name must be 1–200 characters")
	}
	return CheckName("name", name, 200)
}
