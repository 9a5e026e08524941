-- Urgent before bulk (issue 20): a run started by a bulk event sends its plans and wait
-- timers through the bulk lane (plan-dispatch-bulk) unless their moment is near.
ALTER TABLE runs ADD COLUMN bulk boolean NOT NULL DEFAULT false;

-- A run whose trigger is handled after a cancelling event that happened later starts
-- cancelled: the latest event of each cancelling name per subscriber (CancelMark). One row
-- per subscriber and name, so it grows with subscribers, not with traffic.
CREATE TABLE cancel_marks (
    tenant_id text NOT NULL,
    subscriber_id text NOT NULL,
    event text NOT NULL,
    at timestamptz NOT NULL,
    properties jsonb NOT NULL DEFAULT '{}'::jsonb,
    PRIMARY KEY (tenant_id, subscriber_id, event)
);
