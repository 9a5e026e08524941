-- A delivery is known by its idempotency key and device (issue 43).
--
-- `deliveries.id` (bigserial, the primary key since 0002) is read by no statement: a push is
-- found by (idempotency_key, device_id), whose unique index every insert checks anyway, or by
-- its run or message. Its index was one B-tree entry more per push (1.5 a window: the plan,
-- and half the windows' fallbacks), a sequence step, and about 30 bytes kept per push. The
-- unique pair identifies a row from now on (also for logical replication); the column stays,
-- NULL for new rows, so servers from before this migration, which name neither, go on
-- inserting while a rolling upgrade replaces them. A later migration drops it.
ALTER TABLE deliveries DROP CONSTRAINT deliveries_pkey;
ALTER TABLE deliveries ALTER COLUMN id DROP DEFAULT, ALTER COLUMN id DROP NOT NULL;
ALTER TABLE deliveries REPLICA IDENTITY USING INDEX deliveries_idempotency_key_device_id_key;
