-- Integrity signals on every participant form, not only the crowd's rating
-- screens (docs/studies.md#integrity-signals), stored in the same
-- write as the answer: the four signals (NULL when the page's script did
-- not run or sent nonsense) and the honeypot ('' when left empty). Forms
-- with free text also keep the keystroke summary
-- (docs/studies.md#keystroke-summaries): characters typed and inserted,
-- median and IQR of the inter-key interval in ms; never the keys.
ALTER TABLE judgements ADD COLUMN untrusted_events INTEGER;
ALTER TABLE judgements ADD COLUMN pastes INTEGER;
ALTER TABLE judgements ADD COLUMN webdriver INTEGER;
ALTER TABLE judgements ADD COLUMN pointer_or_key INTEGER;
ALTER TABLE judgements ADD COLUMN honeypot TEXT NOT NULL DEFAULT '';
ALTER TABLE judgements ADD COLUMN typed_chars INTEGER;
ALTER TABLE judgements ADD COLUMN inserted_chars INTEGER;
ALTER TABLE judgements ADD COLUMN iki_median_ms INTEGER;
ALTER TABLE judgements ADD COLUMN iki_iqr_ms INTEGER;

ALTER TABLE context_answers ADD COLUMN untrusted_events INTEGER;
ALTER TABLE context_answers ADD COLUMN pastes INTEGER;
ALTER TABLE context_answers ADD COLUMN webdriver INTEGER;
ALTER TABLE context_answers ADD COLUMN pointer_or_key INTEGER;
ALTER TABLE context_answers ADD COLUMN honeypot TEXT NOT NULL DEFAULT '';

ALTER TABLE explain_ratings ADD COLUMN untrusted_events INTEGER;
ALTER TABLE explain_ratings ADD COLUMN pastes INTEGER;
ALTER TABLE explain_ratings ADD COLUMN webdriver INTEGER;
ALTER TABLE explain_ratings ADD COLUMN pointer_or_key INTEGER;
ALTER TABLE explain_ratings ADD COLUMN honeypot TEXT NOT NULL DEFAULT '';

ALTER TABLE crowd_questionnaires ADD COLUMN untrusted_events INTEGER;
ALTER TABLE crowd_questionnaires ADD COLUMN pastes INTEGER;
ALTER TABLE crowd_questionnaires ADD COLUMN webdriver INTEGER;
ALTER TABLE crowd_questionnaires ADD COLUMN pointer_or_key INTEGER;
ALTER TABLE crowd_questionnaires ADD COLUMN honeypot TEXT NOT NULL DEFAULT '';
ALTER TABLE crowd_questionnaires ADD COLUMN typed_chars INTEGER;
ALTER TABLE crowd_questionnaires ADD COLUMN inserted_chars INTEGER;
ALTER TABLE crowd_questionnaires ADD COLUMN iki_median_ms INTEGER;
ALTER TABLE crowd_questionnaires ADD COLUMN iki_iqr_ms INTEGER;
