// One page of a list, newest first, with (created_at, id) cursors, and a byte budget: a page ends
// early rather than pass it (but holds at least one row), so no answer grows with the data.
import type { Queryable } from './db.ts';

/** Where a cursor points: the row the page continues from. */
export interface Position {
  createdAt: Date;
  id: string;
}

export interface PageRequest {
  /** At most this many rows. */
  limit: number;
  /** Only rows newer than this one (the previous page). */
  before?: Position;
  /** Only rows older than this one (the next page). */
  after?: Position;
  /** Rows are taken while the sum of their estimated sizes stays within this many bytes. */
  maxBytes: number;
}

export interface ListQuery {
  /** A table name, fixed by the caller (never input). */
  table: string;
  /** Columns to select, fixed by the caller. */
  columns: string;
  /** Conditions with $n placeholders numbered from 1 over `params`. */
  where: string[];
  params: unknown[];
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
export async function selectPage<T>(db: Queryable, query: ListQuery, page: PageRequest): Promise<T[]> {
  const params = [...query.params];
  const where = [...query.where];
  const add = (sql: (n: number) => string, value: unknown) => {
    params.push(value);
    where.push(sql(params.length));
  };
  if (page.after) {
    add((n) => `created_at <= $${n}`, page.after.createdAt);
    add((n) => `(created_at, id) < ($${n - 1}, $${n}::uuid)`, page.after.id);
  }
  if (page.before) {
    add((n) => `created_at >= $${n}`, page.before.createdAt);
    add((n) => `(created_at, id) > ($${n - 1}, $${n}::uuid)`, page.before.id);
  }
  const direction = page.before && !page.after ? 'ASC' : 'DESC';
  params.push(page.limit, page.maxBytes);
  const [limit, maxBytes] = [params.length - 1, params.length];
  const rows = await db.query<T & { page_running_bytes: number; page_row: number }>(
    `SELECT * FROM (
       SELECT ${query.columns},
              sum(${query.size}) OVER (ORDER BY created_at ${direction}, id ${direction}) AS page_running_bytes,
              row_number() OVER (ORDER BY created_at ${direction}, id ${direction}) AS page_row
         FROM ${query.table}
        WHERE ${where.join(' AND ')}
        ORDER BY created_at ${direction}, id ${direction}
        LIMIT $${limit}
     ) page
     WHERE page_row = 1 OR page_running_bytes <= $${maxBytes}
     ORDER BY page_row`,
    params,
  );
  if (direction === 'ASC') rows.reverse();
  for (const row of rows) {
    delete (row as Partial<typeof row>).page_running_bytes;
    delete (row as Partial<typeof row>).page_row;
  }
  return rows;
}

/** A cursor's position, when the row is the organization's. */
export async function positionOf(db: Queryable, table: string, organizationId: string, id: string): Promise<Position | undefined> {
  const [row] = await db.query<{ created_at: Date; id: string }>(
    `SELECT created_at, id FROM ${table} WHERE organization_id = $1 AND id = $2`,
    [organizationId, id],
  );
  return row ? { createdAt: row.created_at, id: row.id } : undefined;
}
