-- A study's participant language is any language with a message catalog
-- (i18n/catalogs/<lang>.json, docs/studies.md#languages), checked by
-- domain.Study.Validate against the catalogs the program ships; the column
-- keeps only the shape of a code (2 or 3 lower-case letters). SQLite cannot
-- change a CHECK constraint in place, and copying studies into a new table
-- would cascade-delete everything that references it, so this uses SQLite's
-- documented procedure for loosening a CHECK constraint (ALTER TABLE,
-- "Making Other Kinds Of Table Schema Changes"): the constraint lives only
-- in the schema text, rewritten here, and the schema is then reloaded.
PRAGMA writable_schema = ON;
UPDATE sqlite_schema
SET sql = replace(sql, 'CHECK (lang IN (''en'', ''it''))', 'CHECK (lang GLOB ''[a-z][a-z]'' OR lang GLOB ''[a-z][a-z][a-z]'')')
WHERE type = 'table' AND name = 'studies';
PRAGMA writable_schema = RESET;
