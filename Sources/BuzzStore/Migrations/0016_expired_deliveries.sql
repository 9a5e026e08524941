-- A push that kept failing for a passing reason is retried until the end of its lifetime
-- (the moment plus the send's expiresAfter) and then recorded 'expired' (docs/contract.md §4c).
-- NOT VALID skips the scan of existing rows, which all pass the wider check anyway.
ALTER TABLE deliveries DROP CONSTRAINT deliveries_status_check;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_status_check
    CHECK (status IN ('pending', 'sent', 'failed', 'expired', 'rejected', 'unregistered')) NOT VALID;
