-- The data version of migration 0171 rose with every participant request:
-- an answer updates the participant's answered and last_seen_at and
-- inserts a rating, and each raised the version, so during a running
-- study the kept analysis was thrown away on every screen. The analysis
-- reads the ratings of completed participants only, and of a participant
-- their status, batch, id, pilot flag, times of start and completion and
-- the researcher's decision: the version now rises only when one of
-- those changes, or a completed participant's ratings do.
DROP TRIGGER crowd_participants_data_version_update;
CREATE TRIGGER crowd_participants_data_version_update AFTER UPDATE ON crowd_participants
WHEN OLD.status IS NOT NEW.status OR OLD.exclusion_override IS NOT NEW.exclusion_override
	OR OLD.pilot IS NOT NEW.pilot OR OLD.prolific_pid IS NOT NEW.prolific_pid OR OLD.batch_id IS NOT NEW.batch_id
	OR OLD.started_at IS NOT NEW.started_at OR OLD.completed_at IS NOT NEW.completed_at OR OLD.study_id IS NOT NEW.study_id
BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT NEW.study_id, 1 WHERE NEW.study_id IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;

DROP TRIGGER crowd_ratings_data_version_insert;
DROP TRIGGER crowd_ratings_data_version_update;
DROP TRIGGER crowd_ratings_data_version_delete;
CREATE TRIGGER crowd_ratings_data_version_insert AFTER INSERT ON crowd_ratings BEGIN
	INSERT INTO study_data_versions (study_id, version)
		SELECT study_id, 1 FROM crowd_participants WHERE id = NEW.participant_id AND status = 'completed'
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER crowd_ratings_data_version_update AFTER UPDATE ON crowd_ratings BEGIN
	INSERT INTO study_data_versions (study_id, version)
		SELECT study_id, 1 FROM crowd_participants WHERE id = NEW.participant_id AND status = 'completed'
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER crowd_ratings_data_version_delete AFTER DELETE ON crowd_ratings BEGIN
	INSERT INTO study_data_versions (study_id, version)
		SELECT study_id, 1 FROM crowd_participants WHERE id = OLD.participant_id AND status = 'completed'
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;

-- A participant's arrival inserts an active session and takes a place in
-- a batch (batches.slots_taken), a time-out frees it: neither is read by
-- the analysis until the session completes.
DROP TRIGGER crowd_participants_data_version_insert;
CREATE TRIGGER crowd_participants_data_version_insert AFTER INSERT ON crowd_participants
WHEN NEW.status = 'completed' OR NEW.exclusion_override != ''
BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT NEW.study_id, 1 WHERE NEW.study_id IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;
DROP TRIGGER batches_data_version_update;
CREATE TRIGGER batches_data_version_update AFTER UPDATE ON batches
WHEN OLD.number IS NOT NEW.number OR OLD.study_id IS NOT NEW.study_id
BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT NEW.study_id, 1 WHERE NEW.study_id IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;

-- The same for a context survey: the analysis reads final answers only
-- (sufficient set); an expert asking for one more sentence rewrites an
-- answer that is not final yet, and changes nothing it reads.
DROP TRIGGER context_answers_data_version_insert;
DROP TRIGGER context_answers_data_version_update;
CREATE TRIGGER context_answers_data_version_insert AFTER INSERT ON context_answers
WHEN NEW.sufficient != ''
BEGIN
	INSERT INTO study_data_versions (study_id, version)
		SELECT study_id, 1 FROM passages WHERE id = NEW.passage_id
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER context_answers_data_version_update AFTER UPDATE ON context_answers
WHEN NEW.sufficient != '' OR OLD.sufficient != ''
BEGIN
	INSERT INTO study_data_versions (study_id, version)
		SELECT study_id, 1 FROM passages WHERE id = NEW.passage_id
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;
