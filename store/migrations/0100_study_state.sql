-- A study's state (docs/studies.md#study-states): participants and experts
-- answer only while it is open. A new study — however it is inserted, a
-- clone too — starts as a draft; studies that exist when this migration
-- runs were already taking answers, so they stay open.
ALTER TABLE studies ADD COLUMN state TEXT NOT NULL DEFAULT 'draft'
	CHECK (state IN ('draft', 'open', 'paused', 'closed'));
UPDATE studies SET state = 'open';

-- Every change of state, shown on the study page.
CREATE TABLE study_state_changes (
	id         INTEGER PRIMARY KEY,
	study_id   INTEGER NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	state      TEXT NOT NULL,
	changed_by TEXT NOT NULL DEFAULT '',
	changed_at TEXT NOT NULL
);

CREATE INDEX study_state_changes_study ON study_state_changes (study_id, id);
