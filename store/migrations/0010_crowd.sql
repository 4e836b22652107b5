-- Crowd likelihood study (docs/studies.md#crowd-likelihood-study): Prolific
-- participants, the training items of a study, training attempts and the 1–7
-- ratings. Batches reuse the core tables batches/batch_items (condition
-- filled in; attention checks are items with check_kind 'high' or 'low').

CREATE TABLE crowd_training (
	study_id  INTEGER NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	position  INTEGER NOT NULL,
	item_id   INTEGER NOT NULL REFERENCES items (id),
	condition TEXT NOT NULL CHECK (condition IN ('trigger', 'cancel')),
	PRIMARY KEY (study_id, position)
);

CREATE TABLE crowd_participants (
	id                  INTEGER PRIMARY KEY,
	study_id            INTEGER NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	batch_id            INTEGER NOT NULL REFERENCES batches (id),
	prolific_pid        TEXT NOT NULL,
	prolific_study_id   TEXT NOT NULL DEFAULT '',
	prolific_session_id TEXT NOT NULL DEFAULT '',
	-- The cookie value that binds the session to a browser (random, 256 bits).
	token               TEXT NOT NULL UNIQUE,
	status              TEXT NOT NULL DEFAULT 'active'
		CHECK (status IN ('active', 'completed', 'moved_on', 'screened_out')),
	consented_at        TEXT,
	-- Training items to pass, passed, and wrong answers on the current one.
	training            INTEGER NOT NULL,
	training_done       INTEGER NOT NULL DEFAULT 0,
	training_wrong      INTEGER NOT NULL DEFAULT 0,
	-- Screens of the batch, and how many are answered: the next screen is
	-- answered + 1.
	screens             INTEGER NOT NULL,
	answered            INTEGER NOT NULL DEFAULT 0,
	started_at          TEXT NOT NULL,
	last_seen_at        TEXT NOT NULL,
	completed_at        TEXT,
	-- The researcher's decision over the automatic exclusion.
	exclusion_override  TEXT NOT NULL DEFAULT '' CHECK (exclusion_override IN ('', 'include', 'exclude')),
	UNIQUE (study_id, prolific_pid)
);

CREATE INDEX crowd_participants_batch ON crowd_participants (batch_id, status, last_seen_at);

-- One row per answered screen; a resubmit of the same screen is ignored.
CREATE TABLE crowd_ratings (
	participant_id INTEGER NOT NULL REFERENCES crowd_participants (id) ON DELETE CASCADE,
	position       INTEGER NOT NULL,
	item_id        INTEGER NOT NULL REFERENCES items (id),
	condition      TEXT NOT NULL,
	rating         INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 7),
	answered_at    TEXT NOT NULL,
	PRIMARY KEY (participant_id, position)
) WITHOUT ROWID;

-- Every training answer, kept so the researcher can see who needed retries.
CREATE TABLE crowd_training_answers (
	participant_id INTEGER NOT NULL REFERENCES crowd_participants (id) ON DELETE CASCADE,
	position       INTEGER NOT NULL,
	attempt        INTEGER NOT NULL,
	rating         INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 7),
	passed         INTEGER NOT NULL,
	answered_at    TEXT NOT NULL,
	PRIMARY KEY (participant_id, position, attempt)
) WITHOUT ROWID;
