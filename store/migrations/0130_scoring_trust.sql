-- A job with failed prompts never reads "done" (docs/scoring.md#jobs). It ends
-- 'partial' (some prompts answered, some failed or not asked) or 'failed'
-- (none answered). SQLite cannot change a CHECK constraint in place, so
-- both scoring tables are rebuilt: prompts first into a copy that points
-- at the new jobs table, so dropping the old jobs table cascades nowhere.

CREATE TABLE scoring_jobs_new (
	id          INTEGER PRIMARY KEY,
	study_id    INTEGER NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	task        TEXT NOT NULL CHECK (task IN ('truefalse', 'multiplechoice', 'generation')),
	scorer      TEXT NOT NULL,
	config      TEXT NOT NULL DEFAULT '{}',
	strategy    TEXT NOT NULL DEFAULT '',
	seed        INTEGER NOT NULL DEFAULT 1,
	compare_study_id INTEGER REFERENCES studies (id) ON DELETE SET NULL,
	status      TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done', 'partial', 'failed', 'cancelled')),
	error       TEXT NOT NULL DEFAULT '',
	created_at  TEXT NOT NULL,
	started_at  TEXT NOT NULL DEFAULT '',
	finished_at TEXT NOT NULL DEFAULT '',
	lease_owner TEXT NOT NULL DEFAULT '',
	lease_until INTEGER NOT NULL DEFAULT 0
);

INSERT INTO scoring_jobs_new (id, study_id, task, scorer, config, strategy, seed, compare_study_id, status, error, created_at, started_at, finished_at, lease_owner, lease_until)
SELECT id, study_id, task, scorer, config, strategy, seed, compare_study_id, status, error, created_at, started_at, finished_at, lease_owner, lease_until
FROM scoring_jobs;

CREATE TABLE scoring_prompts_new (
	job_id      INTEGER NOT NULL REFERENCES scoring_jobs_new (id) ON DELETE CASCADE,
	seq         INTEGER NOT NULL,
	key         TEXT NOT NULL,
	item_key    TEXT NOT NULL,
	condition   TEXT NOT NULL DEFAULT '',
	option_order TEXT NOT NULL DEFAULT '',
	text        TEXT NOT NULL,
	answer      TEXT,
	error       TEXT NOT NULL DEFAULT '',
	attempts    INTEGER NOT NULL DEFAULT 0,
	answered_at TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (job_id, seq),
	UNIQUE (job_id, key)
);

INSERT INTO scoring_prompts_new (job_id, seq, key, item_key, condition, option_order, text, answer, error, attempts, answered_at)
SELECT job_id, seq, key, item_key, condition, option_order, text, answer, error, attempts, answered_at
FROM scoring_prompts;

DROP TABLE scoring_prompts;
DROP TABLE scoring_jobs;
ALTER TABLE scoring_jobs_new RENAME TO scoring_jobs;
ALTER TABLE scoring_prompts_new RENAME TO scoring_prompts;

CREATE INDEX scoring_jobs_study ON scoring_jobs (study_id, id);
CREATE INDEX scoring_jobs_status ON scoring_jobs (status);

-- Jobs that ended "done" with failed prompts were misreported: they become
-- partial, or failed when nothing was answered.
UPDATE scoring_jobs SET status = CASE
		WHEN NOT EXISTS (SELECT 1 FROM scoring_prompts p WHERE p.job_id = scoring_jobs.id AND p.answer IS NOT NULL) THEN 'failed'
		ELSE 'partial' END
WHERE status = 'done' AND EXISTS (SELECT 1 FROM scoring_prompts p WHERE p.job_id = scoring_jobs.id AND p.answer IS NULL);
