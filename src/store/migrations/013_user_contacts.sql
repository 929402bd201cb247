-- Users get contacts and can be removed. The email is kept as given and the phone number in E.164
-- (the rules of init_otp_auth's contact, so a verified OTP contact finds its user); among the users
-- of an organization not removed, an email (in any letter case) and a phone number belong to one
-- user at most. A removed user stays, for the votes that name it.
ALTER TABLE users
  ADD COLUMN email        text,
  ADD COLUMN phone_number text,
  ADD COLUMN updated_at   timestamptz NOT NULL DEFAULT now(),
  ADD COLUMN removed_at   timestamptz;
UPDATE users SET updated_at = created_at;

CREATE UNIQUE INDEX users_organization_email ON users (organization_id, lower(email))
  WHERE removed_at IS NULL AND email IS NOT NULL;
CREATE UNIQUE INDEX users_organization_phone_number ON users (organization_id, phone_number)
  WHERE removed_at IS NULL AND phone_number IS NOT NULL;

-- The admin list pages users newest first; this index also serves what users_organization did.
CREATE INDEX users_organization_created ON users (organization_id, created_at DESC, id DESC);
DROP INDEX users_organization;

-- Removing a user revokes its credentials, found by user.
CREATE INDEX api_keys_user ON api_keys (user_id);
CREATE INDEX authenticators_user ON authenticators (user_id);
