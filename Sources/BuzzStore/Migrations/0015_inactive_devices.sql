-- Inactive devices (unregistered, or a token APNs called dead) are purged after
-- BUZZKIT_RETENTION_INACTIVE_DEVICE_DAYS by the retention sweeper; this index finds them
-- oldest first without reading the active ones.
CREATE INDEX devices_inactive_at ON devices (inactive_at) WHERE NOT active;
