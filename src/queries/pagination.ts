// paginationOptions of every list query (the ecosystem's shape): limit "1"–"100" (default "10"),
// newest first, `after` an id for the next (older) page and `before` one for the previous page; and
// the byte budget that ends a page early, so no answer grows with the stored data.
import { z } from 'zod';
import { invalidField } from '../errors.ts';
import type { PageRequest, Position } from '../store/pages.ts';

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
        .optional(),
      before: cursor.optional(),
      after: cursor.optional(),
    })
    .optional();
}

export type PaginationOptions = z.output<ReturnType<typeof paginationOptions>>;

/**
 * The page to read: the limit, the budget, and each cursor resolved to its position by `locate`
 * (a 400 naming the field when the id is not one of the organization's).
 */
export async function pageRequest(
  options: { limit?: string; before?: string; after?: string } | undefined,
  locate: (id: string) => Promise<Position | undefined>,
  defaultLimit = DEFAULT_PAGE_LIMIT,
): Promise<PageRequest> {
  const page: PageRequest = { limit: Number(options?.limit ?? defaultLimit), maxBytes: PAGE_BYTE_BUDGET };
  for (const field of ['before', 'after'] as const) {
    const id = options?.[field];
    if (id === undefined) continue;
    const position = await locate(id);
    if (!position) throw invalidField(`paginationOptions.${field}`, `no item ${id} in this organization to page from`);
    page[field] = position;
  }
  return page;
}
