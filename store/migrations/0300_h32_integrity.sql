-- Integrity signals of each crowd rating (docs/studies.md#integrity-signals),
-- stored in the same write as the rating: input events a script dispatched
-- (isTrusted false), paste and drop events, navigator.webdriver, and whether
-- any pointer or key event came first; NULL when the page's script did not
-- run or sent nonsense. honeypot is what was typed in the field no person
-- sees ('' when left empty, as a person leaves it).
ALTER TABLE crowd_ratings ADD COLUMN untrusted_events INTEGER;
ALTER TABLE crowd_ratings ADD COLUMN pastes INTEGER;
ALTER TABLE crowd_ratings ADD COLUMN webdriver INTEGER;
ALTER TABLE crowd_ratings ADD COLUMN pointer_or_key INTEGER;
ALTER TABLE crowd_ratings ADD COLUMN honeypot TEXT NOT NULL DEFAULT '';
