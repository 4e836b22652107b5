-- Training items are items of their own (docs/formats.md#items-csv),
-- marked in the import file with the answer they expect: 'high' (shown
-- without its cancellation, to be rated above 3) or 'low' (shown with its
-- cancellation, to be rated below 5). They are kept out of the batches.
ALTER TABLE items ADD COLUMN training TEXT NOT NULL DEFAULT ''
	CHECK (training IN ('', 'high', 'low'));
