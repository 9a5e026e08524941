-- fallback-check decides an unacknowledged window whose decision ends its run without loading
-- the run (issue 15): it sends the fallback and records the decision here, and the window
-- completer writes the run later, as it does for the windows the scheduler settled. A row is
-- either "scheduled on device" (acknowledged_at set) or a fallback sent (fallback_reason set).
ALTER TABLE window_decisions ALTER COLUMN acknowledged_at DROP NOT NULL;
ALTER TABLE window_decisions ADD COLUMN fallback_reason text;
ALTER TABLE window_decisions ADD CONSTRAINT window_decisions_one_outcome
    CHECK ((acknowledged_at IS NULL) <> (fallback_reason IS NULL));
