package domain

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// CrowdSettings are the options of a crowd likelihood study
// (docs/studies.md#crowd-settings).
type CrowdSettings struct {
	BatchSize      int `json:"batch_size"`      // items per batch, checks not counted
	Quota          int `json:"quota"`           // participants per batch
	TimeoutMinutes int `json:"timeout_minutes"` // idle time after which a slot is free
	// HoldMinutes is how long a place is held for a participant who has
	// consented but not answered anything yet; past it the place is free
	// as after the time-out (docs/studies.md#no-hoarding).
	HoldMinutes int `json:"hold_minutes"`
	// PlacesPerAddress is how many consented, unfinished places one client
	// address may hold at once; 0 is no limit (a lab room behind one
	// address).
	PlacesPerAddress int `json:"places_per_address"`
	// A high check passes at a rating >= CheckHighMin, a low one at <=
	// CheckLowMax; a participant failing MaxFailedChecks or more is excluded.
	CheckHighMin    int `json:"check_high_min"`
	CheckLowMax     int `json:"check_low_max"`
	MaxFailedChecks int `json:"max_failed_checks"`
	// Data-quality flags (docs/studies.md#data-quality-flags): an answer
	// faster than FastMS counts as fast; each Exclude… rule is off at 0.
	FastMS               int `json:"fast_ms"`
	ExcludeFastPercent   int `json:"exclude_fast_percent"`  // exclude at this share (%) of fast answers or more
	ExcludeMedianRT      int `json:"exclude_median_rt_ms"`  // exclude when the median response time is below (ms)
	ExcludeRun           int `json:"exclude_identical_run"` // exclude at this many identical ratings in a row or more
	ExcludeTotalSeconds  int `json:"exclude_total_below_s"` // exclude when the total time is below (s)
	ExcludeHiddenSeconds int `json:"exclude_hidden_s"`      // exclude when the page was hidden this long or longer in all (s)
	// Conditions of the batches: trigger and cancel, and optionally
	// negation, strengthen, neutral.
	Conditions []string `json:"conditions"`
	// Training lists the training items by key; empty means the builder
	// picks the default mix (1 scalar, 2 discourse, 2 synthetic, 1 natural).
	Training       []CrowdTrainingSpec `json:"training,omitempty"`
	CompletionCode string              `json:"completion_code"`
	ScreenOutCode  string              `json:"screen_out_code"`
	// AllowPreview lets the study be opened without PROLIFIC_PID; such a
	// visit stores nothing.
	AllowPreview bool `json:"allow_preview"`
	// FinishWhenPaused lets participants who have consented finish their
	// batch while the study is paused (docs/studies.md#study-states).
	FinishWhenPaused bool `json:"finish_when_paused"`
	// AnyPID accepts PROLIFIC_PIDs of any shape ValidProlificID allows, for
	// testing; otherwise only Prolific's 24 hexadecimal characters.
	AnyPID bool `json:"any_pid"`
	// SignedURL requires Prolific's signed study URL: every arrival must
	// bring a prolific_token that Prolific signed for its PROLIFIC_PID,
	// STUDY_ID and SESSION_ID (docs/prolific.md#signed-study-urls).
	SignedURL bool `json:"signed_url"`
	// MachineCheck adds to MachineCheckScreens screens of each batch a
	// sentence that no person sees and no screen reader reads, asking an
	// AI model for a given answer (docs/studies.md#machine-instruction).
	MachineCheck bool `json:"machine_check"`
	// Justifications is how many rating screens of each participant's
	// batch, drawn per participant, also ask "Why did you choose this
	// rating?" in a text box whose typing is summarised
	// (docs/studies.md#typed-justifications): 0 (off, the default), 1 or 2.
	Justifications int `json:"justifications"`
	// Questionnaire is the optional post-study questionnaire, shown before
	// the completion page.
	Questionnaire QuestionnaireSettings `json:"questionnaire"`
	// Participant texts; empty means the default of the study's language.
	Title   string `json:"title"`
	Intro   string `json:"intro"`
	Consent string `json:"consent"`
	// What the consent page names beside the consent text
	// (docs/studies.md#consent): the researcher responsible, how to reach
	// them, the ethics approval's reference, and the estimated minutes
	// (0: estimated from the batch length, EstimatedMinutes).
	Researcher    string `json:"researcher"`
	Contact       string `json:"contact"`
	EthicsRef     string `json:"ethics_ref"`
	Minutes       int    `json:"minutes"`
	NoConsentCode string `json:"no_consent_code"` // given on "I do not agree"; "" falls back to the screen-out code
	// The rating scale (docs/studies.md#rating-scale): ScalePoints points
	// (2–11; 0 is read as the default 7), ScaleLabels maps a point ("1"…)
	// to its label, Question is the question above the scale ("": the
	// default of the study's language).
	ScalePoints int               `json:"scale_points"`
	ScaleLabels map[string]string `json:"scale_labels,omitempty"`
	Question    string            `json:"question"`
	// PracticeScreenOut (judgement studies): this many wrong answers on
	// one practice item end the visit with the screen-out code; 0 never
	// (docs/studies.md#judgement-practice). A crowd study screens out at
	// the second wrong answer when it has a screen-out code.
	PracticeScreenOut int `json:"practice_screen_out,omitempty"`
	// Kind is the study's kind, KindCrowd or KindJudgement: set by the
	// defaults the settings are decoded over (SettingsFor), never stored.
	Kind string `json:"-"`
}

