-- A user's contact is proven for that user, never for an address string: from now on its verified
-- moment is set only by a verification token given with it (create_sub_organization,
-- update_user_email, update_user_phone_number) or by a code that logs that user in (otp_login,
-- otp_auth, an attested stamp_login). Until now a code checked in an organization or in its parent
-- also marked every user, in the organization and in all its sub-organizations, who had typed the
-- same address; such a moment cannot be told apart from a real proof, since the later one overwrote
-- the earlier. Here every moment is cleared but those the stored rows show were a proof for that
-- user, by a token, of the contact the user still has:
--   1. the sub-organization was created with a sign-up token (a 'signup' use of create_sub_organization,
--      whose result names the sub-organization and the user) and either the moment is the user's
--      creation (only the root user whose contact the token named was marked then), or the user was
--      its only root user, has no other kind of contact and was never changed since;
--   2. update_user_email / update_user_phone_number with a token (a 'contact' use) changed this user
--      at the very moment it was last changed (so the contact is still the one the token proved).
-- A login is not taken as proof here: the lookups that routed a login could reach a copy no one
-- proved. The users whose moment is cleared prove it again at their next code login into their
-- own sub-organization.
UPDATE users u SET email_verified_at = NULL
 WHERE u.email_verified_at IS NOT NULL
   AND NOT EXISTS (
     SELECT 1 FROM verification_token_uses t JOIN activities a ON a.id = t.activity_id
      CROSS JOIN LATERAL (SELECT coalesce(a.result -> 'createSubOrganizationResultV8', a.result -> 'createSubOrganizationResultV7') AS r) c
      WHERE t.usage = 'signup'
        AND c.r ->> 'subOrganizationId' = u.organization_id::text
        AND c.r -> 'rootUserIds' ? u.id::text
        AND (u.email_verified_at = u.created_at
             OR (u.updated_at = u.created_at AND u.phone_number IS NULL AND jsonb_array_length(c.r -> 'rootUserIds') = 1)))
   AND NOT EXISTS (
     SELECT 1 FROM verification_token_uses t JOIN activities a ON a.id = t.activity_id
      WHERE t.usage = 'contact' AND a.type = 'ACTIVITY_TYPE_UPDATE_USER_EMAIL'
        AND a.organization_id = u.organization_id AND a.created_at = u.updated_at
        AND lower(a.intent::jsonb -> 'updateUserEmailIntent' ->> 'userId') = u.id::text);

UPDATE users u SET phone_number_verified_at = NULL
 WHERE u.phone_number_verified_at IS NOT NULL
   AND NOT EXISTS (
     SELECT 1 FROM verification_token_uses t JOIN activities a ON a.id = t.activity_id
      CROSS JOIN LATERAL (SELECT coalesce(a.result -> 'createSubOrganizationResultV8', a.result -> 'createSubOrganizationResultV7') AS r) c
      WHERE t.usage = 'signup'
        AND c.r ->> 'subOrganizationId' = u.organization_id::text
        AND c.r -> 'rootUserIds' ? u.id::text
        AND (u.phone_number_verified_at = u.created_at
             OR (u.updated_at = u.created_at AND u.email IS NULL AND jsonb_array_length(c.r -> 'rootUserIds') = 1)))
   AND NOT EXISTS (
     SELECT 1 FROM verification_token_uses t JOIN activities a ON a.id = t.activity_id
      WHERE t.usage = 'contact' AND a.type = 'ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER'
        AND a.organization_id = u.organization_id AND a.created_at = u.updated_at
        AND lower(a.intent::jsonb -> 'updateUserPhoneNumberIntent' ->> 'userId') = u.id::text);

-- Approval emails go only to an address proven for its user, at most so many to one address in a
-- window (the engine's bound). A request now records the address it was for; one past the bound is
-- recorded without a message (outbox_id NULL): skipped, the activity waiting all the same. The
-- requests of the last window per address are counted from this index.
ALTER TABLE approval_requests
  ADD COLUMN address text,
  ALTER COLUMN outbox_id DROP NOT NULL;
UPDATE approval_requests r SET address = u.email FROM users u WHERE u.id = r.user_id AND u.email IS NOT NULL;
CREATE INDEX approval_requests_address ON approval_requests (address, created_at) WHERE outbox_id IS NOT NULL;
