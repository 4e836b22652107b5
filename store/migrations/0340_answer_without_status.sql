-- An answer to any screen but the last sets crowd_participants.answered
-- alone (store.qAnswerNext). The data-version trigger of migration 0172
-- watched every UPDATE of the table, and SQLite built its OLD and NEW rows
-- for each answer only to find nothing it watches changed: it now names
-- the columns it watches, so a statement that sets none of them does not
-- run it. What it watches, and when it raises the version, is unchanged.
DROP TRIGGER crowd_participants_data_version_update;
CREATE TRIGGER crowd_participants_data_version_update
AFTER UPDATE OF status, exclusion_override, pilot, prolific_pid, batch_id, started_at, completed_at, study_id
ON crowd_participants
WHEN OLD.status IS NOT NEW.status OR OLD.exclusion_override IS NOT NEW.exclusion_override
	OR OLD.pilot IS NOT NEW.pilot OR OLD.prolific_pid IS NOT NEW.prolific_pid OR OLD.batch_id IS NOT NEW.batch_id
	OR OLD.started_at IS NOT NEW.started_at OR OLD.completed_at IS NOT NEW.completed_at OR OLD.study_id IS NOT NEW.study_id
BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT NEW.study_id, 1 WHERE NEW.study_id IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;
