-- What operators need (issue 14).
-- A retired workflow (DELETE /v1/workflows/{key}) starts no new run; its live runs go on, and
-- still cancel on their events (the head keeps its cancel_events). PUT brings it back as a
-- new version.
ALTER TABLE workflow_heads ADD COLUMN retired_at timestamptz;
ALTER TABLE workflow_heads ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();

-- Run search, newest first, with keyset cursors: by tenant, and by tenant and subscriber.
CREATE INDEX runs_by_tenant_newest ON runs (tenant_id, created_at DESC, id DESC);
CREATE INDEX runs_by_subscriber_newest ON runs (tenant_id, subscriber_id, created_at DESC, id DESC);
