-- A run learns its window's decision once: from `window_decisions`, which every stage that
-- reads the run folds in (PendingFacts), as it folds acknowledgments. The decision is kept for
-- the run's life (the retention sweeper removes it with the run), and the run's state is not
-- rewritten for it. The window completer no longer reads, decodes, re-encodes and writes back
-- each run's state (most of the workers' CPU in a window's later life, and 1.7 KB of text a
-- run through PostgreSQL's array parser); it files the run under `completed` (status and updated_at: what run search,
-- the console and retention read) and marks the decision `filed`. A decision the run learnt
-- at once (fallback-check's full path, which has the run loaded and writes it) is recorded
-- filed: its run may go on to further steps, and the completer leaves it alone.
--
-- A rolling upgrade: servers from before this migration leave `filed` NULL. Such a decision
-- may belong to a run that went on (their full path recorded decisions too, without saying),
-- so the completer does not file its run by status: it loads the run and writes the decision
-- into its state, as those servers did. Their own completers still take decisions by deleting
-- them and writing them into the states, which stays correct; their queue scan read
-- window_decisions_age, which this migration replaces with a partial index on the decisions
-- still to be filed.
ALTER TABLE window_decisions ADD COLUMN filed boolean;
CREATE INDEX window_decisions_unfiled ON window_decisions (decided_at) WHERE filed IS NOT TRUE;
DROP INDEX window_decisions_age;
