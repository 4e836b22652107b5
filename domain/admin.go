package domain

import "time"

// The value types of the admin's pages: accounts, the dashboard, a study's
// state, its items' corrections, the audit log and the server's metrics.
// The store fills them; studies hands them to handlers and commands.

// Admin is a researcher who may use the admin pages.
type Admin struct {
	ID        int64
	Username  string
	Role      string
	CreatedAt time.Time
}

// Admin roles: an owner may do everything and manages the accounts; a
// viewer reads studies, progress, analyses and exports but changes nothing.
const (
	RoleOwner  = "owner"
	RoleViewer = "viewer"
)

// Roles lists the roles in the order the pages offer them.
var Roles = []string{RoleOwner, RoleViewer}

// CanChange reports whether the admin may change anything.
func (a *Admin) CanChange() bool { return a != nil && a.Role == RoleOwner }

// AuditEntry is one state-changing action: who, when, what, on which study
// (0: none, such as an account change).
type AuditEntry struct {
	ID      int64
	At      time.Time
	Actor   string
	StudyID int64
	Action  string
	Detail  string
}

// StateChange is one change of a study's state.
type StateChange struct {
	State     string
	By        string // the admin's username; "" for the system (demo seeding)
	ChangedAt time.Time
}

// PilotSummary counts a study's pilot sessions (or experts) and answers.
type PilotSummary struct {
	Sessions int
	Answers  int
}

// Responses sums up a study's answers of every kind.
type Responses struct {
	Answers int
	// Unexported counts the answers given after the last export (all of
	// them if the study was never exported).
	Unexported int
	Last       time.Time
}

// Add sums another kind's answers into r.
func (r *Responses) Add(o Responses) {
	r.Answers += o.Answers
	r.Unexported += o.Unexported
	if o.Last.After(r.Last) {
		r.Last = o.Last
	}
}

// StudyOverview is one row of the dashboard.
type StudyOverview struct {
	Study *Study
	// State is the study's state (draft, open, paused, closed); "" where
	// studies have no state.
	State string
	// Items counts its data items (domain.IsCountedData: attention checks,
	// training and dropped items left out, as the study page counts them)
	// or, for IMPAQTS studies, its passages.
	Items int
	// Done and UnderWay count the people who finished everything given to
	// them and those who have not yet: experts by their assignments, crowd
	// participants by their status.
	Done, UnderWay int
	Responses
}

// Revision is an earlier version of an item. Fields a revision did not
// record (revisions made before items could be corrected in place kept
// only the implicature and cancellation) are empty, with Partial set.
type Revision struct {
	Version int
	Item    Item
	Note    string
	Partial bool
	At      string
}

// FieldChange is one field an update changes.
type FieldChange struct {
	Field    string
	Old, New string
}

// ItemChange is what an items file does to one item: a new item (Old nil)
// or changed fields of an existing one.
type ItemChange struct {
	Key    string
	Old    *Item
	New    Item
	Fields []FieldChange
}

// ItemUpdate is the whole effect of a re-imported items file.
type ItemUpdate struct {
	Changes   []ItemChange
	Unchanged int
	// Digest identifies exactly these changes: applying checks it, so the
	// researcher applies what they were shown or nothing.
	Digest string
}

// Added counts the new items the file adds.
func (u ItemUpdate) Added() (n int) {
	for _, c := range u.Changes {
		if c.Old == nil {
			n++
		}
	}
	return n
}

// Changed counts the existing items the file changes.
func (u ItemUpdate) Changed() int { return len(u.Changes) - u.Added() }

// Metrics is the operator's view of a running server.
type Metrics struct {
	// AnswersLastMinute: participant answers (every study kind) committed
	// in the last 60 seconds; AnswersPerSecond is that over 60.
	AnswersLastMinute int
	AnswersPerSecond  float64
	// Writes is how many of the latest participant writes (at most 4096,
	// of the last minute) the waits are taken over.
	Writes int
	// QueueP50, QueueP99: time from queueing a write to the start of its
	// group; AckP50, AckP99: to its durable commit.
	QueueP50, QueueP99, AckP50, AckP99 time.Duration
	// DatabaseBytes: the database file and its write-ahead log.
	DatabaseBytes int64
	// OpenParticipants: crowd sessions under way (active); SeenRecently:
	// those of them seen in the last 5 minutes.
	OpenParticipants, SeenRecently int
	// Since the server started: group transactions committed, writes run
	// in them, the writer's time inside them, and of that the time spent
	// committing (the fsync).
	Groups, GroupedWrites    int64
	WriterBusy, WriterCommit time.Duration
	// LogSyncs: the time spent syncing the log after commits, beside the
	// writer (Options.Synchronous PIPELINED only).
	LogSyncs time.Duration
	// Replication is the state of the replica (docs/deploy.md#replication).
	Replication Replication
}
