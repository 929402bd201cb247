// The kinds of value a setting takes, as zod schemas from the variable's text: each checks the text,
// says what is wrong in words an operator can act on (the variable's name is put before them), turns
// it into the value Signet uses, and names its kind for docs/configuration.md's Type column.
import net from 'node:net';
import path from 'node:path';
import { z } from 'zod';

/** A setting's value read from its text. */
export type ValueSchema<T = unknown> = z.ZodType<T, string>;

/** The kind of each value schema in words ("whole number 0–65535 ms", "URL"), for the docs. */
export const kinds = z.registry<{ kind: string }>();

/** `schema`, its kind in words registered for the docs. */
export function kind<S extends ValueSchema>(text: string, schema: S): S {
  kinds.add(schema, { kind: text });
  return schema;
}

/** A check zod has no format for: `problem` says what is wrong with a value, or nothing. */
function checked(problem: (value: string) => string | undefined) {
  return z.string().superRefine((value, context) => {
    const message = problem(value);
    if (message !== undefined) context.addIssue({ code: 'custom', message });
  });
}

export function wholeNumber(min: number, max: number, unit?: string) {
  const suffix = unit ? ` ${unit}` : '';
  const error = (issue: { input?: unknown }) => `must be a whole number from ${min} to ${max}${suffix}, got "${issue.input}"`;
  return kind(
    `whole number ${min}–${max}${suffix}`,
    z.string().regex(/^\d{1,10}$/, { error }).transform(Number).pipe(z.number().min(min, { error }).max(max, { error })),
  );
}

export function trueOrFalse() {
  return kind(
    'true or false',
    z.stringbool({
      truthy: ['1', 'true', 'yes', 'on'],
      falsy: ['0', 'false', 'no', 'off'],
      case: 'insensitive',
      error: (issue) => `must be true or false, got "${issue.input}"`,
    }),
  );
}

export function oneOf<const T extends readonly [string, ...string[]]>(values: T, hint = '') {
  return kind(values.join(' | '), z.enum(values, { error: (issue) => `must be one of ${values.join(', ')}, got "${issue.input}"${hint}` }));
}

/** A path, made absolute against the folder Signet starts in. */
export function folder() {
  return kind('folder', z.string().transform((value) => path.resolve(value)));
}

/** A URL of one of `protocols` ("https:"). */
export function url(...protocols: string[]) {
  return kind(urlKind(protocols), urlSchema(protocols));
}

/** A URL that paths are appended to, without the trailing slashes of its own path. */
export function baseUrl(...protocols: string[]) {
  return kind(urlKind(protocols), urlSchema(protocols).transform((value) => value.replace(/\/+$/, '')));
}

/**
 * The base of links people open (http or https): links are made by appending a path, so it has no
 * query, fragment, user name or password; its path's trailing slashes are dropped.
 */
export function linkBase() {
  const problem = (value: string) => {
    if (!URL.canParse(value)) return undefined; // the URL check says so
    const parsed = new URL(value);
    if (value.includes('?') || value.includes('#')) return 'must not have a query (?…) or a fragment (#…): links are made by appending a path to it';
    if (parsed.username || parsed.password) return 'must not hold a user name or password';
    return undefined;
  };
  return kind(
    'http:// or https:// URL',
    urlSchema(['http:', 'https:'])
      .superRefine((value, context) => {
        const message = problem(value);
        if (message !== undefined) context.addIssue({ code: 'custom', message });
      })
      .transform((value) => value.replace(/\/+$/, '')),
  );
}

const schemes = (protocols: string[]) => protocols.map((protocol) => `${protocol}//`).join(' or ');
const urlKind = (protocols: string[]) => `${schemes(protocols)} URL`;

function urlSchema(protocols: string[]) {
  return z.url({
    protocol: new RegExp(`^(${protocols.map((protocol) => protocol.replace(':', '')).join('|')})$`),
    error: (issue) => (URL.canParse(String(issue.input)) ? `must start with ${schemes(protocols)}` : 'is not a valid URL'),
  });
}

/** A comma-separated list; each item is checked by `itemProblem`, and a bad one is quoted before its problem. */
export function list(kindText: string, itemProblem: (item: string) => string | undefined) {
  const item = checked((value) => {
    const problem = itemProblem(value);
    return problem && `"${value}" ${problem}`;
  });
  const items = (raw: string) => raw.split(',').map((entry) => entry.trim()).filter(Boolean);
  return kind(kindText, z.string().transform(items).pipe(z.array(item)));
}

/**
 * Comma-separated OpenID Connect issuers: https URLs without query, fragment, user or password, each
 * kept as written (a token's `iss` must equal it exactly, trailing slash included).
 */
