-- Email templates of an organization (admin API). init_otp_auth picks one by templateId, else the
-- organization's most recent, else the built-in email.
CREATE TABLE email_templates (
  id               uuid PRIMARY KEY,
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  name             text NOT NULL,
  subject          text NOT NULL,
  html             text NOT NULL,
  text             text NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX email_templates_organization ON email_templates (organization_id, created_at DESC);
