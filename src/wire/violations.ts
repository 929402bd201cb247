// Turns schema failures into the wire's field violations, so every bad field is
// named with its full path (`parameters.emailCustomization.logoUrl`) and a fix a user can act on.
import type { z } from 'zod';
import { invalidArgument, type FieldViolation, type SignetError } from '../errors.ts';

function fieldPath(prefix: string, path: ReadonlyArray<PropertyKey>): string {
  let out = prefix;
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out || '(body)';
}

export function fieldViolations(error: z.ZodError, prefix = ''): FieldViolation[] {
  const violations: FieldViolation[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        violations.push({
          field: fieldPath(prefix, [...issue.path, key]),
          description: 'unknown field; remove it (field names are case-sensitive)',
        });
      }
    } else if (issue.code === 'invalid_type' && issue.input === undefined) {
      violations.push({ field: fieldPath(prefix, issue.path), description: 'required field is missing' });
    } else {
      violations.push({ field: fieldPath(prefix, issue.path), description: issue.message });
    }
  }
  return violations;
}

/** A 400 whose message lists the violations, for clients that only show `message`. */
export function schemaError(error: z.ZodError, prefix = '', what = 'invalid request'): SignetError {
  const violations = fieldViolations(error, prefix);
  const summary = violations
    .slice(0, 5)
    .map((v) => `${v.field}: ${v.description}`)
    .join('; ');
  const more = violations.length > 5 ? ` (and ${violations.length - 5} more)` : '';
  return invalidArgument(`${what}: ${summary}${more}`, violations);
}
