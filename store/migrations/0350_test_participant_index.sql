-- Every crowd arrival asks, inside the writer, whether its PROLIFIC_PID is
-- a test participant created from pragmalab (store.isTestParticipant).
-- prolific_calls holds every call to Prolific (approvals, bonuses,
-- messages), and the only index was (study_id, id): the question read the
-- whole journal at each arrival. The test participants are a handful of
-- its rows; this index holds those alone, by the id Prolific answered.
CREATE INDEX prolific_calls_test_participants ON prolific_calls (lower(response))
	WHERE kind = 'test_participant' AND state = 'done';
