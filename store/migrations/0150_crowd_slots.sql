-- Places taken in each crowd batch, kept with the batch and updated in the
-- same transaction as the participant (store.takeSlot, store.freeSlot), so
-- assigning a batch is an index lookup instead of counting every batch's
-- participants. A place is held by an active participant (idle or not)
-- and by a completed one; expert batches keep 0.
ALTER TABLE batches ADD COLUMN slots_taken INTEGER NOT NULL DEFAULT 0;

UPDATE batches SET slots_taken = (
	SELECT COUNT(*) FROM crowd_participants p
	WHERE p.batch_id = batches.id AND p.status IN ('active', 'completed'));

-- The least-filled batch of a study, and its oldest idle participant.
CREATE INDEX batches_slots ON batches (study_id, slots_taken, number);
CREATE INDEX crowd_participants_idle ON crowd_participants (study_id, status, last_seen_at);
