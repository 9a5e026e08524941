-- The tenant's apps (issue 12): the APNs topics (bundle ids) its devices may register with.
-- Empty: any topic (tenants from before, until they set the list with PUT /v1/settings).
ALTER TABLE tenants ADD COLUMN allowed_topics jsonb NOT NULL DEFAULT '[]'::jsonb;
