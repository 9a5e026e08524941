-- An acknowledgment settles its window (issue 15).
--
-- When a device that counts for the subscriber acknowledges a plan before its moment, the
-- acknowledgment's transaction marks the window's timer held (held_at: when that
-- acknowledgment was recorded). The scheduler never claims a held row: at its moment the window
-- is decided "scheduled on device" with no work at all. Every reader of window decisions
-- (a stage folding pending facts, the run summary, the window completer) takes a held row
-- whose moment has passed as the decision it is; the completer writes it into its run later
-- and deletes the row.
--
-- A hold is undone before the moment by anything that could make the moment decide otherwise,
-- and the moment then checks as before: a `$local.released` of the plan (the acknowledgment
-- path does it), and a device of the subscriber that stops counting (logout, APNs refusal, the
-- device limit, the token moving to another subscriber, the device deleted), done here by a
-- trigger so that no code path that changes a device can miss it. A cancel deletes the run's
-- timers, held or not.
ALTER TABLE outbox ADD COLUMN held_at timestamptz;

-- The scheduler claims unheld rows only.
DROP INDEX outbox_due;
CREATE INDEX outbox_due ON outbox (available_at, id) WHERE held_at IS NULL;
-- The window completer takes held rows whose moment has passed.
CREATE INDEX outbox_held ON outbox (available_at) WHERE held_at IS NOT NULL;
-- A device change undoes the holds of its subscriber.
CREATE INDEX outbox_held_subscriber ON outbox (window_tenant_id, window_subscriber_id) WHERE held_at IS NOT NULL;

-- The table is named through the trigger's own schema: a trigger runs with the search_path of
-- whichever session changed the device. The moment is compared as `available_at - now()`, which
-- no index serves, so the subscriber's index finds the rows (not a range of every future timer).
CREATE FUNCTION unhold_subscriber_windows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('UPDATE %I.outbox SET held_at = NULL
                    WHERE held_at IS NOT NULL AND window_tenant_id = $1 AND window_subscriber_id = $2
                      AND available_at - now() > interval ''0''',
                   TG_TABLE_SCHEMA)
        USING OLD.tenant_id, OLD.subscriber_id;
    RETURN NULL;
END $$;

CREATE TRIGGER devices_unhold_on_change AFTER UPDATE OF active, subscriber_id, token ON devices
    FOR EACH ROW WHEN (OLD.active AND (NOT NEW.active OR NEW.subscriber_id <> OLD.subscriber_id OR NEW.token <> OLD.token))
    EXECUTE FUNCTION unhold_subscriber_windows();
CREATE TRIGGER devices_unhold_on_delete AFTER DELETE ON devices
    FOR EACH ROW WHEN (OLD.active)
    EXECUTE FUNCTION unhold_subscriber_windows();
