package domain

import (
	"context"
	"encoding/json"
	"io"
	"time"
)

// The plain reads and writes of the database, one small interface per
// aggregate, as the WTF Dial app declares its services: no rule of a use
// case stands between them and the database, so the pages (handlers) and
// the commands (cli) call them directly, and the store (pragmalab/store)
// satisfies them as it is. A method that decides something beyond one
// transaction of the store is a use case and lives in studies, recruit or
// signin instead (docs/architecture.md#rules).

// AccountStore is the admins' accounts, their sessions and who may sign in through the identity provider (docs/architecture.md#signin).
type AccountStore interface {
	Admins(ctx context.Context) ([]Admin, error)
	AdminByID(ctx context.Context, id int64) (*Admin, error)
	CreateAdminWithRole(ctx context.Context, username, password, role string) (*Admin, error)
	SetRole(ctx context.Context, username, role string) error
	SetPassword(ctx context.Context, username, password string) error
	Authenticate(ctx context.Context, username, password string) (*Admin, error)
	CreateSession(ctx context.Context, adminID int64) (string, error)
	SessionAdmin(ctx context.Context, token string) (*Admin, error)
	EndSession(ctx context.Context, token string) error
	EndSessions(ctx context.Context, adminID int64) error
	LoginUnlockedAt(ctx context.Context, username string) (time.Time, error)
	OIDCRules(ctx context.Context) ([]OIDCRule, error)
	DeleteOIDCRule(ctx context.Context, id int64) (*OIDCRule, error)
}

// StudyStore is a study's record, its settings, its pilot link and its life as a whole.
type StudyStore interface {
	Study(ctx context.Context, id int64) (*Study, error)
	Dashboard(ctx context.Context) ([]StudyOverview, error)
	CreateStudy(ctx context.Context, s *Study) error
	RenameStudy(ctx context.Context, id int64, name string) error
	SetStudyArchived(ctx context.Context, id int64, archived bool) error
	CloneStudy(ctx context.Context, id int64, name string) (*Study, error)
	StudyResponses(ctx context.Context, id int64) (Responses, error)
	MarkExported(ctx context.Context, id int64) error
	RevokePilotLink(ctx context.Context, studyID int64) error
	WipePilot(ctx context.Context, studyID int64) (int, error)
	SaveCrowdStudy(ctx context.Context, id int64, lang string, s CrowdSettings) error
	SetCrowdExclusion(ctx context.Context, studyID, participantID int64, override string) error
	SetCrowdTrusted(ctx context.Context, studyID, participantID int64, trusted bool) error
	LinkProlific(ctx context.Context, studyID int64, prolificStudyID string) error
	// OpeningDesign is the design file the study opened with, byte for
	// byte, and when (docs/studies.md#frozen-design).
	OpeningDesign(ctx context.Context, id int64) ([]byte, string, error)
	// DesignVersionFile is design version k's file of the study, as kept
	// when it started (docs/studies.md#design-versions).
	DesignVersionFile(ctx context.Context, id int64, k int) ([]byte, error)
}

// ItemStore is a study's items, passages and outputs, their versions and the experts' review of them.
type ItemStore interface {
	ImportItems(ctx context.Context, studyID int64, items []Item) error
	ImportPassages(ctx context.Context, studyID int64, ps []Passage) error
	ImportOutputs(ctx context.Context, studyID int64, outs []Output) error
	ItemByID(ctx context.Context, studyID, id int64) (Item, error)
	ItemRevisions(ctx context.Context, itemID int64) ([]Revision, error)
	EditItem(ctx context.Context, studyID, itemID int64, next Item, note string) (bool, error)
	DropPendingImport(ctx context.Context, studyID, id int64) error
	SetItemCheck(ctx context.Context, studyID, itemID int64, check string) error
	CleanedItems(ctx context.Context, studyID int64) ([]Item, error)
	Flagged(ctx context.Context, studyID int64) ([]FlaggedItem, error)
	DecideReview(ctx context.Context, studyID, itemID int64, decision, implicature, cancellation, note string) error
	UndoReview(ctx context.Context, studyID, itemID int64) error
}

// AnnotatorStore is a study's experts (annotators) and their rounds.
type AnnotatorStore interface {
	Annotators(ctx context.Context, studyID int64) ([]Annotator, error)
	CreateAnnotator(ctx context.Context, studyID int64, name string) (*Annotator, error)
	AssignRound1(ctx context.Context, studyID, batchID int64, annotatorIDs []int64) error
	AssignRound2(ctx context.Context, studyID int64, annotatorIDs []int64) (int, error)
	RenameAnnotator(ctx context.Context, studyID, id int64, name string) error
	RevokeAnnotator(ctx context.Context, studyID, id int64) error
}

// ExportStore is the exports, each written as CSV to w (docs/formats.md).
type ExportStore interface {
	ExportContextAnswers(ctx context.Context, studyID int64, w io.Writer) error
	ExportCrowdParticipants(ctx context.Context, studyID int64, w io.Writer) error
	ExportCrowdRatings(ctx context.Context, studyID int64, w io.Writer, applyExclusions bool) error
	ExportCrowdRatingsWithTexts(ctx context.Context, studyID int64, w io.Writer, applyExclusions bool) error
	ExportExplanationRatings(ctx context.Context, studyID int64, w io.Writer) error
	ExportJudgements(ctx context.Context, studyID int64, w io.Writer) error
	ExportAlternatives(ctx context.Context, studyID int64, w io.Writer) error
	WriteAuditCSV(ctx context.Context, studyID int64, w io.Writer) error
	Backup(ctx context.Context, file string) error
}

// AuditStore is the audit log.
type AuditStore interface {
	Audit(ctx context.Context, actor string, studyID int64, action, detail string) error
	AuditLog(ctx context.Context, studyID int64, limit int) ([]AuditEntry, error)
}

// JobStore is scoring jobs as stored: their progress, prompts and batches (the runner runs them).
type JobStore interface {
	Job(ctx context.Context, id int64) (*Job, error)
	UpdateJobConfig(ctx context.Context, id int64, cfg json.RawMessage) error
	CancelJob(ctx context.Context, id int64) error
	RequeueJob(ctx context.Context, id int64) error
	DeleteJob(ctx context.Context, studyID, jobID int64) error
	JobBatches(ctx context.Context, jobID int64) ([]JobBatch, error)
	JobFailureReasons(ctx context.Context, jobID int64, limit int) ([]FailureReason, error)
	JobProgress(ctx context.Context, id int64) (JobProgress, error)
	JobPromptsPage(ctx context.Context, jobID int64, filter string, offset, limit int) ([]JobPromptRow, int, error)
}

// HealthStore is what /healthz asks the database: whether the last write
// found the disk full, and since when (docs/deploy.md#monitoring).
type HealthStore interface {
	DiskFull() (since time.Time, full bool)
}

// Stores is all of the above: what the pages (handlers.Store) and the
// commands (cli's cliStore) are handed, each calling the parts it needs.
type Stores interface {
	AccountStore
	StudyStore
	ItemStore
	AnnotatorStore
	ExportStore
	AuditStore
	JobStore
}
