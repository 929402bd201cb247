-- A stored activity keeps no bearer secret: every credential of the organization can read it.
--
-- verify_otp V1 without publicKey answers a verification token bound to no key, which otp_login V1
-- takes without a client signature: whoever reads it logs in as the verified user. Earlier versions
-- kept it in the activity's result; it becomes "", as Signet now stores it. Tokens bound to a key
-- (V1 with publicKey, V2) are kept: they log in only with that key's signature. App Proofs stored
-- with such an activity bound the token and no longer match its result.
UPDATE activities
   SET result = jsonb_set(result, '{verifyOtpResult,verificationToken}', '""')
 WHERE CASE WHEN type = 'ACTIVITY_TYPE_VERIFY_OTP' AND intent LIKE '{"verifyOtpIntent":%'
                 AND result -> 'verifyOtpResult' ->> 'verificationToken' <> ''
            THEN NOT ((intent::jsonb -> 'verifyOtpIntent') ? 'publicKey')
            ELSE false END;

-- The first versions of verify_otp V1 kept the code in clear in the intent and in the body that the
-- vote's message echoes. Each was spent by its activity, but "the code is not kept": it becomes
-- "[redacted]" as today. The code's JSON string is replaced where it stands, the rest of the text
-- left as it was (no other value of such a body can equal a code of 6 characters or more: a UUID, a
-- 13-digit timestamp, a lifetime of 5 digits at most, a hex key); a vote message holding the code
-- falls back to the redacted body.
WITH clear AS (
  SELECT id, to_json(intent::jsonb #>> '{verifyOtpIntent,otpCode}')::text AS code
    FROM activities
   WHERE CASE WHEN type = 'ACTIVITY_TYPE_VERIFY_OTP' AND intent LIKE '{"verifyOtpIntent":%'
              THEN intent::jsonb #>> '{verifyOtpIntent,otpCode}' <> '[redacted]'
              ELSE false END
)
UPDATE activities a
   SET intent = replace(a.intent, clear.code, '"[redacted]"'),
       raw_body = replace(a.raw_body, clear.code, '"[redacted]"'),
       vote_message = CASE WHEN strpos(a.vote_message, clear.code) > 0 THEN NULL ELSE a.vote_message END
  FROM clear
 WHERE a.id = clear.id;
