-- An email address is kept in one form, the whole address in lowercase (canonicalEmailAddress in
-- src/otp/contact.ts): users' emails, email OTPs' contacts and the OTP rate windows' scopes, so each
-- spelling of a mailbox is one user, one contact and one budget of codes. Emails were ASCII since
-- they were introduced (013), so lower() here is the same as the service's lowercase.

-- Users: the unique index of 013 already kept one user per email in any letter case among those not
-- removed, so lowercasing cannot make two of them collide. A store where it did anyway (its index
-- dropped by hand) is refused with the users named, and left as it was; removed users may share a
-- spelling with others and keep their rows.
DO $$
DECLARE
  twin record;
BEGIN
  SELECT organization_id, lower(email) AS email, string_agg(id::text, ', ' ORDER BY id) AS ids INTO twin
    FROM users WHERE removed_at IS NULL AND email IS NOT NULL
   GROUP BY organization_id, lower(email) HAVING count(*) > 1 LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'users % of organization % have the email % in different letter case; remove all but one, then upgrade',
      twin.ids, twin.organization_id, twin.email;
  END IF;
END
$$;
UPDATE users SET email = lower(email) WHERE email <> lower(email);
DROP INDEX users_organization_email;
CREATE UNIQUE INDEX users_organization_email ON users (organization_id, email)
  WHERE removed_at IS NULL AND email IS NOT NULL;

-- An OTP's contact is what its verification token names, and otp_login looks the user up by.
UPDATE otps SET contact = lower(contact) WHERE otp_type = 'OTP_TYPE_EMAIL' AND contact <> lower(contact);

-- Rate windows: '<kind>:<otpType>:<organization id>:<value>', now with the organization id in
-- lowercase and, for an email contact, the address too. Windows that become one scope are merged,
-- their sends kept in time order, so codes sent before the upgrade still count.
CREATE TEMPORARY TABLE canonical_rate_windows ON COMMIT DROP AS
  SELECT c.scope, array_agg(t ORDER BY t) AS sent_at
    FROM otp_rate_windows w
   CROSS JOIN LATERAL (SELECT split_part(w.scope, ':', 1) AS kind, split_part(w.scope, ':', 2) AS otp_type,
                              split_part(w.scope, ':', 3) AS organization) p
   CROSS JOIN LATERAL (SELECT substr(w.scope, length(p.kind) + length(p.otp_type) + length(p.organization) + 4) AS value) v
   CROSS JOIN LATERAL (SELECT p.kind || ':' || p.otp_type || ':' || lower(p.organization) || ':' ||
                              CASE WHEN p.kind = 'contact' AND p.otp_type = 'OTP_TYPE_EMAIL' THEN lower(v.value) ELSE v.value END AS scope) c
   CROSS JOIN LATERAL unnest(w.sent_at) t
   GROUP BY c.scope;
DELETE FROM otp_rate_windows;
INSERT INTO otp_rate_windows (scope, sent_at) SELECT scope, sent_at FROM canonical_rate_windows;
