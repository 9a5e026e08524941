-- Acknowledgments per device, and plans the phone lets go of (contract §4b "Released plans").
--
-- One row per (tenant, subscriber, plan, device): that device's latest word on the plan, by the
-- device's own clock (the event's `timestamp`), so events applied out of order or twice end in
-- the same row:
--   scheduled_ts  the latest `$local.scheduled` (the device holds the plan from then on),
--   released_ts   the latest `$local.released` (it let go of the plan: the 64-pending limit
--                 pushed it out, or it was removed outside the SDK).
-- The device holds the plan iff scheduled_ts IS NOT NULL AND (released_ts IS NULL OR
-- released_ts < scheduled_ts). A window counts as acknowledged at its moment iff some device
-- holds it and still counts for the run's subscriber: an active device of that subscriber with
-- this token, or '' (clients that do not say which device they are, and rows from before).
--
-- acknowledged_at (server clock) is when the acknowledgment at scheduled_ts was recorded (while
-- only a release has arrived, when that was recorded). It stays NOT NULL, so servers from before
-- this migration can still read every row during a rolling upgrade.
ALTER TABLE acknowledgments ADD COLUMN device text NOT NULL DEFAULT '';
ALTER TABLE acknowledgments ADD COLUMN scheduled_ts timestamptz;
ALTER TABLE acknowledgments ADD COLUMN released_ts timestamptz;
-- Rows from before: the device held the plan from when the acknowledgment was recorded.
UPDATE acknowledgments SET scheduled_ts = acknowledged_at;
-- Rolling upgrades: servers from before this migration keep inserting acknowledgments without
-- naming the new columns until they are replaced; such a row counts as held from when it was
-- written (device ''). Current servers always name scheduled_ts (NULL for a release that
-- arrived first), so the default never applies to them.
ALTER TABLE acknowledgments ALTER COLUMN scheduled_ts SET DEFAULT now();
ALTER TABLE acknowledgments ADD CONSTRAINT acknowledgments_said_something
    CHECK (scheduled_ts IS NOT NULL OR released_ts IS NOT NULL);

-- The fallback check and the run summary look up exact (tenant, subscriber, local id) keys:
-- the primary key's leading columns, then every device of that plan.
ALTER TABLE acknowledgments DROP CONSTRAINT acknowledgments_pkey;
ALTER TABLE acknowledgments ADD PRIMARY KEY (tenant_id, subscriber_id, local_id, device);
