-- Signing-secret rotation (issue 12): after `buzzkit tenant signing-secret rotate`, the secret
-- it replaced still verifies subscriber tokens until previous_signing_secret_until, so tokens
-- the backend minted before the switch keep working while it moves to the new secret.
ALTER TABLE tenants ADD COLUMN previous_signing_secret text;
ALTER TABLE tenants ADD COLUMN previous_signing_secret_until timestamptz;
