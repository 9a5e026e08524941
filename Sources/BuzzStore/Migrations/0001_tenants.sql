-- Tenants and their settings (quiet hours, default timezone) and API keys.
CREATE TABLE tenants (
    id               text PRIMARY KEY,
    name             text NOT NULL,
    default_timezone text NOT NULL DEFAULT 'UTC',
    quiet_start      text,
    quiet_end        text,
    -- Verifies subscriber tokens (HMAC-SHA256); needed in clear, like a database password.
    signing_secret   text NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    CHECK ((quiet_start IS NULL) = (quiet_end IS NULL))
);

-- API keys look like sk_<id>_<secret> / pk_<id>_<secret>. Only a SHA-256 of the secret part
-- is stored; it is found by <id> and compared in constant time.
CREATE TABLE tenant_keys (
    id          text PRIMARY KEY,
    tenant_id   text NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    kind        text NOT NULL CHECK (kind IN ('secret', 'publishable')),
    secret_hash text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    revoked_at  timestamptz
);
CREATE INDEX tenant_keys_tenant ON tenant_keys (tenant_id);
