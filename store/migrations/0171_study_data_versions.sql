-- A study's data version (docs/architecture.md#studies): a number that
-- grows with every write to what the study's analysis is computed from —
-- its settings, items, batches, participants and their ratings, the
-- experts and their judgements, passages, surveys and answers, model
-- outputs and their ratings. Triggers keep it, so every writer bumps it,
-- this server or another process on the same file (the CLI), and
-- Service.Analysis computes an analysis once per version. It never
-- decreases, also when a study is deleted and its id reused: no foreign
-- key, so a row outlives its study.
CREATE TABLE study_data_versions (
	study_id INTEGER PRIMARY KEY,
	version  INTEGER NOT NULL
);

CREATE TRIGGER studies_data_version_insert AFTER INSERT ON studies BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT NEW.id, 1 WHERE NEW.id IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER studies_data_version_update AFTER UPDATE ON studies BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT NEW.id, 1 WHERE NEW.id IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER studies_data_version_delete AFTER DELETE ON studies BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT OLD.id, 1 WHERE OLD.id IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER items_data_version_insert AFTER INSERT ON items BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT NEW.study_id, 1 WHERE NEW.study_id IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER items_data_version_update AFTER UPDATE ON items BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT NEW.study_id, 1 WHERE NEW.study_id IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER items_data_version_delete AFTER DELETE ON items BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT OLD.study_id, 1 WHERE OLD.study_id IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER batches_data_version_insert AFTER INSERT ON batches BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT NEW.study_id, 1 WHERE NEW.study_id IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER batches_data_version_update AFTER UPDATE ON batches BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT NEW.study_id, 1 WHERE NEW.study_id IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER batches_data_version_delete AFTER DELETE ON batches BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT OLD.study_id, 1 WHERE OLD.study_id IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER crowd_participants_data_version_insert AFTER INSERT ON crowd_participants BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT NEW.study_id, 1 WHERE NEW.study_id IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER crowd_participants_data_version_update AFTER UPDATE ON crowd_participants BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT NEW.study_id, 1 WHERE NEW.study_id IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER crowd_participants_data_version_delete AFTER DELETE ON crowd_participants BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT OLD.study_id, 1 WHERE OLD.study_id IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER annotators_data_version_insert AFTER INSERT ON annotators BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT NEW.study_id, 1 WHERE NEW.study_id IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER annotators_data_version_update AFTER UPDATE ON annotators BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT NEW.study_id, 1 WHERE NEW.study_id IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER annotators_data_version_delete AFTER DELETE ON annotators BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT OLD.study_id, 1 WHERE OLD.study_id IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER passages_data_version_insert AFTER INSERT ON passages BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT NEW.study_id, 1 WHERE NEW.study_id IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER passages_data_version_update AFTER UPDATE ON passages BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT NEW.study_id, 1 WHERE NEW.study_id IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER passages_data_version_delete AFTER DELETE ON passages BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT OLD.study_id, 1 WHERE OLD.study_id IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER context_surveys_data_version_insert AFTER INSERT ON context_surveys BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT NEW.study_id, 1 WHERE NEW.study_id IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER context_surveys_data_version_update AFTER UPDATE ON context_surveys BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT NEW.study_id, 1 WHERE NEW.study_id IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER context_surveys_data_version_delete AFTER DELETE ON context_surveys BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT OLD.study_id, 1 WHERE OLD.study_id IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER explain_outputs_data_version_insert AFTER INSERT ON explain_outputs BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT NEW.study_id, 1 WHERE NEW.study_id IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER explain_outputs_data_version_update AFTER UPDATE ON explain_outputs BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT NEW.study_id, 1 WHERE NEW.study_id IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER explain_outputs_data_version_delete AFTER DELETE ON explain_outputs BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT OLD.study_id, 1 WHERE OLD.study_id IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER crowd_ratings_data_version_insert AFTER INSERT ON crowd_ratings BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT (SELECT study_id FROM crowd_participants WHERE id = NEW.participant_id), 1 WHERE (SELECT study_id FROM crowd_participants WHERE id = NEW.participant_id) IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER crowd_ratings_data_version_update AFTER UPDATE ON crowd_ratings BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT (SELECT study_id FROM crowd_participants WHERE id = NEW.participant_id), 1 WHERE (SELECT study_id FROM crowd_participants WHERE id = NEW.participant_id) IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER crowd_ratings_data_version_delete AFTER DELETE ON crowd_ratings BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT (SELECT study_id FROM crowd_participants WHERE id = OLD.participant_id), 1 WHERE (SELECT study_id FROM crowd_participants WHERE id = OLD.participant_id) IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER judgements_data_version_insert AFTER INSERT ON judgements BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT (SELECT study_id FROM items WHERE id = NEW.item_id), 1 WHERE (SELECT study_id FROM items WHERE id = NEW.item_id) IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER judgements_data_version_update AFTER UPDATE ON judgements BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT (SELECT study_id FROM items WHERE id = NEW.item_id), 1 WHERE (SELECT study_id FROM items WHERE id = NEW.item_id) IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER judgements_data_version_delete AFTER DELETE ON judgements BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT (SELECT study_id FROM items WHERE id = OLD.item_id), 1 WHERE (SELECT study_id FROM items WHERE id = OLD.item_id) IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER context_answers_data_version_insert AFTER INSERT ON context_answers BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT (SELECT study_id FROM passages WHERE id = NEW.passage_id), 1 WHERE (SELECT study_id FROM passages WHERE id = NEW.passage_id) IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER context_answers_data_version_update AFTER UPDATE ON context_answers BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT (SELECT study_id FROM passages WHERE id = NEW.passage_id), 1 WHERE (SELECT study_id FROM passages WHERE id = NEW.passage_id) IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER context_answers_data_version_delete AFTER DELETE ON context_answers BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT (SELECT study_id FROM passages WHERE id = OLD.passage_id), 1 WHERE (SELECT study_id FROM passages WHERE id = OLD.passage_id) IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER explain_ratings_data_version_insert AFTER INSERT ON explain_ratings BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT (SELECT o.study_id FROM explain_assignments x JOIN explain_outputs o ON o.id = x.output_id WHERE x.id = NEW.assignment_id), 1 WHERE (SELECT o.study_id FROM explain_assignments x JOIN explain_outputs o ON o.id = x.output_id WHERE x.id = NEW.assignment_id) IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER explain_ratings_data_version_update AFTER UPDATE ON explain_ratings BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT (SELECT o.study_id FROM explain_assignments x JOIN explain_outputs o ON o.id = x.output_id WHERE x.id = NEW.assignment_id), 1 WHERE (SELECT o.study_id FROM explain_assignments x JOIN explain_outputs o ON o.id = x.output_id WHERE x.id = NEW.assignment_id) IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER explain_ratings_data_version_delete AFTER DELETE ON explain_ratings BEGIN
	INSERT INTO study_data_versions (study_id, version) SELECT (SELECT o.study_id FROM explain_assignments x JOIN explain_outputs o ON o.id = x.output_id WHERE x.id = OLD.assignment_id), 1 WHERE (SELECT o.study_id FROM explain_assignments x JOIN explain_outputs o ON o.id = x.output_id WHERE x.id = OLD.assignment_id) IS NOT NULL
		ON CONFLICT (study_id) DO UPDATE SET version = version + 1;
END;