// Scale bounds (docs/studies.md#rating-scale).
const (
	MinScalePoints = 2
	MaxScalePoints = 11
)

// checkScale checks the scale's points and labels; the message names the
// field.
func (s *CrowdSettings) checkScale() error {
	if s.ScalePoints == 0 {
		s.ScalePoints = RatingMax
	}
	if s.ScalePoints < MinScalePoints || s.ScalePoints > MaxScalePoints {
		return Errorf(EINVALID, "scale points must be %d–%d, got %d", MinScalePoints, MaxScalePoints, s.ScalePoints)
	}
	for _, k := range slices.Sorted(maps.Keys(s.ScaleLabels)) {
		p, err := strconv.Atoi(k)
		if err != nil || strconv.Itoa(p) != k {
			return Errorf(EINVALID, "scale labels: %q is not a point of the scale (1–%d)", k, s.ScalePoints)
		}
		if p < 1 || p > s.ScalePoints {
			return Errorf(EINVALID, "scale labels: point %d is outside the scale of %d points", p, s.ScalePoints)
		}
		if err := CheckText(fmt.Sprintf("scale labels: point %d", p), s.ScaleLabels[k], 100, OneLine); err != nil {
			return err
		}
	}
	if len(s.ScaleLabels) == 0 {
		s.ScaleLabels = nil
	}
	if err := CheckText("question", s.Question, 500, MultiLine); err != nil {
		return err
	}
	// The hidden instruction needs room on the scale and in the batch.
	if err := s.checkMachine(); err != nil {
		return err
	}
	if s.Justifications < 0 || s.Justifications > MaxJustifications {
		return Errorf(EINVALID, "justifications: %d screens, want 0 (off), 1 or %d", s.Justifications, MaxJustifications)
	}
	if s.Justifications > s.BatchSize {
		return Errorf(EINVALID, "justifications: %d screens in batches of %d", s.Justifications, s.BatchSize)
	}
	if s.Judgement() {
		return s.validateJudgement()
	}
	return s.checkEndLabels()
}

// checkEndLabels refuses a scale whose ends a participant would read
// unlabelled or labelled from another scale (docs/studies.md#rating-scale):
// the language's default end labels belong to the default 7-point scale,
// so a scale of other points, or one with any label of the researcher's,
// labels both its ends itself. Nothing is filled in.
func (s *CrowdSettings) checkEndLabels() error {
	if len(s.ScaleLabels) == 0 && s.ScalePoints == RatingMax {
		return nil
	}
	for _, end := range []struct {
		point int
		name  string
	}{{1, "low"}, {s.ScalePoints, "high"}} {
		if strings.TrimSpace(s.ScaleLabels[strconv.Itoa(end.point)]) != "" {
			continue
		}
		why := "the scale has labels of its own"
		if len(s.ScaleLabels) == 0 {
			why = fmt.Sprintf("the default labels belong to the %d-point scale", RatingMax)
		}
		return Errorf(EINVALID, "scale labels: the %s end, point %d of %d, has no label; %s, so label both ends (1 and %d)",
			end.name, end.point, s.ScalePoints, why, s.ScalePoints)
	}
	return nil
}

