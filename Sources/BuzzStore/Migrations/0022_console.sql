-- The console's reads, kept off the hot path.
--
-- The health page counts a tenant's pushes and decided windows per minute over the last hour.
-- BRIN indexes over the insertion-ordered times make that a read of a few pages without a
-- B-tree entry per row: a BRIN is kept per range of 32 pages, and `autosummarize` has
-- autovacuum summarise each range as soon as the next one starts filling (an unsummarised
-- range is read whole, so without it the newest hour, the one asked for, is the slow part).
CREATE INDEX deliveries_created_brin ON deliveries USING brin (created_at) WITH (pages_per_range = 32, autosummarize = on);
CREATE INDEX local_plans_moment_brin ON local_plans USING brin (moment) WITH (pages_per_range = 32, autosummarize = on);

-- The runs search filtered by a status few runs end in, newest first: without it, "failed"
-- walked every run of the tenant (614 ms over 1,000,000). Only failed and cancelled runs have
-- an entry, so the windows that complete (nearly all) write nothing more. "running" and
-- "waiting" use runs_open_by_subscriber.
CREATE INDEX runs_ended_badly_newest ON runs (tenant_id, status, created_at DESC, id DESC) WHERE status IN ('failed', 'cancelled');
