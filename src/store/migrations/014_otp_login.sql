-- OTP login.
-- init_otp's per-OTP HPKE target key: the private half sealed under the deployment secret, cleared
-- when the OTP is used, so a stored encryptedOtpBundle can no longer be opened by anyone.
ALTER TABLE otps ADD COLUMN target_private_key text;

-- Each verification token logs in once: its id is taken by the otp_login activity that used it. The
-- token's expiry is kept so a row can be pruned once the token could not be presented anyway.
-- activity_id has no foreign key: the row is taken by a gate of the activity's statement, before the
-- activity row, and a gate must never fail the statement.
CREATE TABLE verification_token_uses (
  token_id         text PRIMARY KEY,
  organization_id  uuid NOT NULL REFERENCES organizations (id),
  activity_id      uuid NOT NULL,
  expires_at       timestamptz NOT NULL,
  used_at          timestamptz NOT NULL
);

-- A session key is an API key that otp_login registered: it stamps like one, until the session ends.
ALTER TABLE api_keys ADD COLUMN kind text NOT NULL DEFAULT 'api_key' CHECK (kind IN ('api_key', 'session'));
CREATE INDEX api_keys_user_sessions ON api_keys (user_id) WHERE kind = 'session' AND revoked_at IS NULL;
