package domain

// ScreeningFilter is one filter of a crowd study's screening on Prolific
// (docs/prolific.md#screening): a select filter with Prolific's choice ids
// (Values) and their text as the researcher named them (Labels), or a
// range filter (Range true) with its bounds.
type ScreeningFilter struct {
	FilterID     string
	Title        string
	Values       []string
	Labels       []string
	Range        bool
	Lower, Upper float64
}
