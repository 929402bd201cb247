-- The admin API's lists of organizations and of an organization's API keys (session keys included,
-- one per login), newest first: each page reads its rows from an index instead of sorting them all.
CREATE INDEX organizations_created ON organizations (created_at DESC, id DESC);
CREATE INDEX api_keys_organization_created ON api_keys (organization_id, created_at DESC, id DESC);
