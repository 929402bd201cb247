// OTP rate windows (table otp_rate_windows): for each scope — an organization's user identifier or
// contact, per channel — the send times within its window. A send is taken in the activity's own
// statement: the scope's row is locked, its old times dropped, and the new one added only while
// fewer than the limit remain, so concurrent requests in any number of processes cannot all pass.
import type { Queryable } from './db.ts';
import { run, sql, type Sql } from './sql.ts';

export interface RateLimit {
  count: number;
  windowSeconds: number;
}

/** A gate taking one send from the scope's window; its detail is the seconds until one frees. */
export function takeFromRateWindow(scope: string, limit: RateLimit): { statement: (proceed: Sql) => Sql; detail: Sql } {
  const window = sql`make_interval(secs => ${limit.windowSeconds}::int)`;
  const recent = sql`ARRAY(SELECT t FROM unnest(w.sent_at) t WHERE t > now() - ${window} ORDER BY t)`;
  return {
    statement: (proceed) => sql`INSERT INTO otp_rate_windows AS w (scope, sent_at)
                                SELECT ${scope}, ARRAY[now()] WHERE ${proceed}
                                ON CONFLICT (scope) DO UPDATE
                                  SET sent_at = ${recent} || now()
                                  WHERE cardinality(${recent}) < ${limit.count}::int
                                RETURNING 1`,
    detail: sql`(SELECT ceil(extract(epoch FROM min(t) + ${window} - now()))::int
                   FROM otp_rate_windows w, unnest(w.sent_at) t
                  WHERE w.scope = ${scope} AND t > now() - ${window})`,
  };
}

/** Deletes the windows whose every send is older than `longestWindowSeconds` (no limit counts them); returns how many. */
export async function deleteIdleRateWindows(db: Queryable, longestWindowSeconds: number): Promise<number> {
  const deleted = await db.query(
    `DELETE FROM otp_rate_windows
      WHERE sent_at[cardinality(sent_at)] < now() - make_interval(secs => $1::int)
     RETURNING scope`,
    [longestWindowSeconds],
  );
  return deleted.length;
}

/** Takes one request from the scope's window on its own: undefined when taken, else the seconds until one frees. */
export async function takeRateWindow(db: Queryable, scope: string, limit: RateLimit): Promise<number | undefined> {
  const gate = takeFromRateWindow(scope, limit);
  const [row] = await run<{ taken: boolean; retry: number | null }>(
    db,
    sql`WITH taken AS (${gate.statement(sql`TRUE`)}) SELECT EXISTS (SELECT 1 FROM taken) AS taken, ${gate.detail} AS retry`,
  );
  return row?.taken ? undefined : Math.max(1, row?.retry ?? limit.windowSeconds);
}
