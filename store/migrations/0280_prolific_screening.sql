-- A crowd study's screening on Prolific (docs/prolific.md#screening): the
-- filters Create draft sends and the eligible count counts. A screening is
-- saved whole, in one transaction, so it is never half the old and half the
-- new. selected_values and labels are JSON arrays (Prolific's choice ids and
-- their text); a range filter has is_range = 1 and its bounds.
CREATE TABLE prolific_screening (
	study_id        INTEGER NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	filter_id       TEXT NOT NULL,
	title           TEXT NOT NULL DEFAULT '',
	selected_values TEXT NOT NULL DEFAULT '[]',
	labels          TEXT NOT NULL DEFAULT '[]',
	is_range        INTEGER NOT NULL DEFAULT 0 CHECK (is_range IN (0, 1)),
	lower           REAL NOT NULL DEFAULT 0,
	upper           REAL NOT NULL DEFAULT 0,
	position        INTEGER NOT NULL,
	PRIMARY KEY (study_id, filter_id),
	CHECK (is_range = 0 OR lower <= upper)
);

-- The last eligible count Prolific gave for the screening, so the page can
-- show it (and warn when it is thin) without asking Prolific at each visit.
-- A saved screening clears it: the count was of another screening.
CREATE TABLE prolific_eligible (
	study_id   INTEGER PRIMARY KEY REFERENCES studies (id) ON DELETE CASCADE,
	count      INTEGER NOT NULL,
	counted_at TEXT NOT NULL
);
