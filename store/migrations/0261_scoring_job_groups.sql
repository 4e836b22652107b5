-- Jobs launched together, one per model over the same prompts
-- (docs/scoring.md#many-models-in-one-go): the comparison table puts a
-- group's models side by side. group_id is the group's first job.

CREATE TABLE scoring_job_groups (
	job_id   INTEGER PRIMARY KEY REFERENCES scoring_jobs (id) ON DELETE CASCADE,
	group_id INTEGER NOT NULL
);

CREATE INDEX scoring_job_groups_group ON scoring_job_groups (group_id);