// checkThresholds checks the attention checks' thresholds against the
// scale (docs/studies.md#rating-scale): both on it, and the low one below
// the high one, so that no rating passes a high check and a low one alike.
func (s *CrowdSettings) checkThresholds() error {
	if s.CheckHighMin > s.ScalePoints {
		return Errorf(EINVALID, "high check threshold (check_high_min) must be 1–%d on the %d-point scale, got %d", s.ScalePoints, s.ScalePoints, s.CheckHighMin)
	}
	if s.CheckLowMax > s.ScalePoints {
		return Errorf(EINVALID, "low check threshold (check_low_max) must be 1–%d on the %d-point scale, got %d", s.ScalePoints, s.ScalePoints, s.CheckLowMax)
	}
	if s.CheckLowMax >= s.CheckHighMin {
		return Errorf(EINVALID, "check thresholds overlap on the %d-point scale: the low check threshold (check_low_max, %d) must be below the high one (check_high_min, %d), or a rating of %d passes both",
			s.ScalePoints, s.CheckLowMax, s.CheckHighMin, s.CheckHighMin)
	}
	return nil
}

// ValidRating reports whether r is a point of the study's scale
// (1–ScalePoints; 0 points is the 7-point scale).
func (s CrowdSettings) ValidRating(r int) bool {
	n := s.ScalePoints
	if n == 0 {
		n = RatingMax
	}
	return r >= 1 && r <= n
}

// PracticePasses is TrainingPasses on the study's own scale: a practice
// answer is right above the midpoint for an item shown without its
// cancellation, below it for one shown with it; an odd scale's midpoint
// is right for neither.
func (s CrowdSettings) PracticePasses(condition string, rating int) bool {
	n := s.ScalePoints
	if n == 0 {
		n = RatingMax
	}
	// Twice the rating against points+1 keeps the midpoint exact.
	if condition == ConditionCancel {
		return 2*rating < n+1
	}
	return 2*rating > n+1
}

// CrowdTrainingSpec names one training item and whether it is shown with
// its cancellation.
type CrowdTrainingSpec struct {
	Key       string `json:"key"`
	Condition string `json:"condition"` // trigger | cancel
}

// DefaultCrowdSettings are the paper's: batches of 30, 5 participants each,
// 60 minutes, checks at ≥ 5 / ≤ 3, exclusion at 3 failed checks.
func DefaultCrowdSettings() CrowdSettings {
	return CrowdSettings{Kind: KindCrowd,
		BatchSize: 30, Quota: 5, TimeoutMinutes: 60, HoldMinutes: 10, PlacesPerAddress: 3,
		CheckHighMin: 5, CheckLowMax: 3, MaxFailedChecks: 3, FastMS: DefaultFastMS, ScalePoints: RatingMax,
		Conditions:       []string{ConditionTrigger, ConditionCancel},
		FinishWhenPaused: true,
	}
}

var prolificCode = regexp.MustCompile(`^[A-Za-z0-9_-]{0,64}$`)

