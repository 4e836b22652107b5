package comparisons

import (
	"context"
	"fmt"
	"strings"

	"pragmalab/analysis/integrity"
	"pragmalab/domain"
	"pragmalab/runner"
	"pragmalab/scoring"
	"pragmalab/store"
	"pragmalab/studies"
)

// NoLLMEchoJob is what the participants table says when the study has no
// finished likert scoring job to compare the participants with.
const NoLLMEchoJob = "LLM-echo: not assessed — no likert scoring job on this study."

// AssessLLMEcho runs the LLM-echo check (docs/statistics.md#llm-echo) on a
// crowd study's participants, reps as the store reported them with set:
// each finished likert scoring job of the study is a model answering
// every item × condition with its most likely point, and the
// participants' ratings (attention checks left out) are compared with
// them. A flagged participant's evidence gets LLMEcho with its reason and
// their Flags are computed again; nothing excludes on it. It returns one
// sentence for the participants table: which jobs were compared, or
// NoLLMEchoJob.
func AssessLLMEcho(ctx context.Context, db *store.DB, studyID int64, set domain.CrowdSettings, reps []store.CrowdParticipantReport) (string, error) {
	jobs, err := db.StudyJobs(ctx, studyID)
	if err != nil {
		return "", err
	}
	e, err := llmEchoVerdicts(ctx, db, studyID, set, jobs)
	if err != nil {
		return "", err
	}
	return e.apply(reps, set), nil
}

// echoVerdicts is the LLM-echo check's outcome on a study: the flagged
// participants' reasons by PID, and the participants table's sentence.
type echoVerdicts struct {
	flagged map[string]string
	said    string
}

// echoKey is what an LLM-echo outcome is computed from: the study's data
// version (its completed participants' ratings and its settings), whether
// pilot data is in, and the study's finished likert jobs.
type echoKey struct {
	version int64
	pilot   bool
	jobs    string
}

// LLMEcho is AssessLLMEcho with its outcome kept until the ratings, the
// settings or a likert job change (the check runs permutation tests for
// every participant: not on every view): the study's page, its exports
// and the Prolific review (recruit.Service.SetLLMEcho) all use it.
func (c *Service) LLMEcho(ctx context.Context, studyID int64, set domain.CrowdSettings, reps []store.CrowdParticipantReport) (string, error) {
	jobs, err := c.db.StudyJobs(ctx, studyID)
	if err != nil {
		return "", err
	}
	ver, err := c.db.StudyDataVersion(ctx, studyID)
	if err != nil {
		return "", err
	}
	key := echoKey{version: ver, pilot: store.PilotIncluded(ctx)}
	for _, j := range jobs {
		if isEchoModel(j) {
			key.jobs += fmt.Sprintf("%d:%s:%d;", j.ID, j.Status, j.FinishedAt.UnixNano())
		}
	}
	e, err := c.echoes.Get(studyID, key, func() (*echoVerdicts, error) {
		return llmEchoVerdicts(context.WithoutCancel(ctx), c.db, studyID, set, jobs)
	})
	if err != nil {
		return "", err
	}
	return e.apply(reps, set), nil
}

// llmEchoVerdicts runs the check against the finished likert jobs among
// jobs.
func llmEchoVerdicts(ctx context.Context, db *store.DB, studyID int64, set domain.CrowdSettings, jobs []*domain.Job) (*echoVerdicts, error) {
	answers, names, err := likertModelAnswers(ctx, db, jobs)
	if err != nil || len(answers) == 0 {
		return &echoVerdicts{said: NoLLMEchoJob}, err
	}
	rows, err := studies.CrowdRatingRows(ctx, db, studyID)
	if err != nil {
		return nil, err
	}
	var ratings []integrity.EchoRating
	for _, r := range rows {
		if r.Check == "" {
			ratings = append(ratings, integrity.EchoRating{Participant: r.Participant, Item: r.Item, Condition: r.Condition, Rating: r.Rating})
		}
	}
	trusted, err := db.TrustedCrowdPIDs(ctx, studyID)
	if err != nil {
		return nil, err
	}
	if e := referenceVerdicts(ratings, trusted, answers, names); e != nil {
		return e, nil
	}
	opt := integrity.DefaultEchoOptions()
	opt.Points = set.ScalePoints
	if err := opt.Validate(); err != nil {
		return &echoVerdicts{said: "LLM-echo: not assessed — " + err.Error() + "."}, nil
	}
	e := &echoVerdicts{flagged: map[string]string{}}
	for _, res := range integrity.LLMEcho(ratings, answers, opt) {
		if res.Flagged {
			e.flagged[res.Participant] = res.Reason
		}
	}
	e.said = fmt.Sprintf("LLM-echo: assessed against the most likely points of %s; %d flagged. %s",
		strings.Join(names, ", "), len(e.flagged), PoolCaveat)
	return e, nil
}

// apply marks the flagged participants of reps (their Flags computed again
// with set) and returns the sentence.
func (e *echoVerdicts) apply(reps []store.CrowdParticipantReport, set domain.CrowdSettings) string {
	for i := range reps {
		r := &reps[i]
		if reason, ok := e.flagged[r.PID]; ok {
			r.Integrity.LLMEcho, r.Integrity.LLMEchoEvidence = true, reason
			r.Flags = domain.IntegrityFlags(r.Integrity, r.CrowdQuality, set)
		}
	}
	return e.said
}

// isEchoModel: a likert job that finished (done or partial) is a model
// the check compares with.
func isEchoModel(j *domain.Job) bool {
	return scoring.Task(j.Task) == scoring.Likert && (j.Status == domain.JobDone || j.Status == domain.JobPartial)
}

// likertModelAnswers are the answers of the finished likert scoring jobs
// among jobs (a study's, newest first), oldest first, each named
// "scorer (job N)", with those names.
func likertModelAnswers(ctx context.Context, db *store.DB, jobs []*domain.Job) ([]integrity.ModelAnswer, []string, error) {
	var out []integrity.ModelAnswer
	var names []string
	for i := len(jobs) - 1; i >= 0; i-- { // StudyJobs lists the newest first
		j := jobs[i]
		if !isEchoModel(j) {
			continue
		}
		res, err := runner.LoadResults(ctx, db, j.ID)
		if err != nil {
			return nil, nil, err
		}
		name := fmt.Sprintf("%s (job %d)", res.Scorer, j.ID)
		n := len(out)
		for _, h := range res.Human {
			if h.Number > 0 {
				out = append(out, integrity.ModelAnswer{Model: name, Item: h.Item, Condition: h.Condition, Rating: h.Number, Dist: h.Dist})
			}
		}
		if len(out) > n {
			names = append(names, name)
		}
	}
	return out, names, nil
}
