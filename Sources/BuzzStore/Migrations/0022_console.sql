-- The console's health page counts a tenant's pushes and decided windows per minute over the
-- last hour. BRIN indexes over the insertion-ordered times keep that a read of a few pages
-- without a B-tree entry per row on the hot path (a BRIN is summarised in block ranges).
CREATE INDEX deliveries_created_brin ON deliveries USING brin (created_at);
CREATE INDEX local_plans_moment_brin ON local_plans USING brin (moment);
