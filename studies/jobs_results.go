package studies

import (
	"context"
	"time"

	"pragmalab/analysis/toplines"
	"pragmalab/domain"
	"pragmalab/runner"
	"pragmalab/scoring"
)

// The scoring-job pages' use cases (docs/scoring.md#jobs): launching a
// job, listing a study's jobs, reading a job's results beside the other
// jobs and the humans, its prompts, and sending a generation job's
// outputs to an explanation-rating study. The runner builds, runs and
// reads the jobs; these methods put its functions and the store together,
// so neither the pages nor the command line call either themselves.

// ScoresItems reports whether a study's jobs run the True/False task on its
// implicature items (an expert or crowd study) rather than the
// multiple-choice and generation tasks on its passages.
func ScoresItems(st *domain.Study) bool {
	return st.Kind == domain.KindExpert || st.Kind == domain.KindCrowd
}

// StudyJob returns job jobID of the study (ENOTFOUND when it is another
// study's).
func (s *Service) StudyJob(ctx context.Context, studyID, jobID int64) (*domain.Job, error) {
	j, err := s.db.Job(ctx, jobID)
	if err != nil {
		return nil, err
	}
	if j.StudyID != studyID {
		return nil, errJobElsewhere(jobID)
	}
	return j, nil
}

// errJobElsewhere refuses a job of another study than the one asked for.
func errJobElsewhere(jobID int64) error {
	return domain.Errorf(domain.ENOTFOUND, "job %d not found in this study", jobID)
}

// JobsList is what a study's jobs page lists beside the launch form.
type JobsList struct {
	Jobs     []*domain.Job
	Progress map[int64]domain.JobProgress // by job id
	// Data counts what a new job asks about: the study's implicature items
	// without attention checks and dropped items (ScoresItems), or its
	// passages.
	Data int
	// CrowdStudies are the studies whose humans a True/False job can be
	// compared with (none for a study of passages).
	CrowdStudies []*domain.Study
	// OwnHumans is set for a crowd study some participant has rated: the
	// launch form's "Compare with" defaults to the study itself.
	OwnHumans bool
}

