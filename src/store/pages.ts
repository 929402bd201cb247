// One page of an organization's list, newest first, with id cursors resolved in the same statement
// (timestamps never leave the database, so their microseconds cannot be rounded away), and a byte
// budget: a page ends early rather than pass it (but holds at least one row), so no answer grows with
// the data.
import type { Queryable } from './db.ts';
import { join, raw, run, sql, type Sql } from './sql.ts';

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
  /** A table with created_at and id columns (and organization_id, unless it is organizations), aliased `a`; fixed by the caller. */
  table: string;
  /** What to select of each row `a`. */
  columns: Sql;
  /** The organization whose rows are listed; null for every row (the organizations themselves). */
  organizationId: string | null;
  /** The column naming that organization: organization_id unless given (parent_id lists a parent's sub-organizations). */
  scopeColumn?: 'organization_id' | 'parent_id';
  /** Further conditions on `a`. */
  where?: Sql[];
  /**
   * An estimate of a row's size in the answer, in bytes. It must not read the large values
   * themselves (octet_length of a text column reads only its header), so rows past the budget are
   * never loaded.
   */
  size: Sql;
}

/**
 * The statement of one page: a first row saying whether the cursors exist, joined to the page's rows,
 * numbered (page_row) in the order asked. Read its answer with pageOf.
 */
export function pageStatement(query: ListQuery, page: PageRequest): Sql {
  const table = raw(query.table);
  const column = raw(query.scopeColumn ?? 'organization_id');
  const scoped = (alias: string) => (query.organizationId === null ? [] : [sql`${raw(alias)}.${column} = ${query.organizationId}::uuid`]);
  const cursor = (id: string | undefined) => {
    if (id === undefined) return { row: sql`NULL`, found: sql`true` };
    const match = sql`FROM ${table} c WHERE ${join([...scoped('c'), sql`c.id = ${id}::uuid`], ' AND ')}`;
    return { row: sql`(SELECT c.created_at, c.id ${match})`, found: sql`EXISTS (SELECT 1 ${match})` };
  };
  const after = cursor(page.after);
  const before = cursor(page.before);
  const where = [sql`true`, ...scoped('a'), ...(query.where ?? [])];
  if (page.after) where.push(sql`(a.created_at, a.id) < ${after.row}`);
  if (page.before) where.push(sql`(a.created_at, a.id) > ${before.row}`);
  // Walking backwards from a `before` cursor takes the nearest rows first; pageOf restores the order.
  const direction = raw(page.before && !page.after ? 'ASC' : 'DESC');
  return sql`SELECT cursors.after_found, cursors.before_found, page.*
       FROM (SELECT ${after.found} AS after_found, ${before.found} AS before_found) cursors
       LEFT JOIN LATERAL (
         SELECT * FROM (
           SELECT ${query.columns},
                  sum(${query.size}) OVER (ORDER BY a.created_at ${direction}, a.id ${direction}) AS page_running_bytes,
                  row_number() OVER (ORDER BY a.created_at ${direction}, a.id ${direction}) AS page_row
             FROM ${table} a
            WHERE ${join(where, ' AND ')}
            ORDER BY a.created_at ${direction}, a.id ${direction}
            LIMIT ${page.limit}
         ) numbered
         WHERE page_row = 1 OR page_running_bytes <= ${page.maxBytes}
       ) page ON true
      ORDER BY page.page_row`;
}

/** The answer of a pageStatement: its rows newest first, or the cursor that was not found. */
export function pageOf<T>(rows: ReadonlyArray<Record<string, unknown>>, page: PageRequest): Page<T> {
  const [first] = rows;
  if (first && first.after_found === false) return { rows: [], unknownCursor: 'after' };
  if (first && first.before_found === false) return { rows: [], unknownCursor: 'before' };
  const found = rows
    .filter((row) => row.page_row !== null && row.page_row !== undefined)
    .map(({ after_found: _a, before_found: _b, page_row: _r, page_running_bytes: _s, ...row }) => row as T);
  if (page.before && !page.after) found.reverse();
  return { rows: found };
}

/** Runs a page on its own (lists that need no credential check: the admin API's). */
export async function selectPage<T>(db: Queryable, query: ListQuery, page: PageRequest): Promise<Page<T>> {
  return pageOf<T>(await run<Record<string, unknown>>(db, pageStatement(query, page)), page);
}
