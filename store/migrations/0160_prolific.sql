-- Prolific's API from the admin pages (docs/prolific.md).

-- A crowd study's link to its Prolific study, and the last sync.
CREATE TABLE prolific_links (
	study_id          INTEGER PRIMARY KEY REFERENCES studies (id) ON DELETE CASCADE,
	prolific_study_id TEXT NOT NULL,
	synced_at         TEXT NOT NULL DEFAULT '',
	sync_error        TEXT NOT NULL DEFAULT ''
);

-- The submissions of the linked Prolific study as the last sync read them.
-- participant_id is the PROLIFIC_PID, lower-cased as pragmalab matches it.
CREATE TABLE prolific_submissions (
	study_id       INTEGER NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	submission_id  TEXT NOT NULL,
	participant_id TEXT NOT NULL,
	status         TEXT NOT NULL,
	started_at     TEXT NOT NULL DEFAULT '',
	completed_at   TEXT NOT NULL DEFAULT '',
	entered_code   TEXT NOT NULL DEFAULT '',
	synced_at      TEXT NOT NULL,
	PRIMARY KEY (study_id, submission_id)
);
CREATE INDEX prolific_submissions_pid ON prolific_submissions (study_id, participant_id);

-- Every call that approves, rejects, pays or changes something on Prolific,
-- recorded BEFORE it is sent (state 'pending') and updated with the answer.
-- idem_key is unique: the same approval, rejection or payment can never be
-- recorded, and so sent, twice. A call still 'pending' after a crash may or
-- may not have reached Prolific: it is never re-sent blindly.
CREATE TABLE prolific_calls (
	id         INTEGER PRIMARY KEY,
	study_id   INTEGER NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	kind       TEXT NOT NULL,
	idem_key   TEXT NOT NULL UNIQUE,
	target     TEXT NOT NULL DEFAULT '',
	request    TEXT NOT NULL,
	state      TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'done', 'failed')),
	response   TEXT NOT NULL DEFAULT '',
	actor      TEXT NOT NULL,
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL
);
CREATE INDEX prolific_calls_study ON prolific_calls (study_id, id);

-- The bonuses of each bonus batch, per participant, so a second batch can
-- say who was already paid.
CREATE TABLE prolific_bonuses (
	call_id        INTEGER NOT NULL REFERENCES prolific_calls (id) ON DELETE CASCADE,
	participant_id TEXT NOT NULL,
	amount_cents   INTEGER NOT NULL CHECK (amount_cents > 0),
	PRIMARY KEY (call_id, participant_id)
);
