// One page of an organization's list, newest first, with id cursors resolved in the same statement
// (timestamps never leave the database, so their microseconds cannot be rounded away), and a byte
// budget: a page ends early rather than pass it (but holds at least one row), so no answer grows with
// the data.
import type { Queryable } from './db.ts';

export interface PageRequest {
  /** At most this many rows. */
  limit: number;
  /** Only rows newer than the row with this id (the previous page). */
  before?: string;
  /** Only rows older than the row with this id (the next page). */
  after?: string;
  /** Rows are taken while the sum of their estimated sizes stays within this many bytes. */
  maxBytes: number;
}

export interface Page<T> {
  rows: T[];
  /** A cursor that names no row of the organization, when one does. */
  unknownCursor?: 'before' | 'after';
}

export interface ListQuery {
  /** A table with organization_id, created_at and id columns; fixed by the caller (never input). */
  table: string;
  /** Columns to select, fixed by the caller. */
  columns: string;
  organizationId: string;
  /** Further conditions with $n placeholders numbered from 2 over `params` ($1 is the organization). */
  where?: string[];
  params?: unknown[];
  /**
   * SQL estimate of a row's size in the answer, in bytes. It must not read the large values
   * themselves (octet_length of a text column reads only its header), so rows past the budget are
   * never loaded.
   */
  size: string;
}

/**
 * Rows of one page, newest first. Walking backwards from a `before` cursor takes the nearest rows
 * first, then restores the order.
 */
export async function selectPage<T>(db: Queryable, query: ListQuery, page: PageRequest): Promise<Page<T>> {
  const params: unknown[] = [query.organizationId, ...(query.params ?? [])];
  const where = ['organization_id = $1', ...(query.where ?? [])];
  // A cursor's row: its position for the comparison, and whether it exists at all.
  const cursor = (id: string | undefined) => {
    if (id === undefined) return { row: '', found: 'true' };
    params.push(id);
    const match = `FROM ${query.table} WHERE organization_id = $1 AND id = $${params.length}::uuid`;
    return { row: `(SELECT created_at, id ${match})`, found: `EXISTS (SELECT 1 ${match})` };
  };
  const after = cursor(page.after);
  const before = cursor(page.before);
  if (page.after) where.push(`(created_at, id) < ${after.row}`);
  if (page.before) where.push(`(created_at, id) > ${before.row}`);
  const direction = page.before && !page.after ? 'ASC' : 'DESC';
  params.push(page.limit, page.maxBytes);
  const [limit, maxBytes] = [params.length - 1, params.length];
  const rows = await db.query<T & { page_row: number | null; after_found: boolean; before_found: boolean }>(
    `SELECT cursors.after_found, cursors.before_found, page.*
       FROM (SELECT ${after.found} AS after_found, ${before.found} AS before_found) cursors
       LEFT JOIN LATERAL (
         SELECT * FROM (
           SELECT ${query.columns},
                  sum(${query.size}) OVER (ORDER BY created_at ${direction}, id ${direction}) AS page_running_bytes,
                  row_number() OVER (ORDER BY created_at ${direction}, id ${direction}) AS page_row
             FROM ${query.table}
            WHERE ${where.join(' AND ')}
            ORDER BY created_at ${direction}, id ${direction}
            LIMIT $${limit}
         ) numbered
         WHERE page_row = 1 OR page_running_bytes <= $${maxBytes}
       ) page ON true
      ORDER BY page.page_row`,
    params,
  );
  const [first] = rows;
  if (first && !first.after_found) return { rows: [], unknownCursor: 'after' };
  if (first && !first.before_found) return { rows: [], unknownCursor: 'before' };
  const found = rows.filter((row) => row.page_row !== null);
  if (direction === 'ASC') found.reverse();
  for (const row of found) {
    const bookkeeping = row as Partial<typeof row> & { page_running_bytes?: unknown };
    delete bookkeeping.page_row;
    delete bookkeeping.page_running_bytes;
    delete bookkeeping.after_found;
    delete bookkeeping.before_found;
  }
  return { rows: found };
}
