-- Device sync and device lifecycle (contract §4b).

-- The notification permission the SDK reports with its token (`PUT /v1/subscribers/{id}/devices`).
-- NULL when the device never said. Stored only: silent plan pushes need no permission, so a
-- `denied` device still gets its plans (and can show them once the person allows them again).
-- `authorization` is a reserved word in PostgreSQL: always write it quoted.
ALTER TABLE devices ADD COLUMN "authorization" text
    CHECK ("authorization" IN ('authorized', 'provisional', 'denied', 'notDetermined'));

-- `GET /v1/subscribers/{id}/plans`: a subscriber's plans whose moment is still ahead, in moment
-- order. The range scan on (tenant, subscriber, moment > now) touches only future plans, however
-- long the subscriber's history; each is then checked against its run (primary key).
CREATE INDEX local_plans_subscriber_moment ON local_plans (tenant_id, subscriber_id, moment);
