-- A window settles at its moment without a queue message (issue 15).
--
-- The timer of a local window whose decision ends its run names the window, so the scheduler
-- can decide it from the acknowledgments alone when it comes due: a device holds the plan →
-- "scheduled on device", recorded in window_decisions instead of published to fallback-check.
-- Other timers leave these columns NULL and are published as before.
ALTER TABLE outbox ADD COLUMN window_tenant_id text;
ALTER TABLE outbox ADD COLUMN window_subscriber_id text;
ALTER TABLE outbox ADD COLUMN window_local_id text;
-- Pipeline messages a row carries: a stage packs the messages one batch sends to the same queue
-- into one row and one broker message (a JSON array; the x-buzzkit-items header says how many).
ALTER TABLE outbox ADD COLUMN items integer NOT NULL DEFAULT 1;

-- Decisions made by the scheduler that have not reached their run yet. Every stage that locks
-- the run folds them in first (as it does acknowledgments), the run summary derives the
-- decided window from them, and the window completer writes them into the runs a little
-- later, off the crowded second, then deletes them. No foreign key to runs: its check would
-- row-lock each run (a write to the run's tuple) in the crowded second this table exists to
-- spare; the retention sweeper removes a decision with its run.
CREATE TABLE window_decisions (
    run_id          uuid NOT NULL,
    local_id        text NOT NULL,
    decided_at      timestamptz NOT NULL,      -- the moment's decision, server clock
    acknowledged_at timestamptz NOT NULL,      -- when the acknowledgment that counted was recorded
    PRIMARY KEY (run_id, local_id)
);
CREATE INDEX window_decisions_age ON window_decisions (decided_at);

-- A delivery row is inserted as a claim and updated once with APNs' answer, in the same
-- transaction. With half of each page left free, that update is a heap-only tuple (no indexed
-- column changes): no new entry in any of the table's four indexes. It matters for plans while
-- windows are planned, and for fallbacks at 07:00.
ALTER TABLE deliveries SET (fillfactor = 50);
-- A packed row's body is a batch of plans (tens of kilobytes): stored out of line but not
-- compressed, which would cost more CPU than the bytes it saves for a row that lives a second.
ALTER TABLE outbox ALTER COLUMN body SET STORAGE EXTERNAL;
