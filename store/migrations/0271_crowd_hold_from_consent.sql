-- The hold counts from consent, never from a page view
-- (docs/studies.md#no-hoarding): the consented places waiting for their
-- first answer, taken longest ago first.
DROP INDEX crowd_participants_unanswered;

CREATE INDEX crowd_participants_unheld ON crowd_participants (study_id, started_at)
	WHERE status = 'active' AND answered = 0 AND training_done = 0 AND training_wrong = 0 AND pilot = 0;
