// Wording shared by the ABI and IDL schemas: what a JSON value is, and the message for a field that
// is missing or of the wrong JSON type.

export function describeJsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

/** A zod error function: "is required: <what>" when absent, else "must be <expected>, got …". */
export const required = (what: string, expected: string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? `is required: ${what}` : `must be ${expected}, got ${describeJsonType(issue.input)}`;

const MAX_QUOTED_LENGTH = 64;

/**
 * A value as an error message shows it: a string quoted and cut at 64 characters, anything else by
 * its JSON type, so a message stays short however large or deep the offending value is.
 */
export function quoteJson(value: unknown): string {
  if (typeof value !== 'string') return describeJsonType(value);
  return JSON.stringify(value.length > MAX_QUOTED_LENGTH ? `${value.slice(0, MAX_QUOTED_LENGTH)}…` : value);
}
