// An error answer of the server, as the signet commands report it: the status, the server's message
// and where the request went. The server names the request fields it refuses (its message, and each
// field of the BadRequest detail's fieldViolations); the user typed flags, so namingFlags() names the
// flag that filled each such field instead: `invalid organization: name: …` → `--name: …`.
import type { AdminFlag } from '../http/adminApi.ts';
import type { Command, Flag, Input } from './command.ts';

export interface FieldViolation {
  field: string;
  description: string;
}

export class ServerError extends Error {
  constructor(
    readonly status: number,
    /** The server's message. */
    readonly serverMessage: string,
    /** The fields the server named, from its BadRequest detail. */
    readonly violations: FieldViolation[],
    /** What follows the message: a hint about the credentials, and the method and URL called. */
    readonly after: string,
  ) {
    super(`${status}: ${serverMessage}${after}`);
  }
}

/** The ServerError of an error answer: its message (or text) and its field violations. */
export function serverError(status: number, parsed: unknown, text: string, after: string): ServerError {
  const answer = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as { message?: unknown; details?: unknown };
  const message = typeof answer.message === 'string' ? answer.message : text.slice(0, 500);
  const violations: FieldViolation[] = [];
  for (const detail of Array.isArray(answer.details) ? answer.details : []) {
    for (const violation of Array.isArray(detail?.fieldViolations) ? detail.fieldViolations : []) {
      if (typeof violation?.field === 'string' && typeof violation?.description === 'string') violations.push(violation);
    }
  }
  return new ServerError(status, message, violations, after);
}

const ORDINAL = ['1st', '2nd', '3rd'];

/**
 * The error with each field the command's flags and arguments fill named as the user typed it: the
 * field of a violation (`userId: must be a UUID` → `--user: must be a UUID`; `userIds[1]: …` →
 * `--user 6c3a…: …`, the value given), and a camel-case field name in its description
 * (`the number of userIds` → `the number of --user values`). Anything else is left as the server wrote it.
 */
export function namingFlags(error: ServerError, command: Pick<Command, 'flags' | 'args'>, input: Input): ServerError {
  const fields = new Map<string, { label: string; values: string[] }>();
  for (const [name, flag] of Object.entries(command.flags)) {
    if (!flag.field) continue;
    const given = flag.multiple ? input.all(name) : [input.get(name) ?? ''];
    fields.set(flag.field, { label: flag.multiple ? `--${name} values` : `--${name}`, values: given.map((value) => `--${name} ${value}`) });
  }
  for (const argument of command.args ?? []) {
    if (argument.field) fields.set(argument.field, { label: argument.name, values: [argument.name] });
  }
  if (fields.size === 0 || error.violations.length === 0) return error;

  /** The flag that filled `field`, or the given value of a repeated flag that filled `field[i]`. */
  const label = (field: string): string | undefined => {
    const named = fields.get(field);
    if (named) return named.label.replace(/ values$/, '');
    const indexed = /^(.+)\[(\d+)\]$/.exec(field);
    const list = indexed && fields.get(indexed[1]!);
    if (!list) return undefined;
    const i = Number(indexed[2]);
    return list.values[i] ?? `the ${ORDINAL[i] ?? `${i + 1}th`} ${list.label.replace(/ values$/, '')}`;
  };
  const words = [...fields].filter(([field]) => /[A-Z]/.test(field.slice(field.lastIndexOf('.') + 1)));
  const describe = (description: string) =>
    words.reduce((text, [field, { label: flag }]) => text.replace(new RegExp(`\\b${field.slice(field.lastIndexOf('.') + 1)}\\b`, 'g'), flag), description);

  let message = error.serverMessage;
  const violations = error.violations.map((violation) => {
    const field = label(violation.field) ?? violation.field;
    const description = describe(violation.description);
    const written = `${violation.field}: ${violation.description}`;
    if (message.includes(written)) message = message.replace(written, `${field}: ${description}`);
    return { field, description };
  });
  return new ServerError(error.status, message, violations, error.after);
}

/** An admin command's flags, each knowing the request field it fills (its path or query parameter, or body field). */
export function flagsNamingFields(flags: Record<string, AdminFlag>): Record<string, AdminFlag & Pick<Flag, 'field'>> {
  const field = (to: AdminFlag['to']) => ('path' in to ? to.path : 'query' in to ? to.query : to.body);
  return Object.fromEntries(Object.entries(flags).map(([name, flag]) => [name, { ...flag, field: field(flag.to) }]));
}
