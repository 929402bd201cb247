// Issued OTPs (table otps): the code only as a keyed hash, its expiry, wrong guesses and use, and for
// init_otp the HPKE target key the client encrypts the code to (sealed; cleared when used). Written
// as a row of init_otp(_auth)'s statement; claimed once by verify_otp's.
import { credentialState, credentialUsable, parseCredentialState, type CredentialState, type CredentialUse } from './credentials.ts';
import type { Queryable } from './db.ts';
import { seal, unseal } from '../wire/sealed.ts';
import { run, sql, type Sql } from './sql.ts';

// A key of its own, so target keys never share one with other sealed values.
const TARGET_KEY_LABEL = 'signet otp target key v1';

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
  /** init_otp's target private key (hex), sealed; null for init_otp_auth's OTPs and once used. */
  sealedTargetKey: string | null;
}

/** The target private key (64 hex) of an OTP, from its sealed form. */
export function openTargetKey(secret: Buffer, otpId: string, sealed: string): string {
  return unseal(secret, TARGET_KEY_LABEL, otpId.toLowerCase(), sealed).toString('utf8');
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
    /** init_otp's target private key (hex), sealed here under `secret`. */
    targetPrivateKey?: { hex: string; secret: Buffer };
  },
): Sql {
  const target = otp.targetPrivateKey ? seal(otp.targetPrivateKey.secret, TARGET_KEY_LABEL, otp.id, Buffer.from(otp.targetPrivateKey.hex, 'utf8')) : null;
  return sql`INSERT INTO otps (id, organization_id, activity_id, otp_type, contact, code_hash, otp_length, alphanumeric,
                               user_identifier, expires_at, created_at, target_private_key)
             SELECT ${otp.id}::uuid, ${otp.organizationId}::uuid, id, ${otp.otpType}, ${otp.contact}, ${otp.codeHash},
                    ${otp.otpLength}::int, ${otp.alphanumeric}::boolean, ${otp.userIdentifier ?? null}, ${otp.expiresAt}::timestamptz,
                    ${otp.createdAt}::timestamptz, ${target}
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
    target_private_key: string | null;
  }>(
    `SELECT id, otp_type, contact, code_hash, otp_length, alphanumeric, expires_at, failed_attempts, used_at, target_private_key
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
    sealedTargetKey: row.target_private_key,
  };
}

/**
 * A gate: marks the OTP used and forgets its target key, yielding a row, only while it is unused,
 * unexpired and under the wrong-guess limit. Concurrent verifications of one OTP wait on its row and
 * re-check it, so it is used once.
 */
export function claimOtp(organizationId: string, id: string, now: Date, maxFailedAttempts: number): (proceed: Sql) => Sql {
  return (proceed) => sql`UPDATE otps SET used_at = ${now}::timestamptz, target_private_key = NULL
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
