package templates

import "pragmalab/i18n"

// Example is a worked example shown before the first item of a type.
type Example = i18n.Example

// TypeGuide is the instructions and worked examples for one item type.
type TypeGuide = i18n.Guide

// Definitions returns the two definitions of the expert landing page.
func Definitions(lang string) [2]string {
	a, _ := catalogs.Text(lang, "expert.definition_implicature")
	b, _ := catalogs.Text(lang, "expert.definition_cancellation")
	return [2]string{a, b}
}

// Guide returns the instructions for an item type; English is used where a
// language has none of its own.
func Guide(lang, itemType string) TypeGuide { return catalogs.Guide(lang, itemType) }
