// Issued OTPs (table otps): the code only as a keyed hash, its expiry, wrong guesses and use.
// Written as a row of init_otp_auth's statement; claimed once by verify_otp's.
import type { CredentialUse } from './credentials.ts';
import { credentialState, credentialUsable, parseCredentialState, type CredentialState } from './credentials.ts';
import type { Queryable } from './db.ts';
import { run, sql, type Sql } from './sql.ts';

export interface OtpRecord {
  id: string;
  otpType: string;
  contact: string;
  codeHash: string;
  otpLength: number;
  alphanumeric: boolean;
  expiresAt: Date;
  failedAttempts: number;
  usedAt: Date | null;
}

/** The OTP as a row of the activity's statement (`activity` yields the activity's id). */
export function insertOtp(
  activity: Sql,
  otp: {
    id: string;
    organizationId: string;
    otpType: string;
    contact: string;
    codeHash: string;
    otpLength: number;
    alphanumeric: boolean;
    userIdentifier: string | undefined;
    expiresAt: Date;
    createdAt: Date;
  },
): Sql {
  return sql`INSERT INTO otps (id, organization_id, activity_id, otp_type, contact, code_hash, otp_length, alphanumeric,
                               user_identifier, expires_at, created_at)
             SELECT ${otp.id}::uuid, ${otp.organizationId}::uuid, id, ${otp.otpType}, ${otp.contact}, ${otp.codeHash},
                    ${otp.otpLength}::int, ${otp.alphanumeric}::boolean, ${otp.userIdentifier ?? null}, ${otp.expiresAt}::timestamptz,
                    ${otp.createdAt}::timestamptz
               FROM ${activity}`;
}

/** The organization's OTP; another organization's is not found. */
export async function findOtp(db: Queryable, organizationId: string, id: string): Promise<OtpRecord | undefined> {
  const [row] = await db.query<{
    id: string;
    otp_type: string;
    contact: string;
    code_hash: string;
    otp_length: number;
    alphanumeric: boolean;
    expires_at: Date;
    failed_attempts: number;
    used_at: Date | null;
  }>(
    `SELECT id, otp_type, contact, code_hash, otp_length, alphanumeric, expires_at, failed_attempts, used_at
       FROM otps WHERE id = $1 AND organization_id = $2`,
    [id, organizationId],
  );
  if (!row) return undefined;
  return {
    id: row.id,
    otpType: row.otp_type,
    contact: row.contact,
    codeHash: row.code_hash,
    otpLength: row.otp_length,
    alphanumeric: row.alphanumeric,
    expiresAt: row.expires_at,
    failedAttempts: row.failed_attempts,
    usedAt: row.used_at,
  };
}

/**
 * A gate: marks the OTP used, yielding a row, only while it is unused, unexpired and under the
 * wrong-guess limit. Concurrent verifications of one OTP wait on its row and re-check it, so it is
 * used once.
 */
export function claimOtp(organizationId: string, id: string, now: Date, maxFailedAttempts: number): (proceed: Sql) => Sql {
  return (proceed) => sql`UPDATE otps SET used_at = ${now}::timestamptz
                           WHERE id = ${id}::uuid AND organization_id = ${organizationId}::uuid AND used_at IS NULL
                             AND expires_at > ${now}::timestamptz AND failed_attempts < ${maxFailedAttempts}::int AND ${proceed}
                          RETURNING id`;
}

/** An expression: the OTP's state as JSON ({usedAt, expiresAt, failedAttempts}), to say why a claim failed. */
export function otpState(id: string): Sql {
  return sql`(SELECT json_build_object('usedAt', used_at, 'expiresAt', expires_at, 'failedAttempts', failed_attempts)
                FROM otps WHERE id = ${id}::uuid)`;
}

/**
 * Counts a wrong guess, on its own (the request is refused, the count must stay), while the OTP is
 * unused and under the limit, and the credential may still be used. Returns the new count, undefined
 * when the OTP could not take one more (used, or at the limit meanwhile).
 */
export async function countWrongGuess(
  db: Queryable,
  use: CredentialUse,
  organizationId: string,
  id: string,
  maxFailedAttempts: number,
): Promise<{ refused?: CredentialState; failedAttempts?: number }> {
  const [row] = await run<{ credential_ok: boolean; credential_state: unknown; failed_attempts: number | null }>(
    db,
    sql`WITH credential AS (${credentialUsable(use)}),
             counted AS (
               UPDATE otps SET failed_attempts = failed_attempts + 1
                WHERE id = ${id}::uuid AND organization_id = ${organizationId}::uuid AND used_at IS NULL
                  AND failed_attempts < ${maxFailedAttempts}::int AND EXISTS (SELECT 1 FROM credential)
               RETURNING failed_attempts)
        SELECT EXISTS (SELECT 1 FROM credential) AS credential_ok,
               CASE WHEN NOT EXISTS (SELECT 1 FROM credential) THEN ${credentialState(use)} END AS credential_state,
               (SELECT failed_attempts FROM counted) AS failed_attempts`,
  );
  if (!row!.credential_ok) return { refused: parseCredentialState(row!.credential_state) };
  return row!.failed_attempts === null ? {} : { failedAttempts: row!.failed_attempts };
}
