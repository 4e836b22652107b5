-- The instruction that only a machine reads (docs/studies.md#machine-instruction):
-- on a screen that carried it, whether the rating gave the point it asked
-- (1) or not (0); NULL on every other screen, and on every rating stored
-- before the setting existed.
ALTER TABLE crowd_ratings ADD COLUMN machine_instruction INTEGER CHECK (machine_instruction IN (0, 1));
