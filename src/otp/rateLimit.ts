// OTP rate limits, counted from the OTP rows themselves in the activity's transaction, so every
// Signet process sharing the database enforces the same limit: per userIdentifier for SMS (the
// seed's per-user limiting) and per contact for SMS and email (SMS pumping, mailbox flooding).
import type { RateLimitSetting } from '../config.ts';
import { resourceExhausted } from '../errors.ts';
import type { Queryable } from '../store/db.ts';

/** Codes allowed within a window of seconds. */
export type RateLimit = RateLimitSetting;

export interface RateLimitedScope {
  /** Which OTP rows share the budget: those of one user identifier, or of one contact. */
  column: 'user_identifier' | 'contact';
  value: string;
  otpType: 'OTP_TYPE_EMAIL' | 'OTP_TYPE_SMS';
  /** How the 429 names the scope, e.g. "this userIdentifier". */
  label: string;
}

/**
 * Throws a 429 when the scope already had `limit.count` codes in the organization within the last
 * window. Serialised per scope by a transaction-scoped advisory lock, so concurrent requests cannot
 * all pass the count together.
 */
export async function enforceOtpRateLimit(
  tx: Queryable,
  input: { organizationId: string; now: Date; limit: RateLimit; scope: RateLimitedScope },
): Promise<void> {
  const { organizationId, now, limit, scope } = input;
  const lockKey = `signet:otp-limit:${scope.column}:${scope.otpType}:${organizationId}:${scope.value}`;
  await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [lockKey]);
  const windowStart = new Date(now.getTime() - limit.windowSeconds * 1000);
  // scope.column is one of two fixed names, never input.
  const [row] = await tx.query<{ n: number; oldest: Date | null }>(
    `SELECT count(*)::int AS n, min(created_at) AS oldest FROM otps
      WHERE organization_id = $1 AND ${scope.column} = $2 AND otp_type = $3 AND created_at > $4`,
    [organizationId, scope.value, scope.otpType, windowStart],
  );
  if (row!.n < limit.count) return;
  const freedAt = row!.oldest!.getTime() + limit.windowSeconds * 1000;
  const retryAfter = Math.max(1, Math.ceil((freedAt - now.getTime()) / 1000));
  const channel = scope.otpType === 'OTP_TYPE_SMS' ? 'SMS' : 'email';
  throw resourceExhausted(
    `too many ${channel} codes for ${scope.label}: at most ${limit.count} every ${limit.windowSeconds} seconds; ` +
      `retry in ${retryAfter} seconds`,
    retryAfter,
  );
}
