-- The judgement study (docs/studies.md#judgement-study): a rating or
-- acceptability study of the researcher's own conditions and items. It
-- runs on the crowd study's tables, so this migration loosens what those
-- tables fixed to the likelihood study, by the procedure of migration
-- 0330 (the CHECK constraints live only in the schema text, rewritten
-- here; copying the tables would cascade-delete what references them):
--
--   * studies.kind takes 'judgement';
--   * items.type takes 'judgement', and a judgement item's texts by
--     condition are one JSON object in the new column items.variants;
--   * items.training takes a judgement practice item's expected answer:
--     'any', or a point or range of the scale ('5', '4-5');
--   * crowd_training.condition takes the judgement study's own
--     conditions (checked by the program against the study's settings);
--   * crowd_ratings.rating and crowd_training_answers.rating run to 11,
--     the largest scale (docs/studies.md#rating-scale): until now an
--     8–11 on a scale of 8 points or more failed the constraint, which
--     still said 1–7. Each rating is checked against its study's scale
--     before it is stored (domain.CrowdSettings.ValidRating).
PRAGMA writable_schema = ON;
UPDATE sqlite_schema
SET sql = replace(sql, 'CHECK (kind IN (''expert'', ''crowd'', ''context'', ''explain''))',
	'CHECK (kind IN (''expert'', ''crowd'', ''judgement'', ''context'', ''explain''))')
WHERE type = 'table' AND name = 'studies';
UPDATE sqlite_schema
SET sql = replace(replace(sql,
	'CHECK (type IN (''scalar'', ''discourse'', ''synthetic'', ''natural''))',
	'CHECK (type IN (''scalar'', ''discourse'', ''synthetic'', ''natural'', ''judgement''))'),
	'CHECK (training IN ('''', ''high'', ''low''))',
	'CHECK (training IN ('''', ''high'', ''low'', ''any'') OR training GLOB ''[1-9]'' OR training GLOB ''[1-9]-[1-9]'' OR training GLOB ''[1-9]-1[01]'' OR training GLOB ''1[01]'' OR training GLOB ''1[01]-1[01]'')')
WHERE type = 'table' AND name = 'items';
UPDATE sqlite_schema
SET sql = replace(sql, 'CHECK (condition IN (''trigger'', ''cancel''))', 'CHECK (condition <> '''')')
WHERE type = 'table' AND name = 'crowd_training';
UPDATE sqlite_schema
SET sql = replace(sql, 'CHECK (rating BETWEEN 1 AND 7)', 'CHECK (rating BETWEEN 1 AND 11)')
WHERE type = 'table' AND name IN ('crowd_ratings', 'crowd_training_answers');
PRAGMA writable_schema = RESET;

ALTER TABLE items ADD COLUMN variants TEXT NOT NULL DEFAULT '';
