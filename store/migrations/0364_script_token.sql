-- The server's verdict on a crowd rating's script token
-- (docs/studies.md#server-evidence): 1 when the answer carried the token
-- the page's script derives from the screen's nonce, 0 when it did not
-- (no JavaScript, or a client that did not run the script); NULL for a
-- rating stored before the check existed, which is no evidence either way.
ALTER TABLE crowd_ratings ADD COLUMN script INTEGER;
