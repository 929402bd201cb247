-- Webhook endpoints: where an organization's activity events are posted. Each has its signing secret
-- sealed under the deployment secret (the row's id as associated data), shown to the client once at
-- creation and never again. Its subscriptions are a small list kept with it ({eventType, filtersJson,
-- isActive}, at most a few), which the statement queuing an event reads with the endpoint. How many an
-- organization may have is counted by the statements that create them, which lock the organization's
-- row first so that concurrent ones count one after the other.
CREATE TABLE webhook_endpoints (
  endpoint_id      uuid PRIMARY KEY,
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  url              text NOT NULL,
  name             text NOT NULL,
  active           boolean NOT NULL,
  subscriptions    jsonb NOT NULL,
  sealed_secret    text NOT NULL,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL
);
-- The organization's endpoints: read by every activity's statement (an organization with none finds
-- nothing at once), and listed oldest first.
CREATE INDEX webhook_endpoints_organization ON webhook_endpoints (organization_id, created_at);
