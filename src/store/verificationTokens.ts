// Uses of verification tokens (table verification_token_uses): a token logs in once. Taken by the
// otp_login activity's own statement, so two concurrent logins with one token cannot both succeed.
import type { Queryable } from './db.ts';
import { sql, type Sql } from './sql.ts';

/**
 * A gate: records the token as used by the activity being written, yielding a row, only if no
 * activity used it before. A concurrent use waits on the same key and then yields nothing.
 */
export function useVerificationToken(token: { id: string; organizationId: string; expiresAt: Date }, activityId: string, now: Date): (proceed: Sql) => Sql {
  // The activity row is written after the gates, in the same statement: its id is known already.
  return (proceed) => sql`INSERT INTO verification_token_uses (token_id, organization_id, activity_id, expires_at, used_at)
                          SELECT ${token.id}, ${token.organizationId}::uuid, ${activityId}::uuid, ${token.expiresAt}::timestamptz, ${now}::timestamptz
                           WHERE ${proceed}
                          ON CONFLICT (token_id) DO NOTHING
                          RETURNING token_id`;
}

/** An expression: when the token was used (null if it was not), to say why the gate refused. */
export function verificationTokenUsedAt(tokenId: string): Sql {
  return sql`(SELECT used_at FROM verification_token_uses WHERE token_id = ${tokenId})`;
}

/**
 * A statement part yielding a row while an attested stamp's token may still log in at `now`:
 * unexpired and not used. The write that logs in uses it (useVerificationToken), in the same statement.
 */
export function verificationTokenUsable(token: { tokenId: string; expiresAt: Date; now: Date }): Sql {
  return sql`SELECT ${token.tokenId} AS id WHERE ${token.expiresAt}::timestamptz > ${token.now}::timestamptz
               AND NOT EXISTS (SELECT 1 FROM verification_token_uses WHERE token_id = ${token.tokenId})`;
}

/** The token's use and expiry as credentials.ts reads a refusal ({revokedAt: when it was used, expiresAt, kind}). */
export function verificationTokenState(token: { tokenId: string; expiresAt: Date }): Sql {
  return sql`json_build_object('revokedAt', ${verificationTokenUsedAt(token.tokenId)}, 'expiresAt', ${token.expiresAt}::timestamptz, 'kind', 'verificationToken')`;
}

/**
 * Forgets the uses of tokens that expired over an hour ago (an expired token is refused before its
 * use is looked at; the hour covers clocks that differ between processes); returns how many.
 */
export async function deleteExpiredTokenUses(db: Queryable): Promise<number> {
  const deleted = await db.query(`DELETE FROM verification_token_uses WHERE expires_at < now() - interval '1 hour' RETURNING token_id`);
  return deleted.length;
}
