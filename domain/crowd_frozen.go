package domain

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"strings"
)

// frozenCrowdSettings are the settings of a crowd study that a participant
// sees while rating, or that change what a rating means, by their names in
// the settings JSON (docs/studies.md#frozen-design): once the study has
// opened they stay as they were, so every rating of the study was given
// under one design. The others (quota, time-outs, codes, contact, the
// exclusion rules applied at analysis) may still change.
var frozenCrowdSettings = []struct {
	name string
	of   func(CrowdSettings) any
}{
	{"scale_points", func(s CrowdSettings) any { return s.frozenPoints() }},
	{"scale_labels", func(s CrowdSettings) any { return labelsOf(s.ScaleLabels) }},
	{"question", func(s CrowdSettings) any { return s.Question }},
	{"conditions", func(s CrowdSettings) any { return s.Conditions }},
	{"batch_size", func(s CrowdSettings) any { return s.BatchSize }},
	{"check_high_min", func(s CrowdSettings) any { return s.CheckHighMin }},
	{"check_low_max", func(s CrowdSettings) any { return s.CheckLowMax }},
	{"training", func(s CrowdSettings) any { return s.Training }},
	{"machine_check", func(s CrowdSettings) any { return s.MachineCheck }},
	{"questionnaire", func(s CrowdSettings) any { return s.Questionnaire }},
	{"title", func(s CrowdSettings) any { return s.Title }},
	{"intro", func(s CrowdSettings) any { return s.Intro }},
	{"consent", func(s CrowdSettings) any { return s.Consent }},
}

// FrozenCrowdSettingNames are the names of the settings frozen once a
// crowd study has opened, and "lang", the language of its pages.
func FrozenCrowdSettingNames() []string {
	out := []string{"lang"}
	for _, f := range frozenCrowdSettings {
		out = append(out, f.name)
	}
	return out
}

// frozenPoints is the number of points of the study's scale (0 is read
// as the default 7).
func (s CrowdSettings) frozenPoints() int {
	if s.ScalePoints == 0 {
		return RatingMax
	}
	return s.ScalePoints
}

// labelsOf is a scale's labels with no label and an empty map alike.
func labelsOf(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return maps.Clone(m)
}

// FrozenCrowdChanges names the frozen settings that differ between the
// settings a study opened with (old) and those a save would store (next),
// in the order of FrozenCrowdSettingNames; empty when the save changes
// none of them.
func FrozenCrowdChanges(old, next CrowdSettings) []string {
	var out []string
	for _, f := range frozenCrowdSettings {
		a, b := f.of(old), f.of(next)
		if isEmptySlice(a) && isEmptySlice(b) {
			continue
		}
		if !reflect.DeepEqual(a, b) {
			out = append(out, f.name)
		}
	}
	return out
}

// isEmptySlice says whether v is a nil or empty slice: an empty training
// list and none are the same design.
func isEmptySlice(v any) bool {
	r := reflect.ValueOf(v)
	return r.Kind() == reflect.Slice && r.Len() == 0
}

// DesignFrozen is the cause of ErrFrozenDesign's refusals: errors.Is
// tells a frozen-design refusal from another conflict (the settings form
// then offers a new design version).
var DesignFrozen = errors.New("frozen design")

// ErrFrozenDesign is the refusal of a save that would change the frozen
// settings changed of a study that has opened, naming them and the ways
// forward.
func ErrFrozenDesign(studyID int64, state string, changed []string) error {
	return &Error{Code: ECONFLICT, Err: DesignFrozen, Message: fmt.Sprintf("Study %d has opened (it is %s now): its design is frozen, so that every rating was given under the same one. "+
		"These settings would change what participants see or what a rating means, and were not saved: %s. Nothing was changed. "+
		"To run a changed design, close this study and clone it (the clone starts as a draft with the same settings, items and batches, and no participants), "+
		"or, for a crowd or judgement study, start a new design version, which starts new batches in this study (`pragmalab study version`, or the settings form's button); "+
		"settings that are not frozen (quota, time-outs, codes, contact, exclusion rules) can still be saved.",
		studyID, state, strings.Join(changed, ", "))}
}
