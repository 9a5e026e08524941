-- Buttons chosen on notifications ($push.action, DESIGN §4c): the run summary's step shows them.
-- Like opens, only for a message sent for one of the subscriber's runs; a repeat (the same
-- button at the same time, a client's retry) is stored once.
CREATE TABLE notification_actions (
    tenant_id     text NOT NULL,
    message_id    text NOT NULL,
    action_id     text NOT NULL,
    subscriber_id text,
    run_id        uuid,
    acted_at      timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, message_id, action_id, acted_at)
);
CREATE INDEX notification_actions_run ON notification_actions (run_id);
