-- IMPAQTS passages (docs/items.md#passage-items), the context-expansion
-- survey (docs/studies.md#context-expansion-survey) and the rating of model
-- explanations (docs/studies.md#rating-model-explanations).

CREATE TABLE passages (
	id          INTEGER PRIMARY KEY,
	study_id    INTEGER NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	key         TEXT NOT NULL,
	tag         TEXT NOT NULL DEFAULT '',
	kind        TEXT NOT NULL CHECK (kind IN ('Impl', 'Ppp')),
	source      TEXT NOT NULL DEFAULT '',
	period      TEXT NOT NULL DEFAULT '',
	text        TEXT NOT NULL,
	-- JSON array of the passage's sentences; the target is the last.
	sentences   TEXT NOT NULL,
	explanation TEXT NOT NULL,
	topic       INTEGER NOT NULL DEFAULT -1,
	option_a    TEXT NOT NULL DEFAULT '',
	option_b    TEXT NOT NULL DEFAULT '',
	option_c    TEXT NOT NULL DEFAULT '',
	option_d    TEXT NOT NULL DEFAULT '',
	answer      TEXT NOT NULL DEFAULT '' CHECK (answer IN ('', 'A', 'B', 'C', 'D')),
	UNIQUE (study_id, key)
);

CREATE TABLE context_surveys (
	id       INTEGER PRIMARY KEY,
	study_id INTEGER NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	number   INTEGER NOT NULL,
	UNIQUE (study_id, number)
);

CREATE TABLE context_survey_passages (
	survey_id  INTEGER NOT NULL REFERENCES context_surveys (id) ON DELETE CASCADE,
	position   INTEGER NOT NULL,
	passage_id INTEGER NOT NULL REFERENCES passages (id),
	PRIMARY KEY (survey_id, position)
);

-- An expert (annotators, shared with the expert study) answering a survey.
CREATE TABLE context_assignments (
	id           INTEGER PRIMARY KEY,
	annotator_id INTEGER NOT NULL REFERENCES annotators (id) ON DELETE CASCADE,
	survey_id    INTEGER NOT NULL REFERENCES context_surveys (id) ON DELETE CASCADE,
	UNIQUE (annotator_id, survey_id)
);

-- One row per question once the expert has acted on it. shown is how many
-- preceding sentences are revealed; sufficient is '' while the expert is
-- still expanding, and 'yes' or 'no' once the answer is final.
CREATE TABLE context_answers (
	assignment_id INTEGER NOT NULL REFERENCES context_assignments (id) ON DELETE CASCADE,
	position      INTEGER NOT NULL,
	passage_id    INTEGER NOT NULL REFERENCES passages (id),
	shown         INTEGER NOT NULL DEFAULT 0 CHECK (shown BETWEEN 0 AND 5),
	sufficient    TEXT NOT NULL DEFAULT '' CHECK (sufficient IN ('', 'yes', 'no')),
	updated_at    TEXT NOT NULL,
	PRIMARY KEY (assignment_id, position)
);

-- Model explanations to be rated, one per passage × strategy × model.
CREATE TABLE explain_outputs (
	id         INTEGER PRIMARY KEY,
	study_id   INTEGER NOT NULL REFERENCES studies (id) ON DELETE CASCADE,
	passage_id INTEGER NOT NULL REFERENCES passages (id),
	strategy   TEXT NOT NULL,
	model      TEXT NOT NULL,
	output     TEXT NOT NULL,
	UNIQUE (study_id, passage_id, strategy, model)
);

-- The screens of one expert, in the order they see them.
CREATE TABLE explain_assignments (
	id           INTEGER PRIMARY KEY,
	annotator_id INTEGER NOT NULL REFERENCES annotators (id) ON DELETE CASCADE,
	position     INTEGER NOT NULL,
	output_id    INTEGER NOT NULL REFERENCES explain_outputs (id) ON DELETE CASCADE,
	UNIQUE (annotator_id, position),
	UNIQUE (annotator_id, output_id)
);

CREATE TABLE explain_ratings (
	assignment_id INTEGER PRIMARY KEY REFERENCES explain_assignments (id) ON DELETE CASCADE,
	judgment      TEXT NOT NULL CHECK (judgment IN ('totally_correct', 'correct_among_options',
	                  'partially_correct', 'totally_wrong', 'answer_not_given')),
	answered_at   TEXT NOT NULL
);

CREATE INDEX explain_assignments_output ON explain_assignments (output_id);
CREATE INDEX context_survey_passages_passage ON context_survey_passages (passage_id);
