-- A packed outbox row's body, compressed and kept on its row (issue 43).
--
-- The trigger stage writes the plans of a batch into one outbox row before its commit, sends
-- them after, and deletes the row: the row is there for a worker that dies in between. Each
-- plan in it is about 2 KB of JSON and a batch holds tens, so the body (0011: stored out of
-- line, uncompressed) went to the TOAST table in 2 KB chunks, each a heap row, an index entry
-- and a WAL record, written, deleted and vacuumed again within the second: 1.3 KB of the
-- 8.6 KB of WAL a sustained window wrote. The batch's plans are alike (the same keys, and one
-- workflow's title and body), and lz4 shrinks such a body about eight times, at a few
-- microseconds a window. `MAIN` keeps it on its row once compressed; a body that still does
-- not fit its page goes out of line as before. What readers see is the same bytes: servers
-- from before this migration read and write these rows unchanged.
ALTER TABLE outbox ALTER COLUMN body SET STORAGE MAIN;
-- lz4 where the server has it (PostgreSQL built --with-lz4, as Debian's and the official
-- images are); otherwise the default method compresses, more slowly.
DO $$
BEGIN
    ALTER TABLE outbox ALTER COLUMN body SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
    RAISE NOTICE 'lz4 is not available; outbox bodies are compressed with the default method';
END $$;
