-- Fewer bytes and checks in every window (issue 43). Servers from before it keep working
-- while a rolling upgrade replaces them: each change takes what they write and answers what
-- they read (WindowBytesMigrationTests).
--
-- runs.state: BuzzKit writes it and reads it back whole, and no statement looks inside it, so
-- it is text: `json` checked the syntax of every state written (about 12 µs a run, twice in a
-- window's life). json → text is binary-coercible: the table is not rewritten. An older
-- server's `$1::json` is assigned to text as it is.
ALTER TABLE runs ALTER COLUMN state TYPE text;
-- local_plans.fire_at was written with every plan and never read (the payload carries the
-- plan's fireAt): new servers leave it NULL. A later migration drops it, once no server from
-- before this one runs.
ALTER TABLE local_plans ALTER COLUMN fire_at DROP NOT NULL;
-- local_plans.payload: the silent push's body as sent, read back whole (a fallback built from
-- it) or for its `bk.local` member (a device's sync): `json`, kept as written, not `jsonb`,
-- which parsed and rebuilt every plan's body on the way in and printed it again on the way
-- out. Older servers' `$1::jsonb` is assigned to json, and their `payload -> 'bk.local'` reads
-- json as it read jsonb.
ALTER TABLE local_plans ALTER COLUMN payload TYPE json USING payload::json;
-- Pages full again where no update can be heap-only. Every update of a run sets updated_at
-- (in runs_finished_age) and most change its status (in the partial indexes' predicates), so
-- none is heap-only and the 30 % left free on each page (0003) only spread the runs over more
-- pages. A delivery is now inserted with APNs' answer after the send; only a plan-dispatch
-- claim or a retry updates it, and 10 % free keeps those heap-only.
ALTER TABLE runs SET (fillfactor = 100);
ALTER TABLE deliveries SET (fillfactor = 90);
