// What the handlers' parameter schemas share: the field helpers and the words of their refusals,
// declared once, so every activity refuses the same mistake in the same words (clients and tests
// read the field violations byte for byte).
import { z } from 'zod';
import { wholeNumberPattern } from '../../wire/numberPattern.ts';

/**
 * A string field whose value `problem` describes as wrong, or not (one issue per field, never two).
 * Without `maxLength`, `problem` bounds the length itself. The bound is also stated as the JSON
 * Schema keyword, which the refinement alone would not give the OpenAPI document.
 */
export function text(maxLength: number | undefined, problem: (value: string) => string | undefined = () => undefined) {
  const schema = z.string({ error: 'must be a string' }).superRefine((value, ctx) => {
    const tooLong = maxLength !== undefined && value.length > maxLength;
    const message = tooLong ? `is longer than ${maxLength} characters` : problem(value);
    if (message) ctx.addIssue({ code: 'custom', message });
  });
  return maxLength === undefined ? schema : schema.meta({ maxLength });
}

/** A true or false field. */
export const trueOrFalse = () => z.boolean({ error: 'must be true or false' });

/** The longest name of an API key or a user. */
const MAX_NAME_LENGTH = 256;

/** A name: not blank, at most MAX_NAME_LENGTH characters. */
export const name = text(MAX_NAME_LENGTH, (v) => (v.trim() === '' ? 'must not be empty' : undefined)).meta({ minLength: 1, pattern: '\\S' });

/** Whether PostgreSQL's text keeps the value as given: it takes neither NUL nor an unpaired surrogate. */
export const storable = (value: string) => !/[\u0000\uD800-\uDFFF]/u.test(value);
export const NOT_STORABLE = 'must not contain NUL or an unpaired surrogate';

/** A name that is unique in its organization: trimmed, 1 to `maxLength` characters, storable. */
export function trimmedName(maxLength: number) {
  return z
    .string({ error: 'must be a string' })
    .trim()
    .min(1, 'must not be empty or only spaces')
    .max(maxLength, `must be at most ${maxLength} characters`)
    .refine(storable, NOT_STORABLE);
}

/**
 * The refusal of an object field given something else (`{ error: objectExpected() }`). Only for a
 * wrong type: unknown keys keep their own issue, which names each key.
 */
export function objectExpected(message = 'must be an object') {
  return (issue: { code: string }) => (issue.code === 'invalid_type' ? message : undefined);
}

/** A list of ids, each a UUID: `one` names an item ("a user id"), `many` the items ("user ids"). */
export function idList(one: string, many: string) {
  return z.array(z.uuid({ message: `must be ${one} (a UUID)` }), { error: `must be an array of ${many}` });
}

/** A list the ecosystem requires even when empty: missing means []. */
export function list<T extends z.ZodType>(item: T, max: number, what: string) {
  return z
    .array(item, { error: 'must be an array' })
    .max(max, `may hold at most ${max} ${what}`)
    .describe(`The user's ${what}, at most ${max}; missing means []`)
    .default([]);
}

/** A list of something Signet does not have: only [] (or nothing) is accepted. */
export function unsupported(what: string) {
  return z
    .array(z.unknown(), { error: 'must be an array' })
    .max(0, `Signet does not support ${what}; send an empty array`)
    .describe(`Signet has no ${what}: only an empty array (or nothing) is accepted`)
    .default([]);
}

/**
 * A lifetime in whole seconds written as digits, as the ecosystem sends it: from 1 to `max`, `example`
 * in the refusal of a value that is not a string, `outOfRange` the refusal of one that is.
 */
export function wholeSeconds(max: number, example: string, outOfRange: string, description: string) {
  const digits = new RegExp(`^[1-9][0-9]{0,${String(max).length - 1}}$`);
  return z
    .string({ error: `must be a string of digits, e.g. "${example}"` })
    .refine((v) => digits.test(v) && Number(v) <= max, outOfRange)
    .meta({ pattern: wholeNumberPattern(max), description });
}
