// The policy language's one integer type, `int`: exact from -2^255 (int256's least) to 2^256 - 1
// (uint256's greatest), so that a wei amount or a decoded uint256 argument compares exactly.
//
// An int is held as a JavaScript number while it is a safe integer (at most 2^53 - 1 in size: the
// common case, as fast as it always was) and as a bigint beyond. JavaScript compares a number with a
// bigint exactly (`<`, `>`, `==`), so the two mix without conversion. A number that is not a safe
// integer (a JSON number beyond 2^53 - 1, already rounded when it was read, or one with a fraction)
// is no int: every comparison with it is an evaluation error, never an answer about a rounded value.
// Whatever binds a value that may be large (a decoded uint256) binds it as a bigint (`normalizeInt`).

export type PolicyInt = number | bigint;

/** The least int a literal may write: -2^255. */
export const MIN_INT = -(2n ** 255n);
/** The greatest int a literal may write: 2^256 - 1. */
export const MAX_INT = 2n ** 256n - 1n;

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Whether `value` is an exact int: a safe integer number, or a bigint. */
export function isInt(value: unknown): value is PolicyInt {
  return typeof value === 'number' ? Number.isSafeInteger(value) : typeof value === 'bigint';
}

/** `value` as the language holds it: a number when it is a safe integer, the bigint otherwise. */
export function normalizeInt(value: bigint): PolicyInt {
  return value >= -MAX_SAFE && value <= MAX_SAFE ? Number(value) : value;
}

/**
 * The int a literal writes (an optional `-`, then decimal digits), or undefined when it is beyond
 * -2^255 to 2^256 - 1. Up to 15 digits is always a safe integer, read as a number directly.
 */
export function intLiteral(text: string): PolicyInt | undefined {
  const digits = text.startsWith('-') ? text.length - 1 : text.length;
  if (digits <= 15) return Number(text);
  const value = BigInt(text);
  return value < MIN_INT || value > MAX_INT ? undefined : normalizeInt(value);
}

/** -1, 0 or 1 as `left` is less than, equal to or greater than `right`: exact for numbers, bigints and a mix. */
export function compareInts(left: PolicyInt, right: PolicyInt): -1 | 0 | 1 {
  return left < right ? -1 : left > right ? 1 : 0;
}

/** Whether two values are the same int, whichever of them is a number or a bigint; false if either is no int. */
export function sameInt(left: unknown, right: unknown): boolean {
  return isInt(left) && isInt(right) && compareInts(left, right) === 0;
}
