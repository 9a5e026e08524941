-- Run states are written by the workers three or four times in a run's life and read back
-- whole, never queried inside: store them as `json` (kept as written, no jsonb parse on every
-- write and no re-serialisation on every read), and leave room on each page so that updates
-- that do not change an indexed column stay on their page (HOT: no new index entries).
ALTER TABLE runs ALTER COLUMN state TYPE json USING state::json;
ALTER TABLE runs SET (fillfactor = 70);
ALTER TABLE deliveries SET (fillfactor = 80);
