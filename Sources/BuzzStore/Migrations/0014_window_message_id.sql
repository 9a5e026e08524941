-- The scheduler settles acknowledged windows inside its claim statement (issue 15).
--
-- A timer that names its window (0011) now also carries the plan's message id, so the claim
-- can apply the counting rule in SQL: an acknowledgment that names another message (of an
-- earlier plan of the same local id) does not count. The statement then returns only the rows
-- to publish; a settled window's row never leaves PostgreSQL. Rows written before this column
-- (NULL) are published to fallback-check, which decides them as it always did.
ALTER TABLE outbox ADD COLUMN window_message_id text;
