// Package domain holds pragmalab's vocabulary — study kinds, item types,
// conditions, the rating scale — its error codes and the domain types
// (studies, items, crowd settings) that every other package shares. It
// imports no other package of the project.
package domain

import (
	"slices"
	"strings"
)

// The item types (docs/items.md#item-types). Every package that names a
// type refers to these.
const (
	TypeScalar    = "scalar"
	TypeSynthetic = "synthetic"
	TypeNatural   = "natural"
	TypeDiscourse = "discourse"
)

// ItemTypes lists the item types in the order of increasing cognitive load
// in which experts see them (docs/studies.md#expert-validation).
var ItemTypes = []string{TypeScalar, TypeSynthetic, TypeNatural, TypeDiscourse}

// TableTypes lists the item types in the order the analysis tables list
// them (docs/statistics.md#conventions), before the pooled row TypeAll.
var TableTypes = []string{TypeScalar, TypeDiscourse, TypeSynthetic, TypeNatural}

// TypeAll names the pooled row of the toplines and agreement tables; no
// item type may take it.
const TypeAll = "all"

// Overall names the row of the context analysis pooling every survey.
const Overall = "overall"

// PooledNames name the pooled rows and columns of the analysis tables
// (docs/statistics.md#conventions): "all" pools the item types,
// strategies, kinds and models, "overall" the context surveys. No item
// type, context survey or period, explanation kind, strategy or model may
// take one, in any case: a row "ALL" beside the pooled "all" reads as the
// same row in a table.
var PooledNames = []string{TypeAll, Overall}

// IsPooledName reports whether s, trimmed, is one of PooledNames in any
// case.
func IsPooledName(s string) bool {
	return slices.ContainsFunc(PooledNames, func(n string) bool { return strings.EqualFold(strings.TrimSpace(s), n) })
}

// IsItemType reports whether t is one of ItemTypes.
func IsItemType(t string) bool { return slices.Contains(ItemTypes, t) }

// The conditions an item is shown in to crowd participants and models
// (docs/items.md#conditions): the trigger utterance alone, or followed by
// the cancellation or one of the three control follow-ups.
const (
	ConditionTrigger    = "trigger"    // c + u
	ConditionCancel     = "cancel"     // c + u + u×
	ConditionNegation   = "negation"   // c + u + u⊥
	ConditionStrengthen = "strengthen" // c + u + u+
	ConditionNeutral    = "neutral"    // c + u + u≈
)

// Conditions lists the conditions in the order of the ratings file.
var Conditions = []string{ConditionTrigger, ConditionCancel, ConditionNegation, ConditionStrengthen, ConditionNeutral}

// IsCondition reports whether c is one of Conditions.
func IsCondition(c string) bool { return slices.Contains(Conditions, c) }

// The statuses of an item: review may drop an item, which then leaves
// batches, exports and scoring (docs/items.md#status-and-revisions).
const (
	ItemActive  = "active"
	ItemDropped = "dropped"
)

// followUpField names, per condition, the item field holding the utterance
// the condition appends to u (the file's column name).
var followUpField = map[string]string{
	ConditionCancel:     "cancellation",
	ConditionNegation:   "negation",
	ConditionStrengthen: "strengthening",
	ConditionNeutral:    "neutral",
}

// FollowUpField is the item field (and file column) whose text condition c
// appends to the utterance; "" for the trigger condition.
func FollowUpField(c string) string { return followUpField[c] }

// FollowUp is the utterance that condition c appends to the item's
// utterance: "" for the trigger condition, and "" when the item lacks the
// optional control text the condition needs (docs/items.md#conditions).
func (it Item) FollowUp(c string) string {
	switch c {
	case ConditionCancel:
		return it.Cancellation
	case ConditionNegation:
		return it.Negation
	case ConditionStrengthen:
		return it.Strengthening
	case ConditionNeutral:
		return it.Neutral
	}
	return ""
}

// The stored answers of yes/no questions (expert judgements, context
// sufficiency), exactly as the exports write them.
const (
	Yes = "yes"
	No  = "no"
)

// The researcher's decisions on a crowd participant; "" follows the
// attention-check rule (docs/studies.md#exclusions).
const (
	OverrideInclude = "include"
	OverrideExclude = "exclude"
)

// The rating scale of crowd participants (docs/studies.md#crowd-design):
// a 1–7 Likert scale, 1 "very unlikely" to 7 "very likely". Every check of
// a rating — the participant pages, the store, the analysis readers —
// uses these bounds.
const (
	RatingMin = 1
	RatingMax = 7
)

// ValidRating reports whether r is on the rating scale.
func ValidRating(r int) bool { return r >= RatingMin && r <= RatingMax }

// MaxRT bounds a browser-measured response time; beyond it (or at or
// below 0) the time is taken as not measured.
const MaxRT = 24 * 60 * 60 * 1000