// Validate checks the settings; the message names the field.
func (s *CrowdSettings) Validate() error {
	for _, r := range []struct {
		name     string
		v        int
		min, max int
	}{
		{"batch size", s.BatchSize, 2, 1000},
		{"quota", s.Quota, 1, 1000},
		{"time-out (minutes)", s.TimeoutMinutes, 1, 7 * 24 * 60},
		{"hold before the first answer (minutes)", s.HoldMinutes, 1, 7 * 24 * 60},
		{"places per address", s.PlacesPerAddress, 0, 1000},
		{"estimated minutes", s.Minutes, 0, 24 * 60},
		{"high check threshold", s.CheckHighMin, 1, MaxScalePoints},
		{"low check threshold", s.CheckLowMax, 1, MaxScalePoints},
		{"failed checks for exclusion", s.MaxFailedChecks, 1, 1000},
		{"fast answer threshold (ms)", s.FastMS, 1, 60000},
		{"fast answers for exclusion (%)", s.ExcludeFastPercent, 0, 100},
		{"median response time for exclusion (ms)", s.ExcludeMedianRT, 0, 600000},
		{"identical ratings in a row for exclusion", s.ExcludeRun, 0, 1000},
		{"total time for exclusion (s)", s.ExcludeTotalSeconds, 0, 7 * 24 * 3600},
		{"hidden time for exclusion (s)", s.ExcludeHiddenSeconds, 0, 7 * 24 * 3600},
	} {
		if r.v < r.min || r.v > r.max {
			return Errorf(EINVALID, "%s must be %d–%d, got %d", r.name, r.min, r.max, r.v)
		}
	}
	if err := s.checkScale(); err != nil {
		return err
	}
	if err := s.checkThresholds(); err != nil {
		return err
	}
	if err := s.checkConditions(); err != nil {
		return err
	}
	if len(s.Training) > 50 {
		return Errorf(EINVALID, "training: at most 50 items")
	}
	for i, t := range s.Training {
		if t.Key == "" || utf8.RuneCountInString(t.Key) > 100 {
			return Errorf(EINVALID, "training line %d: item id must be 1–100 characters", i+1)
		}
		if err := CheckText(fmt.Sprintf("training line %d: item id", i+1), t.Key, 100, OneLine); err != nil {
			return err
		}
		if t.Condition != ConditionTrigger && t.Condition != ConditionCancel {
			return Errorf(EINVALID, "training line %d (%s): condition must be trigger or cancel, got %q", i+1, t.Key, t.Condition)
		}
	}
	s.CompletionCode = strings.TrimSpace(s.CompletionCode)
	s.ScreenOutCode = strings.TrimSpace(s.ScreenOutCode)
	if !prolificCode.MatchString(s.CompletionCode) {
		return Errorf(EINVALID, "completion code must be up to 64 letters, digits, - or _")
	}
	if !prolificCode.MatchString(s.ScreenOutCode) {
		return Errorf(EINVALID, "screen-out code must be up to 64 letters, digits, - or _")
	}
	s.NoConsentCode = strings.TrimSpace(s.NoConsentCode)
	if !prolificCode.MatchString(s.NoConsentCode) {
		return Errorf(EINVALID, "no-consent code must be up to 64 letters, digits, - or _")
	}
	for _, f := range []struct {
		name  string
		v     string
		max   int
		multi bool
	}{{"title", s.Title, 200, OneLine}, {"intro", s.Intro, 10000, MultiLine}, {"consent", s.Consent, 10000, MultiLine},
		{"researcher", s.Researcher, 200, OneLine}, {"contact", s.Contact, 500, OneLine}, {"ethics approval reference", s.EthicsRef, 200, OneLine}} {
		if err := CheckText(f.name, f.v, f.max, f.multi); err != nil {
			return err
		}
	}
	return nil
}

// checkConditions checks a crowd study's declared conditions: the
// implicature conditions, with trigger and cancel always. A judgement
// study's own are checked by validateJudgement.
func (s *CrowdSettings) checkConditions() error {
	if s.Judgement() {
		return nil
	}
	if s.PracticeScreenOut != 0 {
		return Errorf(EINVALID, "practice_screen_out is a judgement study's setting; a crowd study screens out at the second wrong practice answer when it has a screen-out code")
	}
	if len(s.Conditions) == 0 {
		s.Conditions = []string{ConditionTrigger, ConditionCancel}
	}
	seen := map[string]bool{}
	for _, c := range s.Conditions {
		if !IsCondition(c) {
			return Errorf(EINVALID, "conditions: unknown condition %q (%s)", c, strings.Join(Conditions, ", "))
		}
		if seen[c] {
			return Errorf(EINVALID, "conditions: %q given twice", c)
		}
		seen[c] = true
	}
	if !seen[ConditionTrigger] || !seen[ConditionCancel] {
		return Errorf(EINVALID, "conditions must include trigger and cancel")
	}
	return nil
}

// Hold is how long a consented place waits for its first answer.
func (s CrowdSettings) Hold() time.Duration {
	return time.Duration(s.HoldMinutes) * time.Minute
}

// SecondsPerScreen is the documented estimate of one screen's time when
// the study has no measured answers yet (docs/studies.md#consent).
const SecondsPerScreen = 20

