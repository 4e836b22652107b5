-- Typed justifications (docs/studies.md#typed-justifications): on the one
-- or two rating screens drawn for a participant, the text they typed to
-- say why they chose their rating, and the summary of how it was typed
-- (never the keys): key presses, revisions, characters typed and inserted
-- otherwise, pastes, the inter-key intervals' median, IQR and coefficient
-- of variation (%), the mean interval within words and before words, the
-- median before clauses, long pauses and bursts. NULL: not sent (no
-- JavaScript). Written in the same transaction as the screen's rating.
CREATE TABLE crowd_justifications (
	participant_id  INTEGER NOT NULL REFERENCES crowd_participants (id) ON DELETE CASCADE,
	position        INTEGER NOT NULL,
	text            TEXT NOT NULL,
	keys            INTEGER,
	revisions       INTEGER,
	typed_chars     INTEGER,
	inserted_chars  INTEGER,
	pastes          INTEGER,
	iki_median_ms   INTEGER,
	iki_iqr_ms      INTEGER,
	iki_cv_pct      INTEGER,
	within_word_ms  INTEGER,
	word_pause_ms   INTEGER,
	clause_pause_ms INTEGER,
	long_pauses     INTEGER,
	bursts          INTEGER,
	PRIMARY KEY (participant_id, position)
);