// StudyJobs lists a study's jobs with their progress, and what a new job
// would ask and could compare with.
func (s *Service) StudyJobs(ctx context.Context, st *domain.Study) (*JobsList, error) {
	l := &JobsList{}
	var err error
	if l.Jobs, err = s.db.StudyJobs(ctx, st.ID); err != nil {
		return nil, err
	}
	if l.Progress, err = s.db.StudyJobProgress(ctx, st.ID); err != nil {
		return nil, err
	}
	if st.Kind == domain.KindJudgement {
		items, err := s.db.ListItems(ctx, st.ID)
		if err != nil {
			return nil, err
		}
		// Its likert jobs are compared with its own participants; no
		// crowd study's toplines apply.
		l.Data = len(runner.JudgementItems(items))
		return l, nil
	}
	if !ScoresItems(st) {
		if _, l.Data, err = s.db.PassageCounts(ctx, st.ID); err != nil {
			return nil, err
		}
		return l, nil
	}
	items, err := s.db.ListItems(ctx, st.ID)
	if err != nil {
		return nil, err
	}
	l.Data = len(runner.TFItems(items))
	all, err := s.db.Studies(ctx)
	if err != nil {
		return nil, err
	}
	for _, cs := range all {
		if cs.Kind == domain.KindCrowd {
			l.CrowdStudies = append(l.CrowdStudies, cs)
		}
	}
	if st.Kind == domain.KindCrowd {
		if l.OwnHumans, err = s.ownHumans(ctx, st); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// ownHumans reports whether some participant of crowd-flow study st has
// rated a screen.
func (s *Service) ownHumans(ctx context.Context, st *domain.Study) (bool, error) {
	set, err := CrowdSettings(st)
	if err != nil {
		return false, err
	}
	prog, err := s.db.CrowdProgress(ctx, st.ID, set)
	if err != nil {
		return false, err
	}
	for _, b := range prog {
		if b.Answers > 0 {
			return true, nil
		}
	}
	return false, nil
}

// LaunchJob validates spec (its endpoints checked as runner.Create checks
// them: EINVALID, or ENOTFOUND for a comparison study that does not
// exist), builds the job's prompts and stores it queued; the caller wakes
// the runner.
func (s *Service) LaunchJob(ctx context.Context, spec runner.Spec, getenv func(string) string) (*domain.Job, error) {
	return runner.Create(ctx, s.db, spec, getenv)
}

// RunJob runs a queued job to its end in the caller's goroutine, outside
// any server's background runner (pragmalab score, the demo, bench
// scoring), with API keys read through getenv; progress (if not nil) gets
// the prompts answered, in all and failed after every batch of answers is
// saved.
func (s *Service) RunJob(ctx context.Context, jobID int64, getenv func(string) string, progress func(answered, total, failed int)) error {
	return s.RunJobWith(ctx, jobID, getenv, progress, RunOptions{})
}

// RunOptions adjust a foreground run: BatchPoll, when set, is the first
// wait between two status reads of a batch job's batches.
type RunOptions struct {
	BatchPoll time.Duration
}

// RunJobWith is RunJob with options.
func (s *Service) RunJobWith(ctx context.Context, jobID int64, getenv func(string) string, progress func(answered, total, failed int), o RunOptions) error {
	var saved func(domain.JobProgress)
	if progress != nil {
		saved = func(p domain.JobProgress) { progress(p.Answered, p.Total, p.Failed) }
	}
	r := runner.New(s.db, nil, getenv, nil)
	if o.BatchPoll > 0 {
		r.BatchPoll = o.BatchPoll
		r.BatchPollMax = max(r.BatchPollMax, o.BatchPoll)
	}
	return r.RunJob(ctx, jobID, saved)
}

// JobResults reads a job's answers folded into its task's metrics, over
// the study's current items.
func (s *Service) JobResults(ctx context.Context, jobID int64) (*runner.Results, error) {
	return runner.LoadResults(ctx, s.db, jobID)
}

// StudyJobResults is JobResults of job jobID of the study (ENOTFOUND when
// it is another study's, as StudyJob): the job is read once, with its
// answers.
func (s *Service) StudyJobResults(ctx context.Context, studyID, jobID int64) (*runner.Results, error) {
	res, err := s.JobResults(ctx, jobID)
	if err != nil {
		return nil, err
	}
	if res.Job.StudyID != studyID {
		return nil, errJobElsewhere(jobID)
	}
	return res, nil
}

// JobHumanToplines computes the human toplines of the crowd study a
// True/False job compares with, over the items the job has results for
// (HumanToplines: z-scores as the crowd study's Analysis page computes
// them). It returns nil when the job compares with no study or nobody
// rated its items.
func (s *Service) JobHumanToplines(ctx context.Context, res *runner.Results) (*toplines.Toplines, error) {
	if res.Job.CompareStudyID == 0 {
		return nil, nil
	}
	items := res.ItemKeys()
	return HumanToplines(ctx, s.db, res.Job.CompareStudyID, func(key string) bool { return items[key] })
}

// maxComparedJobs bounds the model columns of a job's comparison table:
// the job itself and the study's first other finished jobs of its task.
const maxComparedJobs = 6

// JobComparison is a True/False job beside the study's other finished
// True/False jobs and the humans of its comparison study.
type JobComparison struct {
	runner.Comparison
	// Toplines are the human toplines over the job's items (nil without
	// humans to compare with, or when HumanErr).
	Toplines *toplines.Toplines
	// HumanErr says why the humans could not be read: the comparison
	// then shows the models alone and the caller logs it.
	HumanErr error
}

// CompareJob puts a True/False job's results beside those of the study's
// other finished (done or partial) jobs of the same task — the jobs
// launched with it first, then the others by id — at most
// maxComparedJobs columns in all, and beside the human toplines of the
// job's crowd study.
func (s *Service) CompareJob(ctx context.Context, res *runner.Results) (*JobComparison, error) {
	all := []*runner.Results{res}
	jobs, err := s.db.StudyJobs(ctx, res.Job.StudyID)
	if err != nil {
		return nil, err
	}
	if jobs, err = s.groupFirst(ctx, res.Job.ID, jobs); err != nil {
		return nil, err
	}
	for _, j := range jobs {
		if j.ID == res.Job.ID || j.Task != res.Job.Task || (j.Status != domain.JobDone && j.Status != domain.JobPartial) || len(all) >= maxComparedJobs {
			continue
		}
		other, err := runner.LoadResults(ctx, s.db, j.ID)
		if err != nil {
			return nil, err
		}
		all = append(all, other)
	}
	c := &JobComparison{}
	c.Toplines, c.HumanErr = s.JobHumanToplines(ctx, res)
	if c.HumanErr != nil {
		c.Toplines = nil
	}
	c.Comparison = runner.Compare(c.Toplines, all...)
	return c, nil
}

// ExplainStudies lists the explanation-rating studies, where a generation
// job's outputs can go.
func (s *Service) ExplainStudies(ctx context.Context) ([]*domain.Study, error) {
	all, err := s.db.Studies(ctx)
	if err != nil {
		return nil, err
	}
	var out []*domain.Study
	for _, st := range all {
		if st.Kind == domain.KindExplain {
			out = append(out, st)
		}
	}
	return out, nil
}

// CanSendOutputs is nil when the job is a finished generation job, whose
// outputs can go to an explanation-rating study, EINVALID otherwise.
func CanSendOutputs(j *domain.Job) error {
	if j.Task != string(scoring.Generation) || j.Active() {
		return domain.Errorf(domain.EINVALID, "only a finished generation job has outputs to send")
	}
	return nil
}

// SendJobOutputs adds a finished generation job's outputs (res, its
// results) to the rating screens of the explanation-rating study to, all
// or nothing, and returns that study and how many outputs went.
func (s *Service) SendJobOutputs(ctx context.Context, res *runner.Results, to int64) (*domain.Study, int, error) {
	if err := CanSendOutputs(res.Job); err != nil {
		return nil, 0, err
	}
	target, err := s.db.Study(ctx, to)
	if err != nil {
		return nil, 0, err
	}
	if target.Kind != domain.KindExplain {
		return nil, 0, domain.Errorf(domain.EINVALID, "study #%d %s is a %s study; outputs go to an explanation-rating study", target.ID, target.Name, target.Kind)
	}
	if err := s.db.ImportOutputs(ctx, target.ID, res.Outputs()); err != nil {
		return nil, 0, err
	}
	return target, len(res.Gen), nil
}
