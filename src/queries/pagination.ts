// paginationOptions of every list query (the ecosystem's shape): limit "1"–"100" (default "10"),
// newest first, `after` an id for the next (older) page and `before` one for the previous page; and
// the byte budget that ends a page early, so no answer grows with the stored data.
import { z } from 'zod';
import { invalidField } from '../errors.ts';
import type { Page, PageRequest } from '../store/pages.ts';

/** Rows of a page, by their estimated size in the answer: a page ends before it passes this. */
export const PAGE_BYTE_BUDGET = 8 * 1024 * 1024;
export const DEFAULT_PAGE_LIMIT = 10;
export const MAX_PAGE_LIMIT = 100;

export function paginationOptions(what: string) {
  const cursor = z.uuid({ message: `must be ${what} id (a UUID)` });
  return z
    .strictObject({
      limit: z
        .string({ error: 'must be a string of digits from "1" to "100"' })
        .regex(/^(100|[1-9][0-9]?)$/, 'must be a string of digits from "1" to "100"')
        .describe(`At most this many items, a string of digits from "1" to "${MAX_PAGE_LIMIT}"; "${DEFAULT_PAGE_LIMIT}" by default. A page also ends early, after at least one item, before about 8 MiB`)
        .optional(),
      before: cursor.describe(`Cursor: ${what} id; the page holds the items newer than it (the previous page)`).optional(),
      after: cursor.describe(`Cursor: ${what} id; the page holds the items older than it (the next page: pass the last id of a page)`).optional(),
    })
    .describe('Paging, newest first: keep paging with after = the last id until a page comes back empty')
    .optional();
}

export type PaginationOptions = z.output<ReturnType<typeof paginationOptions>>;

/** The page to read: the limit, the cursors and the budget. */
export function pageRequest(
  options: { limit?: string; before?: string; after?: string } | undefined,
  defaultLimit = DEFAULT_PAGE_LIMIT,
): PageRequest {
  return {
    limit: Number(options?.limit ?? defaultLimit),
    maxBytes: PAGE_BYTE_BUDGET,
    ...(options?.before ? { before: options.before } : {}),
    ...(options?.after ? { after: options.after } : {}),
  };
}

/** The rows of a page, or a 400 naming the cursor that is not one of the list's items (`among`: which list). */
export function pageRows<T>(
  page: Page<T>,
  options: { before?: string; after?: string } | undefined,
  field = 'paginationOptions',
  among = 'in this organization',
): T[] {
  if (page.unknownCursor) {
    throw invalidField(`${field}.${page.unknownCursor}`, `no item ${options?.[page.unknownCursor]} ${among} to page from`);
  }
  return page.rows;
}
