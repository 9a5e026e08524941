-- Tenants and their settings (quiet hours, default timezone) and API keys (stored hashed).
CREATE TABLE tenants (
    id               text PRIMARY KEY,
    name             text NOT NULL,
    default_timezone text NOT NULL DEFAULT 'UTC',
    quiet_start      text,
    quiet_end        text,
    created_at       timestamptz NOT NULL DEFAULT now(),
    CHECK ((quiet_start IS NULL) = (quiet_end IS NULL))
);

CREATE TABLE tenant_keys (
    key_hash    text PRIMARY KEY,          -- hex SHA-256 of the key; the key itself is never stored
    tenant_id   text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    kind        text NOT NULL CHECK (kind IN ('secret', 'publishable')),
    created_at  timestamptz NOT NULL DEFAULT now(),
    revoked_at  timestamptz
);
CREATE INDEX tenant_keys_tenant ON tenant_keys (tenant_id);
