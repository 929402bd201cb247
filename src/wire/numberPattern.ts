// The JSON Schema form of a bound zod checks in a refinement: a string of digits from "1" to a
// maximum, no leading zero. The OpenAPI document carries it as `pattern`, so the bound a refinement
// enforces is not lost when the schema is converted.

/** A regular expression source matching the whole numbers 1 to `max` written as decimal digits. */
export function wholeNumberPattern(max: number): string {
  if (!Number.isInteger(max) || max < 1) throw new Error(`wholeNumberPattern: ${max} is not a whole number of at least 1`);
  const digits = String(max);
  const n = digits.length;
  const alternatives: string[] = [];
  // Every number with fewer digits than max.
  if (n > 1) alternatives.push(n === 2 ? '[1-9]' : `[1-9][0-9]{0,${n - 2}}`);
  // Numbers of max's length: a prefix of max, a smaller digit, then any digits.
  for (let i = 0; i < n; i++) {
    const low = i === 0 ? 1 : 0;
    const high = Number(digits[i]) - 1;
    if (high < low) continue;
    const rest = n - i - 1;
    alternatives.push(`${digits.slice(0, i)}${low === high ? low : `[${low}-${high}]`}${rest === 0 ? '' : rest === 1 ? '[0-9]' : `[0-9]{${rest}}`}`);
  }
  alternatives.push(digits);
  return `^(${alternatives.join('|')})$`;
}
