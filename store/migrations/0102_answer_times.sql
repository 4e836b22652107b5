-- The times of every answer (docs/formats.md#answer-times): when its screen
-- was first shown (server clock), when the answer arrived (server clock),
-- and the response time the browser measured (ms; NULL without JavaScript).

-- The first showing of each screen. flow names the participant page and
-- owner its holder: 'crowd' and 'training' a crowd participant, 'expert' an
-- expert assignment, 'context' a context assignment, 'explain' an annotator.
CREATE TABLE screen_views (
	flow     TEXT NOT NULL,
	owner    INTEGER NOT NULL,
	position INTEGER NOT NULL,
	shown_at TEXT NOT NULL,
	PRIMARY KEY (flow, owner, position)
) WITHOUT ROWID;

ALTER TABLE crowd_ratings ADD COLUMN shown_at TEXT NOT NULL DEFAULT '';
ALTER TABLE crowd_ratings ADD COLUMN rt_ms INTEGER;
ALTER TABLE crowd_training_answers ADD COLUMN shown_at TEXT NOT NULL DEFAULT '';
ALTER TABLE crowd_training_answers ADD COLUMN rt_ms INTEGER;
ALTER TABLE judgements ADD COLUMN shown_at TEXT NOT NULL DEFAULT '';
ALTER TABLE judgements ADD COLUMN rt_ms INTEGER;
-- A context answer is final when sufficient is set; answered_at is then.
ALTER TABLE context_answers ADD COLUMN shown_at TEXT NOT NULL DEFAULT '';
ALTER TABLE context_answers ADD COLUMN answered_at TEXT NOT NULL DEFAULT '';
ALTER TABLE context_answers ADD COLUMN rt_ms INTEGER;
ALTER TABLE explain_ratings ADD COLUMN shown_at TEXT NOT NULL DEFAULT '';
ALTER TABLE explain_ratings ADD COLUMN rt_ms INTEGER;
