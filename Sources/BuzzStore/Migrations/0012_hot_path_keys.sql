-- Two foreign keys checked on every row of the hot path, dropped (issue 15).
--
-- runs.tenant_id → tenants: every run inserted ran a referential check on the tenant's row
-- (a `FOR KEY SHARE` lock of that one row, taken by every transaction that starts runs for the
-- tenant). local_plans.run_id → runs: every plan recorded did the same on its run's row, in
-- the transaction that already holds that run `FOR SHARE`. Measured on this machine, 500 rows a
-- statement: 5-8 µs a row for the check alone.
--
-- What the keys guaranteed is kept by the code that writes and removes these rows: a run is
-- started only for a tenant the worker has just read (an unknown tenant's event is refused), a
-- plan is recorded only by the stage its committed run sent it to, and the retention sweeper
-- deletes a finished run's plans with it (as it does its deliveries, opens and decisions).
-- BuzzKit never deletes a tenant; removing one (as after moving it to another shard, README)
-- deletes its rows table by table, runs and plans included.
ALTER TABLE runs DROP CONSTRAINT IF EXISTS runs_tenant_id_fkey;
ALTER TABLE local_plans DROP CONSTRAINT IF EXISTS local_plans_run_id_fkey;
