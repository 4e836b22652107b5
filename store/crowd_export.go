package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"pragmalab/domain"
	"slices"
	"strconv"
	"strings"
	"time"
)

// CrowdBatchProgress is one batch's line on the live progress page.
type CrowdBatchProgress struct {
	BatchID     int64
	Number      int
	Screens     int
	Completed   int // sessions finished
	Active      int // active and seen within the time-out: they hold a slot
	Idle        int // active but idle past the time-out: slot free
	MovedOn     int
	ScreenedOut int
	Answers     int // ratings stored
	// DesignVersion is the design version the batch was built for;
	// Retired, that a later version replaced it: no newcomer is given it
	// (docs/studies.md#design-versions).
	DesignVersion int
	Retired       bool
}

// Taken is the number of slots counted against the quota.
func (b CrowdBatchProgress) Taken() int { return b.Completed + b.Active }

// CrowdProgress returns every batch of a crowd study with its counts.
func (db *DB) CrowdProgress(ctx context.Context, studyID int64, s domain.CrowdSettings) ([]CrowdBatchProgress, error) {
	cutoff := db.Now().Add(-s.Timeout()).UTC().Format(time.RFC3339Nano)
	rows, err := db.read.QueryContext(ctx, `
		SELECT b.id, b.number,
			(SELECT COUNT(*) FROM batch_items bi WHERE bi.batch_id = b.id),
			COALESCE(SUM(p.status = 'completed'), 0),
			COALESCE(SUM(p.status = 'active' AND p.last_seen_at >= ?), 0),
			COALESCE(SUM(p.status = 'active' AND p.last_seen_at < ?), 0),
			COALESCE(SUM(p.status = 'moved_on'), 0),
			COALESCE(SUM(p.status = 'screened_out'), 0),
			COALESCE(SUM(p.answered), 0),
			b.design_version, b.retired
		FROM batches b LEFT JOIN crowd_participants p ON p.batch_id = b.id AND p.pilot = 0
		WHERE b.study_id = ?
		GROUP BY b.id ORDER BY b.number`, cutoff, cutoff, studyID)
	if err != nil {
		return nil, fmt.Errorf("crowd progress: %w", err)
	}
	defer rows.Close()
	var out []CrowdBatchProgress
	for rows.Next() {
		var b CrowdBatchProgress
		if err := rows.Scan(&b.BatchID, &b.Number, &b.Screens, &b.Completed, &b.Active, &b.Idle,
			&b.MovedOn, &b.ScreenedOut, &b.Answers, &b.DesignVersion, &b.Retired); err != nil {
			return nil, fmt.Errorf("crowd progress: %w", err)
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// CrowdParticipantReport is a participant with their attention-check
// results and exclusion.
type CrowdParticipantReport struct {
	*CrowdParticipant
	ChecksAnswered      int
	ChecksFailed        int
	TrainingWrong       int // wrong training answers over all items
	domain.CrowdQuality     // the data-quality flags
	// Reasons are the rules the participant meets: the attention checks'
	// and the data-quality ones the study sets.
	Reasons      []string
	AutoExcluded bool // by the rules: ChecksFailed >= MaxFailedChecks, or a quality rule
	Excluded     bool // the final decision, the researcher's override first
	// Flags are the participant's integrity flags with their evidence
	// (domain.IntegrityFlags): for the researcher's review, never a
	// reason of AutoExcluded.
	Flags []domain.IntegrityFlag
}

// CrowdParticipants lists a study's participants in arrival order with their
// check results.
func (db *DB) CrowdParticipants(ctx context.Context, studyID int64, s domain.CrowdSettings) ([]CrowdParticipantReport, error) {
	out, _, err := db.crowdParticipants(ctx, studyID, s)
	return out, err
}

// crowdParticipants is CrowdParticipants with the questionnaires it read
// for the integrity evidence, by participant id: the participants export
// writes their answers.
func (db *DB) crowdParticipants(ctx context.Context, studyID int64, s domain.CrowdSettings) ([]CrowdParticipantReport, map[int64]domain.Questionnaire, error) {
	out, index, err := db.crowdParticipantList(ctx, studyID)
	if err != nil {
		return nil, nil, fmt.Errorf("crowd participants: %w", err)
	}
	if err := db.countCrowdChecks(ctx, studyID, s, out, index); err != nil {
		return nil, nil, fmt.Errorf("crowd check results: %w", err)
	}
	if err := db.countTrainingWrong(ctx, studyID, out, index); err != nil {
		return nil, nil, fmt.Errorf("crowd training results: %w", err)
	}
	answers, err := db.questionnaires(ctx, studyID)
	if err != nil {
		return nil, nil, err
	}
	qs, err := db.crowdQualities(ctx, studyID, out, s, answers)
	if err != nil {
		return nil, nil, err
	}
	for i := range out {
		decideExclusion(&out[i], qs, s)
	}
	return out, answers, nil
}

// crowdParticipantList is the study's participants in arrival order, and
// the index of each one's report by participant id.
func (db *DB) crowdParticipantList(ctx context.Context, studyID int64) ([]CrowdParticipantReport, map[int64]int, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT `+crowdParticipantColumns+crowdParticipantFrom+`
		WHERE p.study_id = ? AND (p.pilot = 0 OR ?) ORDER BY p.id`, studyID, pilotIncluded(ctx))
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var out []CrowdParticipantReport
	index := map[int64]int{}
	for rows.Next() {
		p, err := scanCrowdParticipant(rows)
		if err != nil {
			return nil, nil, err
		}
		index[p.ID] = len(out)
		out = append(out, CrowdParticipantReport{CrowdParticipant: p})
	}
	return out, index, rows.Err()
}

// countCrowdChecks counts, per participant, the attention checks answered
// and those failed by the study's rule: the check thresholds of the
// participant's design version (docs/studies.md#design-versions).
func (db *DB) countCrowdChecks(ctx context.Context, studyID int64, s domain.CrowdSettings, out []CrowdParticipantReport, index map[int64]int) error {
	settingsOf, err := db.versionSettings(ctx, studyID, s)
	if err != nil {
		return err
	}
	checks, err := db.read.QueryContext(ctx, `
		SELECT r.participant_id, i.check_kind, r.rating
		FROM crowd_ratings r JOIN crowd_participants p ON p.id = r.participant_id JOIN items i ON i.id = r.item_id
		WHERE p.study_id = ? AND i.check_kind != '' AND (p.pilot = 0 OR ?)`, studyID, pilotIncluded(ctx))
	if err != nil {
		return err
	}
	defer checks.Close()
	for checks.Next() {
		var pid int64
		var kind string
		var rating int
		if err := checks.Scan(&pid, &kind, &rating); err != nil {
			return err
		}
		r := &out[index[pid]]
		r.ChecksAnswered++
		if !settingsOf(r.DesignVersion).CheckPasses(kind, rating) {
			r.ChecksFailed++
		}
	}
	return checks.Err()
}

// countTrainingWrong sets each participant's count of wrong training
// answers.
func (db *DB) countTrainingWrong(ctx context.Context, studyID int64, out []CrowdParticipantReport, index map[int64]int) error {
	wrong, err := db.read.QueryContext(ctx, `
		SELECT a.participant_id, COUNT(*) FROM crowd_training_answers a
		JOIN crowd_participants p ON p.id = a.participant_id
		WHERE p.study_id = ? AND NOT a.passed AND (p.pilot = 0 OR ?) GROUP BY a.participant_id`, studyID, pilotIncluded(ctx))
	if err != nil {
		return err
	}
	defer wrong.Close()
	for wrong.Next() {
		var pid int64
		var n int
		if err := wrong.Scan(&pid, &n); err != nil {
			return err
		}
		out[index[pid]].TrainingWrong = n
	}
	return wrong.Err()
}

// decideExclusion gives r its quality flags (qs, by participant id), the
// reasons the study's rules find, and the exclusion: the researcher's
// override first, the rules otherwise.
func decideExclusion(r *CrowdParticipantReport, qs map[int64]domain.CrowdQuality, s domain.CrowdSettings) {
	r.CrowdQuality = qs[r.ID]
	if r.ChecksFailed >= s.MaxFailedChecks {
		r.Reasons = append(r.Reasons, fmt.Sprintf("failed %d of %d attention checks (rule: %d)", r.ChecksFailed, r.ChecksAnswered, s.MaxFailedChecks))
	}
	if _, rated := qs[r.ID]; rated {
		r.Reasons = append(r.Reasons, s.QualityReasons(r.CrowdQuality)...)
	}
	r.AutoExcluded = len(r.Reasons) > 0
	r.Flags = domain.IntegrityFlags(r.Integrity, r.CrowdQuality, s)
	r.Excluded = r.Override == domain.OverrideExclude || (r.Override == "" && r.AutoExcluded)
}

// SetCrowdExclusion records the researcher's decision for a participant:
// "include", "exclude", or "" to follow the automatic rule.
func (db *DB) SetCrowdExclusion(ctx context.Context, studyID, participantID int64, override string) error {
	if override != "" && override != domain.OverrideInclude && override != domain.OverrideExclude {
		return domain.Errorf(domain.EINVALID, "exclusion must be include, exclude or automatic")
	}
	res, err := db.exec(ctx, `
		UPDATE crowd_participants SET exclusion_override = ? WHERE study_id = ? AND id = ?`,
		override, studyID, participantID)
	if err != nil {
		return fmt.Errorf("set exclusion: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return domain.Errorf(domain.ENOTFOUND, "participant %d not found", participantID)
	}
	return nil
}

// RatingsHeader is the header of the ratings export
// (docs/formats.md#ratings-export). item_version, then the answer times
// (docs/formats.md#answer-times), come last: files written before they
// existed read the same.
// machine_instruction, then scale_points (the points of the scale the
// rating was given on), close it (docs/formats.md#ratings-export): each
// column was added at the end, so a reader of the older columns reads on.
var RatingsHeader = append(append(append([]string{"participant_id", "batch_id", "item_id", "item_type", "condition", "rating", "check", "item_version"}, TimeColumns...), TraceColumns...), "machine_instruction", "scale_points")

// RatingRow is one crowd rating as the ratings file holds it: the
// participant (PID is the PROLIFIC_PID), the batch number, the item's own
// id and type, the condition, the rating, and "high"/"low" for a check.
type RatingRow struct {
	ParticipantID int64
	PID           string
	Batch         int
	Item, Type    string
	Condition     string
	Rating        int
	Check         string
	// Version is the version of the item the rating was given on.
	Version int
	AnswerTimes
	// Trace is how the answer was given (docs/studies.md#behavioural-traces).
	Trace domain.AnswerTrace
	// Machine is whether the hidden instruction of the screen was obeyed
	// (docs/studies.md#machine-instruction): invalid on a screen without one.
	Machine sql.NullInt64
	// ScalePoints is the points of the study's scale the rating is on
	// (docs/studies.md#rating-scale): its design version's.
	ScalePoints int
	// DesignVersion is the version of the study's design the rating was
	// given under, its batch's (docs/studies.md#design-versions).
	DesignVersion int
}

// RatingRows lists every rating of the participants of a crowd study who
// completed their batch, in arrival and screen order; with
// applyExclusions it leaves out the participants excluded by the final
// decision (docs/studies.md#exclusions).
func (db *DB) RatingRows(ctx context.Context, studyID int64, applyExclusions bool) ([]RatingRow, error) {
	_, s, err := db.CrowdStudy(ctx, studyID)
	if err != nil {
		return nil, err
	}
	skip := map[int64]bool{}
	if applyExclusions {
		reps, err := db.CrowdParticipants(ctx, studyID, s)
		if err != nil {
			return nil, err
		}
		for _, r := range reps {
			skip[r.ID] = r.Excluded
		}
	}
	rows, err := queryRows(ctx, db, "ratings", `
		SELECT p.id, p.prolific_pid, b.number, i.key, i.type, r.condition, r.rating, i.check_kind, r.item_version,
			r.shown_at, r.answered_at, r.rt_ms, r.answer_changes, r.hidden_ms, r.first_input_ms, `+signalSQL+`, r.machine_instruction, b.design_version
		FROM crowd_ratings r
		JOIN crowd_participants p ON p.id = r.participant_id
		JOIN batches b ON b.id = p.batch_id
		JOIN items i ON i.id = r.item_id
		WHERE p.study_id = ? AND p.status = 'completed' AND (p.pilot = 0 OR ?)
		ORDER BY p.id, r.position`, []any{studyID, pilotIncluded(ctx)}, func(rows *sql.Rows, r *RatingRow) error {
		times, done := r.AnswerTimes.dest()
		trace, traced := traceDest(&r.Trace)
		err := rows.Scan(append(append([]any{&r.ParticipantID, &r.PID, &r.Batch, &r.Item, &r.Type, &r.Condition, &r.Rating, &r.Check, &r.Version}, times...), append(trace, &r.Machine, &r.DesignVersion)...)...)
		done()
		traced()
		return err
	})
	if err != nil {
		return nil, err
	}
	points, err := db.versionPoints(ctx, studyID, s)
	if err != nil {
		return nil, err
	}
	for i := range rows {
		rows[i].ScalePoints = points(rows[i].DesignVersion)
	}
	if len(skip) == 0 {
		return rows, nil
	}
	kept := rows[:0]
	for _, r := range rows {
		if !skip[r.ParticipantID] {
			kept = append(kept, r)
		}
	}
	return kept, nil
}

// versionSettings gives the settings of each design version of study
// studyID as kept (docs/studies.md#design-versions); s, the current
// settings, for the current version and for a study with no version
// kept.
func (db *DB) versionSettings(ctx context.Context, studyID int64, s domain.CrowdSettings) (func(int) domain.CrowdSettings, error) {
	vs, err := db.DesignVersions(ctx, studyID)
	if err != nil || len(vs) < 2 {
		return func(int) domain.CrowdSettings { return s }, err
	}
	byVersion := map[int]domain.CrowdSettings{}
	for _, v := range vs[:len(vs)-1] {
		set := domain.SettingsFor(s.Kind)
		if err := json.Unmarshal(v.Settings, &set); err != nil {
			return nil, fmt.Errorf("design version %d settings: %w", v.Version, err)
		}
		byVersion[v.Version] = set
	}
	return func(k int) domain.CrowdSettings {
		if set, ok := byVersion[k]; ok {
			return set
		}
		return s
	}, nil
}

// versionPoints gives the points of the scale of each design version of
// study studyID (versionSettings).
func (db *DB) versionPoints(ctx context.Context, studyID int64, s domain.CrowdSettings) (func(int) int, error) {
	settingsOf, err := db.versionSettings(ctx, studyID, s)
	if err != nil {
		return nil, err
	}
	return func(k int) int {
		if n := settingsOf(k).ScalePoints; n != 0 {
			return n
		}
		return domain.RatingMax
	}, nil
}

// ExportRatings writes the ratings file (docs/formats.md#ratings-file) of a
// crowd study: one row per rating of every participant who completed their
// batch. Exclusion is left to the analysis, which applies the same rule
// from the check rows.
func (db *DB) ExportRatings(ctx context.Context, studyID int64, w io.Writer) error {
	return db.ExportCrowdRatings(ctx, studyID, w, false)
}

// ExportCrowdRatings is ExportRatings; with applyExclusions it leaves out the
// participants excluded by the researcher's final decision.
func (db *DB) ExportCrowdRatings(ctx context.Context, studyID int64, w io.Writer, applyExclusions bool) error {
	rows, err := db.RatingRows(ctx, studyID, applyExclusions)
	if err != nil {
		return err
	}
	header, record, err := db.withDesignVersion(ctx, studyID, RatingsHeader, ratingRecord)
	if err != nil {
		return err
	}
	return writeCSV(w, header, rows, record)
}

// DesignVersionColumn is the last column of the ratings and participants
// exports of a study with more than one design version
// (docs/formats.md#ratings-export): the version the rating, or the
// participant's batch, was given under.
const DesignVersionColumn = "design_version"

// withDesignVersion adds DesignVersionColumn to header and record when
// study studyID has more than one design version.
func (db *DB) withDesignVersion(ctx context.Context, studyID int64, header []string, record func(RatingRow) []string) ([]string, func(RatingRow) []string, error) {
	versioned, err := db.HasDesignVersions(ctx, studyID)
	if err != nil || !versioned {
		return header, record, err
	}
	return append(slices.Clone(header), DesignVersionColumn), func(r RatingRow) []string {
		return append(record(r), strconv.Itoa(r.DesignVersion))
	}, nil
}

// HasDesignVersions says whether study studyID has started a design
// version after its first (docs/studies.md#design-versions).
func (db *DB) HasDesignVersions(ctx context.Context, studyID int64) (bool, error) {
	var n int
	if err := db.q(nil).QueryRowContext(ctx, `SELECT COUNT(*) FROM study_design_versions WHERE study_id = ? AND version > 1`, studyID).Scan(&n); err != nil {
		return false, fmt.Errorf("design versions: %w", err)
	}
	return n > 0, nil
}

// ratingRecord is a rating's row of the ratings export, RatingsHeader's
// columns.
func ratingRecord(r RatingRow) []string {
	return slices.Concat([]string{r.PID, strconv.Itoa(r.Batch), r.Item, r.Type, r.Condition, strconv.Itoa(r.Rating), r.Check, strconv.Itoa(r.Version)},
		r.Fields(), traceFields(r.Trace), []string{nullInt(r.Machine), strconv.Itoa(r.ScalePoints)})
}

// RatingTextColumns are the columns the ratings export adds with the item
// texts (docs/formats.md#ratings-export): what the participant read — the
// context, the utterance, the follow-up of the rating's condition (empty
// for trigger) — and the statement they rated.
var RatingTextColumns = []string{"context", "utterance", "follow_up", "implicature"}

// JudgementRatingTextColumns are the text columns of a judgement study's
// ratings export (docs/formats.md#ratings-export): the context and the
// sentence the participant rated, in the rating's condition.
var JudgementRatingTextColumns = []string{"context", "sentence"}

// ExportCrowdRatingsWithTexts is ExportCrowdRatings with RatingTextColumns
// after the others (scale_points is then the last column but those), each rating's texts those of the item version it was
// given on (a version kept before revisions held every field takes its
// context and utterance from the current item).
//
// A judgement study's ratings carry JudgementRatingTextColumns instead:
// the context and sentence of the rating's condition, the item's current
// texts (item revisions keep no texts by condition).
func (db *DB) ExportCrowdRatingsWithTexts(ctx context.Context, studyID int64, w io.Writer, applyExclusions bool) error {
	rows, err := db.RatingRows(ctx, studyID, applyExclusions)
	if err != nil {
		return err
	}
	st, err := db.Study(ctx, studyID)
	if err != nil {
		return err
	}
	if st.Kind == domain.KindJudgement {
		items, err := db.ListItems(ctx, studyID)
		if err != nil {
			return err
		}
		byKey := make(map[string]domain.Item, len(items))
		for _, it := range items {
			byKey[it.Key] = it
		}
		header, record, err := db.withDesignVersion(ctx, studyID, slices.Concat(RatingsHeader, JudgementRatingTextColumns), func(r RatingRow) []string {
			v := byKey[r.Item].Variants[r.Condition]
			return append(ratingRecord(r), v.Context, v.Sentence)
		})
		if err != nil {
			return err
		}
		return writeCSV(w, header, rows, record)
	}
	texts, err := db.ratedTexts(ctx, studyID)
	if err != nil {
		return err
	}
	header, record, err := db.withDesignVersion(ctx, studyID, slices.Concat(RatingsHeader, RatingTextColumns), func(r RatingRow) []string {
		it := texts[itemVersion{r.Item, r.Version}]
		return append(ratingRecord(r), it.Context, it.Utterance, it.FollowUp(r.Condition), it.Implicature)
	})
	if err != nil {
		return err
	}
	return writeCSV(w, header, rows, record)
}

type itemVersion struct {
	key     string
	version int
}

// ratedTexts are a study's item texts by item id and version: the current
// version of every item and each kept revision.
func (db *DB) ratedTexts(ctx context.Context, studyID int64) (map[itemVersion]domain.Item, error) {
	items, err := queryRows(ctx, db, "rated item texts", `
		SELECT i.key, i.version, i.context, i.utterance, i.implicature, i.cancellation, i.negation, i.strengthening, i.neutral
		FROM items i WHERE i.study_id = ?
		UNION ALL
		SELECT i.key, r.version, COALESCE(r.context, i.context), COALESCE(r.utterance, i.utterance), r.implicature, r.cancellation,
			COALESCE(r.negation, i.negation), COALESCE(r.strengthening, i.strengthening), COALESCE(r.neutral, i.neutral)
		FROM item_revisions r JOIN items i ON i.id = r.item_id WHERE i.study_id = ?`, []any{studyID, studyID},
		func(rows *sql.Rows, it *domain.Item) error {
			return rows.Scan(&it.Key, &it.Version, &it.Context, &it.Utterance, &it.Implicature, &it.Cancellation, &it.Negation, &it.Strengthening, &it.Neutral)
		})
	if err != nil {
		return nil, err
	}
	out := make(map[itemVersion]domain.Item, len(items))
	for _, it := range items {
		out[itemVersion{it.Key, it.Version}] = it
	}
	return out, nil
}

// CrowdParticipantsHeader is the header of the participants CSV.
var CrowdParticipantsHeader = []string{
	"prolific_pid", "prolific_study_id", "prolific_session_id", "batch_id", "status",
	"started_at", "last_seen_at", "completed_at", "answered", "screens", "training_wrong",
	"checks_answered", "checks_failed", "auto_excluded", "override", "excluded",
	"total_seconds", "median_rt_ms", "fast_share", "longest_identical_run", "exclusion_reasons",
	"traced_answers", "answer_changes", "hidden_ms", "median_first_input_ms",
	"native_languages", "age_range", "gender", "comments",
	"typed_chars", "inserted_chars", "iki_median_ms", "iki_iqr_ms", "integrity_flags",
}

// ExportCrowdParticipants writes one row per participant: Prolific ids,
// times, status and attention-check results.
func (db *DB) ExportCrowdParticipants(ctx context.Context, studyID int64, w io.Writer) error {
	return db.ExportCrowdParticipantsWith(ctx, studyID, w, nil)
}

// ParticipantsAssessor completes the participants' reports before they are
// written: the LLM-echo check (comparisons.AssessLLMEcho), which the store
// cannot run, sets its evidence and the flags there.
type ParticipantsAssessor func(ctx context.Context, reps []CrowdParticipantReport, s domain.CrowdSettings) error

// ExportCrowdParticipantsWith is ExportCrowdParticipants with the reports
// completed by assess (nil: as the store has them) before any row is
// written.
func (db *DB) ExportCrowdParticipantsWith(ctx context.Context, studyID int64, w io.Writer, assess ParticipantsAssessor) error {
	_, s, err := db.CrowdStudy(ctx, studyID)
	if err != nil {
		return err
	}
	reps, qs, err := db.crowdParticipants(ctx, studyID, s)
	if err != nil {
		return err
	}
	if assess != nil {
		if err := assess(ctx, reps, s); err != nil {
			return err
		}
	}
	versioned, err := db.HasDesignVersions(ctx, studyID)
	if err != nil {
		return err
	}
	header := CrowdParticipantsHeader
	if versioned {
		header = append(slices.Clone(header), DesignVersionColumn)
	}
	return writeCSV(w, header, reps, func(r CrowdParticipantReport) []string {
		q := qs[r.ID]
		row := []string{
			r.PID, r.ProlificStudyID, r.SessionID, strconv.Itoa(r.BatchNumber), r.Status,
			stamp(r.StartedAt), stamp(r.LastSeenAt), stamp(r.CompletedAt),
			strconv.Itoa(r.Answered), strconv.Itoa(r.Screens), strconv.Itoa(r.TrainingWrong),
			strconv.Itoa(r.ChecksAnswered), strconv.Itoa(r.ChecksFailed),
			yesNo(r.AutoExcluded), r.Override, yesNo(r.Excluded),
			optInt(r.TotalSeconds), optInt(r.MedianRT), fastShare(r.CrowdQuality), optInt(r.LongestRun),
			strings.Join(r.Reasons, "; "),
			strconv.Itoa(r.Traces.Answers), traceSum(r.Traces, r.Traces.Changes), traceSum(r.Traces, r.Traces.HiddenMS),
			traceSum(r.Traces, r.Traces.MedianFirstInputMS),
			q.NativeLanguages, q.AgeRange, q.Gender, q.Comments,
			signalField(q.Integrity.Keys.Typed), signalField(q.Integrity.Keys.Inserted),
			signalField(q.Integrity.Keys.IKIMedian), signalField(q.Integrity.Keys.IKIIQR),
			strings.Join(domain.FlagNames(r.Flags), ";"),
		}
		if versioned {
			row = append(row, strconv.Itoa(r.DesignVersion))
		}
		return row
	})
}

// stamp formats a time for an export: RFC 3339 in UTC, "" when unset.
func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// optInt is n, or "" for 0 (not known).
func optInt(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// fastShare is the share of fast answers with 3 decimals, "" when no
// answer has a time.
func fastShare(q domain.CrowdQuality) string {
	if q.Timed == 0 {
		return ""
	}
	return strconv.FormatFloat(q.FastShare, 'f', 3, 64)
}
