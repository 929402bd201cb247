// Whether the database answers (readiness).
import type { Queryable } from './db.ts';

/** Resolves when the database answers a trivial statement; rejects as the store's statements do. */
export async function ping(db: Queryable): Promise<void> {
  await db.query('SELECT 1');
}
