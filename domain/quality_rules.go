package domain

// The default thresholds of the data-quality flags and where they come
// from (docs/studies.md#quality-rules-and-their-sources). A flag only marks
// a participant; exclusion by it is a rule each study turns on, and no
// flag about speed is a reason to reject on Prolific.
const (
	// DefaultFastMS: an answer under 2 s per item is fast, the page-time
	// rule of Huang, Curran, Keeney, Poposki & DeShon (2012), validated by
	// Bowling, Huang, Brower & Bragg (2023).
	DefaultFastMS = 2000
	// ExceptionallyFastSD: a participant's total time more than 3 standard
	// deviations below the mean of the completed participants is
	// "exceptionally fast", Prolific's definition.
	ExceptionallyFastSD = 3.0
)
