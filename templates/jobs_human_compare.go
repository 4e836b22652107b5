package templates

// HumanCompareView is a human-task job beside its own study's humans
// (docs/statistics.md#alt-test and following): the alt-test with its ε
// form, and for a likert job the distributions against the human ceiling,
// the correlation against the split-half ceiling and the calibration; for
// an expert job ΔA.
type HumanCompareView struct {
	// FormAction is the job page; Epsilon the ε in force, EpsilonError a
	// refused value of the form.
	FormAction, Epsilon, EpsilonError string
	DefaultEpsilon, Scoring, Source   string
	// Verdict is the alt-test's verdict ("" when it could not run: Error).
	Verdict  string
	Passed   bool
	Error    string
	Measures []HumanMeasure
	PerHuman []AltHumanRow
	// Thin says why the design is thinner than the test wants.
	Thin        []string
	LatinSquare string
	Notes       []string
	// Distributions: one row per measure (all conditions pooled), with a
	// note on the units (JSD in bits, KL's smoothing).
	Dist     []DistRow
	DistNote string
	// Skill is the headline of the distributions: the model's skill
	// against chance by JSD with its interval and what it is measured
	// against (docs/statistics.md#chance-baselines-and-skill).
	Skill   string
	Figures []FigureLink
	// Correlation, Calibration and Replacement are label–value lists, empty
	// when they do not apply; Errors say what could not be computed.
	Correlation []HumanMeasure
	Calibration []HumanMeasure
	Replacement []HumanMeasure
	Errors      []string
	// Methods are the comparison's methods text, one a language of report.Langs.
	Methods []HumanMeasure
}

// AltHumanRow is one human's test.
type AltHumanRow struct {
	Annotator, Items, PValue, Rejected string
}

// DistRow is one distance: the model's mean beside the chance baselines'
// (uniform, the humans' marginal), the sampling floor and the ceiling;
// the shares of items within the ceiling of the model and of each
// baseline; and the model's skill against chance.
type DistRow struct {
	Measure, Units, Model, Uniform, Marginal, Floor, Ceiling string
	Within, UniformWithin, MarginalWithin, Skill             string
}

// FigureLink is a figure with its SVG, PNG and PDF addresses (Base + ".svg").
type FigureLink struct {
	Title, Base, Alt string
}