// EstimatedMinutes is the study's length as the consent page states it:
// the researcher's figure when set, else screens × seconds per screen
// (the measured median when perScreen > 0, else SecondsPerScreen),
// rounded up, at least 1.
func (s CrowdSettings) EstimatedMinutes(screens int, perScreen time.Duration) int {
	if s.Minutes > 0 {
		return s.Minutes
	}
	if perScreen <= 0 {
		perScreen = SecondsPerScreen * time.Second
	}
	total := time.Duration(screens) * perScreen
	m := int((total + time.Minute - 1) / time.Minute)
	return max(m, 1)
}

// Timeout is the idle time after which an active session frees its slot.
func (s CrowdSettings) Timeout() time.Duration {
	return time.Duration(s.TimeoutMinutes) * time.Minute
}

// CheckPasses tells whether a rating passes an attention check.
func (s CrowdSettings) CheckPasses(check string, rating int) bool {
	switch check {
	case "high":
		return rating >= s.CheckHighMin
	case "low":
		return rating <= s.CheckLowMax
	}
	return true
}

// TrainingPasses is the feedback rule of docs/studies.md#crowd-training: a
// practice answer is right only on the expected side of the scale — 5–7
// on an item shown without its cancellation (the implicature holds), 1–3
// on one shown with it; the midpoint 4 is right for neither.
func TrainingPasses(condition string, rating int) bool {
	if condition == ConditionCancel {
		return rating <= 3
	}
	return rating >= 5
}

// QuestionnaireSettings turn the fields of a crowd study's post-study
// questionnaire on (docs/studies.md#post-study-questionnaire); all off, no
// questionnaire.
type QuestionnaireSettings struct {
	Languages bool `json:"native_languages"`
	Age       bool `json:"age_range"`
	Gender    bool `json:"gender"`
	Comments  bool `json:"comments"`
}

// On reports whether any field is asked.
func (q QuestionnaireSettings) On() bool { return q.Languages || q.Age || q.Gender || q.Comments }

// The answers the questionnaire offers; "" is no answer.
var (
	AgeRanges = []string{"18-24", "25-34", "35-44", "45-54", "55-64", "65+", "no_answer"}
	Genders   = []string{"woman", "man", "non_binary", "other", "no_answer"}
)

// Questionnaire is one participant's answers.
type Questionnaire struct {
	NativeLanguages string
	AgeRange        string
	Gender          string
	Comments        string
	// Integrity is recorded with the answers, never validated against
	// them (docs/studies.md#integrity-signals).
	Integrity Integrity
}

// Validate checks the answers against the fields asked, dropping those not
// asked; the message names the field.
func (q *Questionnaire) Validate(s QuestionnaireSettings) error {
	q.NativeLanguages, q.Comments = strings.TrimSpace(q.NativeLanguages), strings.TrimSpace(q.Comments)
	if !s.Languages {
		q.NativeLanguages = ""
	}
	if !s.Age {
		q.AgeRange = ""
	}
	if !s.Gender {
		q.Gender = ""
	}
	if !s.Comments {
		q.Comments = ""
	}
	if err := CheckText("native languages", q.NativeLanguages, 200, OneLine); err != nil {
		return err
	}
	if err := CheckText("comments", q.Comments, 2000, MultiLine); err != nil {
		return err
	}
	switch {
	case q.AgeRange != "" && !slices.Contains(AgeRanges, q.AgeRange):
		return Errorf(EINVALID, "age range: choose one of the ranges")
	case q.Gender != "" && !slices.Contains(Genders, q.Gender):
		return Errorf(EINVALID, "gender: choose one of the answers")
	}
	return nil
}

// CrowdQuality are a participant's data-quality flags
// (docs/studies.md#data-quality-flags), computed from their ratings in
// screen order.
type CrowdQuality struct {
	// TotalSeconds runs from consent (the session's start) to completion,
	// or to the last answer while the session is not complete.
	TotalSeconds int
	// MedianRT is the median response time in ms over the rated screens:
	// the server's answered_at − shown_at, or the browser's rt_ms when
	// shorter (store.answerRT, docs/studies.md#server-evidence). 0 when no
	// time is known.
	MedianRT int
	// FastShare is the share of timed answers faster than the study's
	// fast_ms; Timed counts them.
	FastShare float64
	Timed     int
	// LongestRun is the longest run of identical ratings on consecutive
	// screens.
	LongestRun int
	// ExceptionallyFast: the total time is more than ExceptionallyFastSD
	// standard deviations below the mean of the completed participants
	// (Prolific's "exceptionally fast"; at least three completed needed).
	// A flag only: speed alone is no reason to reject on Prolific.
	ExceptionallyFast bool
	// Finished: the participant completed their batch. The speed flag
	// applies only then (docs/studies.md#integrity-flags): a session in
	// progress has no total time yet, and a few answers are no pace.
	Finished bool
	// Traces sums the behavioural traces of the participant's answers
	// (docs/studies.md#behavioural-traces).
	Traces TraceSummary
	// Integrity sums the integrity signals of the participant's answers
	// and questionnaire (docs/studies.md#integrity-flags).
	Integrity IntegrityEvidence
}

