-- A run's state in a table of its own (issue 43).
--
-- A window's run is written twice: inserted waiting, with its state, and filed `completed` by
-- the window completer, which changes only its status and updated_at. PostgreSQL copies the
-- whole row on an update, and this one can never be heap-only (status is in three partial
-- indexes' predicates, updated_at in runs_finished_age), so the second write copied the state
-- (0.8 KB of a 1 KB row) into a new version, its WAL and, until vacuum, a dead tuple. Here the
-- state lives in run_states, keyed by run: the completer's update copies a row of about 0.2 KB,
-- and a state is rewritten only when the engine changes it. No foreign key: its check would
-- lock the run's row for every state written; the statements that delete runs (retention,
-- erasure) delete their states beside them, as they do the plans (0012).
--
-- A rolling upgrade: servers from before this migration read and write `runs.state` only.
-- New servers read the state from run_states and, for a run without a row there, from
-- runs.state, so runs an older server started read as before. What a new server writes is its
-- setting (BUZZKIT_RUN_STATE_FORM): `compact` (the default) writes run_states and leaves
-- runs.state NULL, which older servers cannot read; `verbose` writes runs.state, as they did,
-- and removes the run's row in run_states, for the length of a process-by-process upgrade
-- (docs/operations.md, "Upgrading").
CREATE TABLE run_states (
    run_id uuid PRIMARY KEY,
    state  text NOT NULL
);
ALTER TABLE runs ALTER COLUMN state DROP NOT NULL;
