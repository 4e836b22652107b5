package domain

import "time"

// Replication is the state of the continuous replication of the database
// (docs/deploy.md#replication), as the metrics page and /healthz show it.
type Replication struct {
	// On: the server was started with a replica.
	On bool
	// Replica is the replica's URL, without credentials.
	Replica string
	// Running: the Litestream process is up.
	Running bool
	// LocalTXID is the newest of Litestream's transactions (each holds the
	// database's commits of one sync) on this machine; ReplicatedTXID the
	// newest one in the replica, which ReplicatedAt first saw there.
	LocalTXID, ReplicatedTXID uint64
	ReplicatedAt              time.Time
	// SyncedThrough: every transaction committed before it is in the
	// replica. Lag is how long ago that was (Now − SyncedThrough), the
	// answers at risk if the machine were lost now.
	SyncedThrough time.Time
	Lag           time.Duration
	// MaxLag is the lag beyond which the server reports itself degraded.
	MaxLag time.Duration
	// Error is the latest failure of the replication not yet overcome
	// (bad credentials, an unreachable replica, Litestream exiting), at
	// ErrorAt; empty when replication works.
	Error   string
	ErrorAt time.Time
	// Restarts counts the times Litestream was started again after it
	// exited.
	Restarts int
}

// Degraded reports whether replication is on and lagging past MaxLag, or
// failing: the server still serves, but a loss of the machine now would
// lose more than the documented recovery point.
func (r Replication) Degraded() bool {
	return r.On && (r.Lag > r.MaxLag || r.Error != "")
}

// DatabaseCheck is what the checks of a database file from elsewhere (a
// restored replica, a backup) found.
type DatabaseCheck struct {
	// QuickCheck is SQLite's quick_check: ["ok"] when sound.
	QuickCheck []string
	// ForeignKeyErrors counts the rows foreign_key_check reports.
	ForeignKeyErrors int
	// Migrations applied, the newest (SchemaVersion); those this binary
	// does not know (the file was made by a newer pragmalab) and those it
	// will apply at the next start.
	Migrations                           int
	SchemaVersion                        int
	UnknownMigrations, PendingMigrations []int
	// Studies and participants' answers (crowd ratings, judgements,
	// context answers, explanation ratings) in the file.
	Studies, Answers int64
}

// OK reports whether the file is sound and this binary can serve it.
func (c DatabaseCheck) OK() bool {
	return len(c.QuickCheck) == 1 && c.QuickCheck[0] == "ok" && c.ForeignKeyErrors == 0 && len(c.UnknownMigrations) == 0 && c.Migrations > 0
}