// TraceSummary is a participant's behavioural traces over their answers:
// Answers counts the answers with a trace (0 without JavaScript), Changes
// and HiddenMS sum them, MedianFirstInputMS is the median time from first
// paint to first interaction.
type TraceSummary struct {
	Answers            int
	Changes            int
	HiddenMS           int
	MedianFirstInputMS int
}

// QualityReasons are the data-quality exclusion rules a participant meets,
// each as the reason the participants table and the analysis report; none
// when the study sets no rule.
func (s CrowdSettings) QualityReasons(q CrowdQuality) []string {
	return qualityReasons(q, s.fastShareRule, s.medianRTRule, s.identicalRunRule, s.totalTimeRule, s.hiddenTimeRule)
}

// A qualityRule is one of the study's data-quality rules: whether q meets
// it, and the reason worded for the participants table.
type qualityRule func(q CrowdQuality) (reason string, met bool)

// qualityReasons are the reasons of the rules q meets, in the rules' order.
func qualityReasons(q CrowdQuality, rules ...qualityRule) []string {
	var out []string
	for _, rule := range rules {
		if reason, met := rule(q); met {
			out = append(out, reason)
		}
	}
	return out
}

// fastShareRule: the share of timed answers faster than fast_ms reaches
// exclude_fast_percent.
func (s CrowdSettings) fastShareRule(q CrowdQuality) (string, bool) {
	if s.ExcludeFastPercent > 0 && q.Timed > 0 && q.FastShare*100 >= float64(s.ExcludeFastPercent) {
		return fmt.Sprintf("%.0f%% of answers faster than %d ms (rule: %d%%)", q.FastShare*100, s.FastMS, s.ExcludeFastPercent), true
	}
	return "", false
}

// medianRTRule: the median response time is under exclude_median_rt_ms.
func (s CrowdSettings) medianRTRule(q CrowdQuality) (string, bool) {
	if s.ExcludeMedianRT > 0 && q.Timed > 0 && q.MedianRT < s.ExcludeMedianRT {
		return fmt.Sprintf("median response time %d ms (rule: under %d ms)", q.MedianRT, s.ExcludeMedianRT), true
	}
	return "", false
}

// identicalRunRule: the longest run of identical ratings reaches
// exclude_identical_run (straight-lining).
func (s CrowdSettings) identicalRunRule(q CrowdQuality) (string, bool) {
	if s.ExcludeRun > 0 && q.LongestRun >= s.ExcludeRun {
		return fmt.Sprintf("%d identical ratings in a row (rule: %d)", q.LongestRun, s.ExcludeRun), true
	}
	return "", false
}

// totalTimeRule: the total time is under exclude_total_below_s.
func (s CrowdSettings) totalTimeRule(q CrowdQuality) (string, bool) {
	if s.ExcludeTotalSeconds > 0 && q.TotalSeconds < s.ExcludeTotalSeconds {
		return fmt.Sprintf("total time %d s (rule: under %d s)", q.TotalSeconds, s.ExcludeTotalSeconds), true
	}
	return "", false
}

// hiddenTimeRule: the page was hidden exclude_hidden_s or more in all.
func (s CrowdSettings) hiddenTimeRule(q CrowdQuality) (string, bool) {
	if s.ExcludeHiddenSeconds > 0 && q.Traces.HiddenMS >= s.ExcludeHiddenSeconds*1000 {
		return fmt.Sprintf("page hidden %d s (rule: %d s or more)", q.Traces.HiddenMS/1000, s.ExcludeHiddenSeconds), true
	}
	return "", false
}
