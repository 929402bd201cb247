-- Core schema: tenants and their credentials, activities with their votes, the domain rows the two
-- activities create, and the outbox the delivery worker drains.

CREATE TABLE organizations (
  id          uuid PRIMARY KEY,
  name        text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
  id               uuid PRIMARY KEY,
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  user_name        text NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX users_organization ON users (organization_id);

-- P-256 API keys; public_key is the compressed SEC1 form in lowercase hex.
CREATE TABLE api_keys (
  id               uuid PRIMARY KEY,
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  user_id          uuid NOT NULL REFERENCES users (id),
  name             text NOT NULL,
  public_key       text NOT NULL,
  expires_at       timestamptz,
  revoked_at       timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, public_key)
);
CREATE INDEX api_keys_public_key ON api_keys (public_key);

-- WebAuthn credentials; credential_id is base64url, public_key the COSE key.
CREATE TABLE authenticators (
  id               uuid PRIMARY KEY,
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  user_id          uuid NOT NULL REFERENCES users (id),
  name             text NOT NULL,
  credential_id    text NOT NULL UNIQUE,
  public_key       bytea NOT NULL,
  sign_count       bigint NOT NULL DEFAULT 0,
  transports       text[] NOT NULL DEFAULT '{}',
  aaguid           text,
  revoked_at       timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE activities (
  id               uuid PRIMARY KEY,
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  type             text NOT NULL,
  status           text NOT NULL,
  fingerprint      text NOT NULL,
  timestamp_ms     text NOT NULL,
  raw_body         text NOT NULL,
  stamp_header     text NOT NULL,
  intent           jsonb NOT NULL,
  result           jsonb,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  UNIQUE (organization_id, fingerprint)
);
CREATE INDEX activities_organization_created ON activities (organization_id, created_at DESC);

CREATE TABLE votes (
  id             uuid PRIMARY KEY,
  activity_id    uuid NOT NULL REFERENCES activities (id),
  user_id        uuid NOT NULL REFERENCES users (id),
  selection      text NOT NULL,
  message        text NOT NULL,
  public_key     text NOT NULL,
  signature      text NOT NULL,
  scheme         text NOT NULL,
  created_at     timestamptz NOT NULL
);
CREATE INDEX votes_activity ON votes (activity_id);

-- Issued OTPs; the code itself is never stored, only HMAC-SHA-256(server secret, code).
CREATE TABLE otps (
  id               uuid PRIMARY KEY,
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  activity_id      uuid NOT NULL REFERENCES activities (id),
  otp_type         text NOT NULL,
  contact          text NOT NULL,
  code_hash        text NOT NULL,
  otp_length       integer NOT NULL,
  alphanumeric     boolean NOT NULL,
  user_identifier  text,
  expires_at       timestamptz NOT NULL,
  failed_attempts  integer NOT NULL DEFAULT 0,
  used_at          timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX otps_organization ON otps (organization_id, created_at DESC);
CREATE INDEX otps_user_identifier ON otps (organization_id, user_identifier, created_at) WHERE user_identifier IS NOT NULL;

CREATE TABLE smart_contract_interfaces (
  id                        uuid PRIMARY KEY,
  organization_id           uuid NOT NULL REFERENCES organizations (id),
  activity_id               uuid NOT NULL REFERENCES activities (id),
  smart_contract_address    text NOT NULL,
  smart_contract_interface  text NOT NULL,
  type                      text NOT NULL,
  label                     text NOT NULL,
  notes                     text NOT NULL DEFAULT '',
  digest                    text NOT NULL,
  created_at                timestamptz NOT NULL,
  updated_at                timestamptz NOT NULL
);
CREATE INDEX smart_contract_interfaces_organization ON smart_contract_interfaces (organization_id, created_at DESC);

-- Domains an organization may send OTP email from (sendFromEmailAddress), lowercase.
CREATE TABLE sender_domains (
  id               uuid PRIMARY KEY,
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  domain           text NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (organization_id, domain)
);

-- Messages to deliver, committed with the activity that caused them. A worker claims due rows
-- (FOR UPDATE SKIP LOCKED) by setting a lease; the secret part of the payload is encrypted and
-- erased once the message is finished.
CREATE TABLE outbox (
  id                   uuid PRIMARY KEY,
  organization_id      uuid NOT NULL REFERENCES organizations (id),
  otp_id               uuid REFERENCES otps (id),
  channel              text NOT NULL,             -- 'email' | 'sms'
  payload              jsonb NOT NULL,
  status               text NOT NULL DEFAULT 'queued', -- queued | sending | retrying | sent | failed
  attempts             integer NOT NULL DEFAULT 0,
  next_attempt_at      timestamptz NOT NULL DEFAULT now(),
  lease_expires_at     timestamptz,
  last_error           text,
  provider_message_id  text,
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now(),
  sent_at              timestamptz
);
CREATE INDEX outbox_due ON outbox (next_attempt_at) WHERE status IN ('queued', 'retrying', 'sending');
