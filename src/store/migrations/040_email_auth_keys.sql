-- email_auth registers an expiring API key of its own kind (CREDENTIAL_TYPE_EMAIL_AUTH_KEY_P256),
-- whose private half the user receives by email, sealed to the client's target key; so does
-- init_user_email_recovery (kind 'recovery', CREDENTIAL_TYPE_RECOVER_USER_KEY_P256), a key that
-- stamps recover_user only and is revoked by it.
ALTER TABLE api_keys DROP CONSTRAINT api_keys_kind_check;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_kind_check CHECK (kind IN ('api_key', 'session', 'otp_auth', 'email_auth', 'recovery'));
