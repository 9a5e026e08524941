-- Data that does not grow forever (issue 14): the retention sweeper finds finished runs by age,
-- and removes their opens with them.
CREATE INDEX runs_finished_age ON runs (updated_at) WHERE status IN ('completed', 'cancelled', 'failed');
CREATE INDEX opens_run ON opens (run_id) WHERE run_id IS NOT NULL;
-- A run's delete cascades to its plans (and the sweeper reads them first): by run.
CREATE INDEX local_plans_run ON local_plans (run_id);
