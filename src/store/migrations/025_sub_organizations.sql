-- Sub-organizations: an organization may have a parent, one level deep (the service creates a
-- sub-organization only in an organization that has no parent). A deleted sub-organization keeps its
-- rows, for its parent to audit; its credentials are revoked by the statement that deletes it.
ALTER TABLE organizations
  ADD COLUMN parent_id  uuid REFERENCES organizations (id),
  ADD COLUMN deleted_at timestamptz;
-- A parent's sub-organizations, oldest first (list_suborgs pages them in this order).
CREATE INDEX organizations_parent ON organizations (parent_id, created_at, id) WHERE parent_id IS NOT NULL;

-- A user's contact counts as verified from the moment a code sent to it was checked (verify_otp,
-- otp_auth) in its organization or in that organization's parent, or a verification token naming it
-- was given with it; changing the contact clears the moment.
ALTER TABLE users
  ADD COLUMN email_verified_at        timestamptz,
  ADD COLUMN phone_number_verified_at timestamptz;
-- A contact's users across organizations (a parent finds its sub-organizations by their users' contacts).
CREATE INDEX users_email ON users (email) WHERE removed_at IS NULL AND email IS NOT NULL;
CREATE INDEX users_phone_number ON users (phone_number) WHERE removed_at IS NULL AND phone_number IS NOT NULL;

-- otp_auth registers an expiring API key of its own kind (CREDENTIAL_TYPE_OTP_AUTH_KEY_P256).
ALTER TABLE api_keys DROP CONSTRAINT api_keys_kind_check;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_kind_check CHECK (kind IN ('api_key', 'session', 'otp_auth'));
