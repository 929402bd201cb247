-- A verification token is used once for each purpose: to log in (otp_login, an attested stamp_login),
-- to sign up (create_sub_organization), to prove a user's new contact (update_user_email,
-- update_user_phone_number). An app signs a person up with the token of their code, then logs them in
-- with the same token. Uses recorded before were all logins.
ALTER TABLE verification_token_uses ADD COLUMN usage text NOT NULL DEFAULT 'login' CHECK (usage IN ('login', 'signup', 'contact'));
ALTER TABLE verification_token_uses ALTER COLUMN usage DROP DEFAULT;
ALTER TABLE verification_token_uses DROP CONSTRAINT verification_token_uses_pkey;
ALTER TABLE verification_token_uses ADD PRIMARY KEY (token_id, usage);
