-- Erasure (DELETE /v1/subscribers/{id}) leaves one row behind: a tombstone keyed by the
-- SHA-256 of the subscriber id (not the id itself), which refuses that subscriber's late
-- device traffic (410) until the retention sweeper removes it after
-- BUZZKIT_RETENTION_ERASED_SUBSCRIBER_DAYS. The backend putting the subscriber again removes it.
CREATE TABLE erased_subscribers (
    tenant_id       text NOT NULL,
    subscriber_hash text NOT NULL,
    erased_at       timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, subscriber_hash)
);
CREATE INDEX erased_subscribers_age ON erased_subscribers (erased_at);
