-- Subscribers, devices, workflows, runs, plans, acknowledgments, deliveries, dedupe, outbox.

CREATE TABLE subscribers (
    tenant_id   text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    id          text NOT NULL,
    timezone    text,
    properties  jsonb NOT NULL DEFAULT '{}',
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, id)
);

CREATE TABLE devices (
    id              uuid PRIMARY KEY,
    tenant_id       text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    subscriber_id   text NOT NULL,
    platform        text NOT NULL CHECK (platform IN ('ios')),
    token           text NOT NULL,
    topic           text NOT NULL,
    environment     text NOT NULL CHECK (environment IN ('production', 'sandbox')),
    active          boolean NOT NULL DEFAULT true,
    inactive_at     timestamptz,
    inactive_reason text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (tenant_id, token)
);
CREATE INDEX devices_subscriber_active ON devices (tenant_id, subscriber_id) WHERE active;

CREATE TABLE workflows (
    tenant_id     text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    key           text NOT NULL,
    version       integer NOT NULL,
    trigger_event text NOT NULL,
    definition    jsonb NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, key, version)
);
-- The current version of each workflow, found by its trigger event.
CREATE TABLE workflow_heads (
    tenant_id     text NOT NULL,
    key           text NOT NULL,
    version       integer NOT NULL,
    trigger_event text NOT NULL,
    cancel_events text[] NOT NULL DEFAULT '{}',   -- cancelOn event names of this and earlier versions
    PRIMARY KEY (tenant_id, key),
    FOREIGN KEY (tenant_id, key, version) REFERENCES workflows (tenant_id, key, version)
);
CREATE INDEX workflow_heads_trigger ON workflow_heads (tenant_id, trigger_event);

CREATE TABLE runs (
    id               uuid PRIMARY KEY,
    tenant_id        text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    workflow_key     text NOT NULL,
    workflow_version integer NOT NULL,
    subscriber_id    text,
    dry_run          boolean NOT NULL DEFAULT false,
    status           text NOT NULL,
    -- Event names whose arrival may cancel this run (server-side cancelOn rules).
    cancel_events    text[] NOT NULL DEFAULT '{}',
    state            jsonb NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX runs_open_by_subscriber ON runs (tenant_id, subscriber_id) WHERE status IN ('running', 'waiting');

CREATE TABLE local_plans (
    tenant_id     text NOT NULL,
    local_id      text NOT NULL,          -- <runId>/<stepName>
    run_id        uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    subscriber_id text,
    message_id    uuid NOT NULL,
    moment        timestamptz NOT NULL,
    fire_at       jsonb NOT NULL,
    payload       jsonb NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, local_id)
);

CREATE TABLE acknowledgments (
    tenant_id       text NOT NULL,
    subscriber_id   text NOT NULL,
    local_id        text NOT NULL,
    message_id      text,
    acknowledged_at timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, subscriber_id, local_id)
);

CREATE TABLE deliveries (
    id              bigserial PRIMARY KEY,
    tenant_id       text NOT NULL,
    run_id          uuid,
    idempotency_key text NOT NULL,
    device_id       uuid NOT NULL,
    kind            text NOT NULL CHECK (kind IN ('plan', 'cancel', 'fallback', 'push')),
    status          text NOT NULL CHECK (status IN ('pending', 'sent', 'failed', 'rejected', 'unregistered')),
    message_id      text,
    apns_id         text,
    http_status     integer,
    reason          text,
    attempts        integer NOT NULL DEFAULT 0,
    created_at      timestamptz NOT NULL DEFAULT now(),
    sent_at         timestamptz,
    UNIQUE (idempotency_key, device_id)
);
CREATE INDEX deliveries_run ON deliveries (run_id);
CREATE INDEX deliveries_message ON deliveries (tenant_id, message_id);

CREATE TABLE opens (
    tenant_id     text NOT NULL,
    message_id    text NOT NULL,
    subscriber_id text,
    run_id        uuid,
    opened_at     timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, message_id, opened_at)
);

-- Client event ids already processed (deduplication per tenant).
CREATE TABLE processed_events (
    tenant_id    text NOT NULL,
    event_id     text NOT NULL,
    processed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, event_id)
);
CREATE INDEX processed_events_age ON processed_events (processed_at);

-- Messages to publish, written in the same transaction as the state change that causes them.
-- Timers are rows whose available_at lies in the future. The scheduler publishes due rows with
-- confirms and deletes them only afterwards.
CREATE TABLE outbox (
    id           bigserial PRIMARY KEY,
    available_at timestamptz NOT NULL,
    exchange     text NOT NULL DEFAULT '',
    routing_key  text NOT NULL,
    message_id   text NOT NULL,
    body         bytea NOT NULL,
    run_id       uuid,                   -- set on a run's timers, so a cancel can delete them
    created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX outbox_due ON outbox (available_at, id);
CREATE INDEX outbox_run ON outbox (run_id) WHERE run_id IS NOT NULL;
