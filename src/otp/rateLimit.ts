// Per-user SMS rate limiting (the seed's userIdentifier): counted from the OTP rows themselves, in
// the activity's transaction, so every Signet process sharing the database enforces one limit.
import { resourceExhausted } from '../errors.ts';
import type { Queryable } from '../store/db.ts';

export interface RateLimit {
  /** Codes allowed within the window. */
  count: number;
  windowSeconds: number;
}

/**
 * Throws a 429 when `userIdentifier` of the organization already had `limit.count` SMS codes in the
 * last window. Serialised per identifier by a transaction-scoped advisory lock, so concurrent
 * requests cannot all pass the count together.
 */
export async function enforceSmsUserLimit(
  tx: Queryable,
  input: { organizationId: string; userIdentifier: string; now: Date; limit: RateLimit },
): Promise<void> {
  const { organizationId, userIdentifier, now, limit } = input;
  await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`signet:sms-user:${organizationId}:${userIdentifier}`]);
  const windowStart = new Date(now.getTime() - limit.windowSeconds * 1000);
  const [row] = await tx.query<{ n: number; oldest: Date | null }>(
    `SELECT count(*)::int AS n, min(created_at) AS oldest FROM otps
      WHERE organization_id = $1 AND user_identifier = $2 AND otp_type = 'OTP_TYPE_SMS' AND created_at > $3`,
    [organizationId, userIdentifier, windowStart],
  );
  if (row!.n < limit.count) return;
  const freedAt = row!.oldest!.getTime() + limit.windowSeconds * 1000;
  const retryAfter = Math.max(1, Math.ceil((freedAt - now.getTime()) / 1000));
  throw resourceExhausted(
    `too many SMS codes for this userIdentifier: at most ${limit.count} every ${limit.windowSeconds} seconds; ` +
      `retry in ${retryAfter} seconds`,
    retryAfter,
  );
}
