-- Which invitation link an answer came through (docs/deploy.md#security):
-- an expert's link is numbered, 1 when invited, one more at each revoke or
-- re-issue (the token changes then); every answer stores the number of the
-- link it was given through, in the same write. 0: answered before links
-- were recorded.
ALTER TABLE annotators ADD COLUMN link_no INTEGER NOT NULL DEFAULT 1;
ALTER TABLE judgements ADD COLUMN link_no INTEGER NOT NULL DEFAULT 0;
ALTER TABLE context_answers ADD COLUMN link_no INTEGER NOT NULL DEFAULT 0;
ALTER TABLE explain_ratings ADD COLUMN link_no INTEGER NOT NULL DEFAULT 0;
