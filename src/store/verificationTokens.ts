// Uses of verification tokens (table verification_token_uses): a token is used once for each purpose
// (to log in, to sign up, to prove a new contact), by the statement of the activity that uses it, so
// two concurrent uses of one token for one purpose cannot both succeed.
import type { Queryable } from './db.ts';
import { sql, type Sql } from './sql.ts';

/**
 * A gate: records the token as used by the activity being written, yielding a row, only if no
 * activity used it before. A concurrent use waits on the same key and then yields nothing.
 */
export function useVerificationToken(
  token: { id: string; organizationId: string; expiresAt: Date },
  usage: TokenUsage,
  activityId: string,
  now: Date,
): (proceed: Sql) => Sql {
  // The activity row is written after the gates, in the same statement: its id is known already.
  return (proceed) => sql`INSERT INTO verification_token_uses (token_id, usage, organization_id, activity_id, expires_at, used_at)
                          SELECT ${token.id}, ${usage}, ${token.organizationId}::uuid, ${activityId}::uuid, ${token.expiresAt}::timestamptz, ${now}::timestamptz
                           WHERE ${proceed}
                          ON CONFLICT (token_id, usage) DO NOTHING
                          RETURNING token_id`;
}

/** What a verification token is used for, once each: to log in, to sign up, to prove a user's new contact. */
export type TokenUsage = 'login' | 'signup' | 'contact';

/** An expression: when the token was used for `usage` (null if it was not), to say why the gate refused. */
export function verificationTokenUsedAt(tokenId: string, usage: TokenUsage): Sql {
  return sql`(SELECT used_at FROM verification_token_uses WHERE token_id = ${tokenId} AND usage = ${usage})`;
}

/**
 * A statement part yielding a row while an attested stamp's token may still log in at `now`:
 * unexpired and not used. The write that logs in uses it (useVerificationToken), in the same statement.
 */
export function verificationTokenUsable(token: { tokenId: string; expiresAt: Date; now: Date }): Sql {
  return sql`SELECT ${token.tokenId} AS id WHERE ${token.expiresAt}::timestamptz > ${token.now}::timestamptz
               AND NOT EXISTS (SELECT 1 FROM verification_token_uses WHERE token_id = ${token.tokenId} AND usage = 'login')`;
}

/** The token's use and expiry as credentials.ts reads a refusal ({revokedAt: when it was used, expiresAt, kind}). */
export function verificationTokenState(token: { tokenId: string; expiresAt: Date }): Sql {
  return sql`json_build_object('revokedAt', ${verificationTokenUsedAt(token.tokenId, 'login')}, 'expiresAt', ${token.expiresAt}::timestamptz, 'kind', 'verificationToken')`;
}

/**
 * Forgets the uses of tokens that expired over an hour ago (an expired token is refused before its
 * use is looked at; the hour covers clocks that differ between processes); returns how many.
 */
export async function deleteExpiredTokenUses(db: Queryable): Promise<number> {
  const deleted = await db.query(`DELETE FROM verification_token_uses WHERE expires_at < now() - interval '1 hour' RETURNING token_id`);
  return deleted.length;
}
