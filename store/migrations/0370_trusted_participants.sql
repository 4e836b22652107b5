-- A crowd participant the researcher trusts (a vetted pilot, a lab panel)
-- is the reference LLM-echo compares the others with
-- (docs/statistics.md#llm-echo-against-a-reference): 1 trusted, 0 not.
-- Marking one changes what the study's LLM-echo outcome is computed from,
-- so the data-version trigger watches the column too.
ALTER TABLE crowd_participants ADD COLUMN trusted INTEGER NOT NULL DEFAULT 0 CHECK (trusted IN (0, 1));
DROP TRIGGER crowd_participants_data_version_update;
CREATE TRIGGER crowd_participants_data_version_update
AFTER UPDATE OF status, exclusion_override, pilot, prolific_pid, batch_id, started_at, completed_at, study_id, trusted
ON crowd_participants
WHEN OLD.status IS NOT NEW.status OR OLD.exclusion_override IS NOT NEW.exclusion_override
	OR OLD.pilot IS NOT NEW.pilot OR OLD.prolific_pid IS NOT NEW.prolific_pid OR OLD.batch_id IS NOT NEW.batch_id
	OR OLD.started_at IS NOT NEW.started_at OR OLD.completed_at IS NOT NEW.completed_at OR OLD.study_id IS NOT NEW.study_id
	OR OLD.trusted IS NOT NEW.trusted
BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT NEW.study_id, 1 WHERE NEW.study_id IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;
