-- A new install of the app says which install it replaced on the phone (the id its Keychain
-- outlived): registration finds that install's devices by tenant and install id.
CREATE INDEX devices_install ON devices (tenant_id, install_id) WHERE install_id IS NOT NULL;
