// A summary kept within a bound, pure: it is stored with its activity, put in the approval emails'
// outbox rows and in webhook events, so however many arguments, instructions or message fields what
// is signed has, what is kept of its summary is at most MAX_SUMMARY_BYTES of JSON. Values are cut at
// 200 characters already (values.ts); past the bound the lists are cut (to 64, 16, 4, 1, then no
// items), the text to TEXT_LIMIT characters, and the summary says `truncated: true`.
import type { ReadableSummary } from './summaryShape.ts';

/** The most JSON (UTF-8 bytes) a kept summary holds. */
export const MAX_SUMMARY_BYTES = 16 * 1024;

/** Characters of a cut summary's text, and of any other string in it (values are 200 at most already). */
const TEXT_LIMIT = 1000;
const STRING_LIMIT = 200;
/** Items each list keeps, tried in turn until the summary fits. */
const ITEMS = [64, 16, 4, 1, 0];

const encoder = new TextEncoder();
const bytesOf = (value: unknown) => encoder.encode(JSON.stringify(value)).length;

function cutText(text: string, limit: number): string {
  const characters = [...text];
  return characters.length <= limit ? text : `${characters.slice(0, limit - 1).join('')}…`;
}

/** A copy of `value` with each list cut to `items` and each string to STRING_LIMIT (`text` to TEXT_LIMIT). */
function cut(value: unknown, items: number, key?: string): unknown {
  if (typeof value === 'string') return cutText(value, key === 'text' ? TEXT_LIMIT : STRING_LIMIT);
  if (Array.isArray(value)) return value.slice(0, items).map((item) => cut(item, items));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, cut(item, items, name)]));
  }
  return value;
}

/** `summary` as it is kept: itself when within MAX_SUMMARY_BYTES, else cut until it is (undefined only if even the least does not fit). */
export function boundedSummary(summary: ReadableSummary): ReadableSummary | undefined {
  if (bytesOf(summary) <= MAX_SUMMARY_BYTES) return summary;
  for (const items of ITEMS) {
    const smaller = { ...(cut(summary, items) as ReadableSummary), truncated: true as const };
    if (bytesOf(smaller) <= MAX_SUMMARY_BYTES) return smaller;
  }
  return undefined;
}