export function issuerUrls() {
  return list('https:// URLs', (value) => {
    if (!URL.canParse(value)) return 'is not a URL';
    const parsed = new URL(value);
    if (parsed.protocol !== 'https:') return 'must start with https://';
    if (value.includes('?') || value.includes('#')) return 'must not have a query (?…) or a fragment (#…)';
    if (parsed.username || parsed.password) return 'must not hold a user name or password';
    return undefined;
  });
}

/**
 * The rule for secrets an operator sets (SIGNET_OTP_SECRET, SIGNET_ADMIN_TOKEN): at least 32
 * characters, with at least 10 different ones. `openssl rand -hex 32` or `-base64 32` passes;
 * "x", a word or a repeated pattern does not.
 */
export const SECRET_RULE = 'at least 32 characters with at least 10 different characters, e.g. the output of `openssl rand -hex 32`';
const MIN_SECRET_LENGTH = 32;
const MIN_SECRET_DISTINCT = 10;

export function secret() {
  const strong = (value: string) => value.length >= MIN_SECRET_LENGTH && new Set(value).size >= MIN_SECRET_DISTINCT;
  // The message counts the characters and never repeats them.
  const weak = (value: string) => `is too weak (${value.length} characters, ${new Set(value).size} different): a secret must be ${SECRET_RULE}`;
  return kind(
    'secret',
    z
      .string()
      .refine(strong, { error: (issue) => weak(String(issue.input)) })
      .regex(/^\S*$/, { error: 'must not contain whitespace' }),
  );
}

/** "COUNT/SECONDS": at most COUNT events per window of SECONDS. */
export function rateLimit() {
  const shape = /^\d{1,6}\/\d{1,7}$/;
  return kind(
    'COUNT/SECONDS',
    z
      .string()
      .refine((value) => shape.test(value) && value.split('/').every((part) => Number(part) >= 1), {
        error: (issue) => `must be COUNT/SECONDS with both at least 1, e.g. "5/600", got "${issue.input}"`,
      })
      .transform((value) => {
        const [count, windowSeconds] = value.split('/').map(Number) as [number, number];
        return { count, windowSeconds };
      }),
  );
}

/** An address a server can listen on: an IP address or a host name. */
export function listenAddress() {
  const hostName = /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
  return kind(
    'address',
    z.string().refine((value) => net.isIP(value) !== 0 || hostName.test(value), {
      error: 'must be an IP address (127.0.0.1, 0.0.0.0, ::) or a host name',
    }),
  );
}

/** A client address or network: an IP address, an IP/prefix (CIDR) range, or * for any. */
export function clientAddressProblem(value: string): string | undefined {
  if (value === '*') return undefined;
  const [address, bits, extra] = value.split('/');
  const family = net.isIP(address ?? '');
  if (family === 0 || extra !== undefined) return 'is not an IP address or an address/prefix range such as 10.0.0.0/8';
  if (bits === undefined) return undefined;
  const max = family === 4 ? 32 : 128;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= max ? undefined : `has a prefix length that is not 0–${max}`;
}

/** A web origin: scheme, host and port. */
function originProblem(value: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return 'is not an origin such as https://app.example.com';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'must start with https:// (or http:// for local development)';
  if (parsed.origin !== value.replace(/\/$/, '')) return `is not an origin (scheme, host and port only): did you mean ${parsed.origin}?`;
  return undefined;
}

/** Comma-separated origins, each without a trailing slash; or, when `anyAllowed`, `*` alone for any. */
export function origins(options: { anyAllowed: boolean }) {
  const problem = (item: string) => (options.anyAllowed && item === '*' ? undefined : originProblem(item));
  return kind(
    'origins',
    list('origins', problem)
      .refine((values) => !values.includes('*') || values.length === 1, { error: 'is either `*` (any origin) or a list of origins, not both' })
      .transform((values) => values.map((origin) => origin.replace(/\/$/, ''))),
  );
}

export function domainName() {
  const domain = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
  return kind(
    'domain',
    z.string().regex(domain, { error: 'must be a domain name in lowercase, without scheme or port, e.g. example.com (or localhost)' }),
  );
}

/**
 * zod's email format: one bare address, without a display name, spaces or line breaks, as a From
 * header needs. The rules for the addresses codes are sent to are the OTP module's, applied there.
 */
export function emailAddress() {
  return kind('email address', z.email({ error: 'must be an email address such as notifications@example.com' }));
}

/** Text matching `pattern`; `problem` says what it must be. */
export function matching(kindText: string, pattern: RegExp, problem: string) {
  return kind(kindText, z.string().regex(pattern, { error: problem }));
}
