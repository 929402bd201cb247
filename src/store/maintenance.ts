// Periodic housekeeping's statements (table maintenance): electing one process of all to run a task
// each period, and vacuuming the tables delivery churns.
import type { Queryable } from './db.ts';

/**
 * Elects this process to run a periodic task: true for one caller per period among all processes
 * (the first to move the task's last run past the period).
 */
export async function claimMaintenance(db: Queryable, task: string, periodMs: number): Promise<boolean> {
  const claimed = await db.query(
    `INSERT INTO maintenance AS m (task, ran_at) VALUES ($1, now())
     ON CONFLICT (task) DO UPDATE SET ran_at = now()
       WHERE m.ran_at < now() - make_interval(secs => $2::double precision)
     RETURNING task`,
    [task, periodMs / 1000],
  );
  return claimed.length === 1;
}

/**
 * Reclaims the space and index entries of finished and changed rows (outbox, rate windows), so the
 * worker's claims and the rate checks stay cheap on a database whose autovacuum is off or slow.
 */
export async function vacuumDeliveryTables(db: Queryable): Promise<void> {
  await db.query('VACUUM (ANALYZE) outbox, otp_rate_windows');
}
