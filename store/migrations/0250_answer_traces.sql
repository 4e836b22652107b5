-- Behavioural traces of each crowd rating (docs/studies.md#behavioural-traces),
-- stored in the same write as the rating: answer changes before sending,
-- the time the page was hidden, and from first paint to first interaction.
-- NULL when the page's script did not run.
ALTER TABLE crowd_ratings ADD COLUMN answer_changes INTEGER;
ALTER TABLE crowd_ratings ADD COLUMN hidden_ms INTEGER;
ALTER TABLE crowd_ratings ADD COLUMN first_input_ms INTEGER;
