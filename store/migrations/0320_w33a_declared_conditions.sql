-- Declared conditions (docs/studies.md#conditions): every crowd study
-- names the conditions it runs in its settings, and imports, tables and
-- the R companion follow them. A crowd study whose settings do not name
-- them yet (made before its settings were saved) declares the conditions
-- its batches show, in the documented order (trigger, cancel, negation,
-- strengthen, neutral), trigger and cancel always; with no batches yet,
-- trigger and cancel. Settings that are not a JSON object are left alone.
UPDATE studies
SET settings = json_set(settings, '$.conditions', json(
	'["trigger","cancel"' ||
	(SELECT coalesce(group_concat(',"' || name || '"', ''), '') FROM (
		SELECT c.name FROM (SELECT 'negation' AS name, 3 AS ord UNION ALL SELECT 'strengthen', 4 UNION ALL SELECT 'neutral', 5) AS c
		WHERE EXISTS (SELECT 1 FROM batch_items bi JOIN batches b ON b.id = bi.batch_id
		              WHERE b.study_id = studies.id AND bi.condition = c.name)
		ORDER BY c.ord)) ||
	']'))
WHERE kind = 'crowd'
  AND json_valid(settings) AND json_type(settings) = 'object'
  AND (json_type(settings, '$.conditions') IS NULL
       OR json_type(settings, '$.conditions') = 'null'
       OR (json_type(settings, '$.conditions') = 'array' AND json_array_length(settings, '$.conditions') = 0));
