// A bounded fuzzer for every route of the server's own /openapi.json: starts `signet serve` as its own
// process on loopback (embedded store, or PostgreSQL in a schema of its own with FUZZ_DATABASE_URL),
// reads the routes from GET /openapi.json (methods, path and query parameters, example bodies, and
// whether a route takes a stamp, the admin token or nothing), then sends mutated requests: example
// bodies with one value changed, bytes flipped or cut, bad encodings, deep nesting, oversize bodies,
// odd path and query values (NUL, broken percent-encodings, lone surrogates, long, unicode), mangled
// stamps, admin tokens and headers, wrong methods and paths, malformed HTTP on raw sockets. Bodies are
// stamped correctly and admin routes get the token unless that is what is mutated, and ids the server
// hands out are reused in later paths and bodies, so requests reach the checks behind them. Prints
// each route's count and status histogram; any 5xx or connection error is printed with the request
// that caused it and makes it exit 1, as does a route of /openapi.json left unexercised. Deterministic
// for a seed (up to timing at concurrency above 1).
//   npm run fuzz -- --requests 100000 [--seed 1] [--concurrency 32] [--seconds 3600]
import { createPrivateKey, sign, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { createSchema, dropSchema, urlWithSchema } from '../test/support/databases.ts';
import { freePort, serve } from '../test/support/processes.ts';
import { labelOf, operationsOf, type Auth, type OpenApi, type Operation, type Parameter } from './fuzzRoutes.ts';
import { seededRandom } from './seededRandom.ts';

const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: '100000' },
    seed: { type: 'string', default: '1' },
    concurrency: { type: 'string', default: '32' },
    seconds: { type: 'string', default: '3600' },
  },
});
const REQUESTS = Number(args.requests);
const CONCURRENCY = Number(args.concurrency);
const SECONDS = Number(args.seconds);
const ADMIN_TOKEN = 'fuzz-admin-token-0123456789-abcdefghijklmnop';

const { below, pick } = seededRandom(Number(args.seed));

const STRINGS = [
  '', ' ', 'a', '0', '-1', '1e309', 'null', 'true', '{}', '[]', '"', '\\', '\u0000', '\ud800', '\udfff', '💥', 'ÿ',
  '%s', '%s%s', '{{.OtpCode}}', '{{{x}}}', '{{#each}}', '<script>', '\r\nBcc: x@example.com', '../../etc/passwd',
  'https://127.0.0.1/logo.png', 'http://[::1]/', 'javascript:alert(1)', 'a@b', 'a@example.com', '+14155552671', '+1',
  '0xdAC17F958D2ee523a2206206994597C13D831ec7', '0x0000000000000000000000000000000000000000', 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
  'OTP_TYPE_EMAIL', 'OTP_TYPE_SMS', 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM', 'SMART_CONTRACT_INTERFACE_TYPE_SOLANA',
  '00000000-0000-4000-8000-000000000000', '9'.repeat(40), '[{"type":"function","name":"f"}]', '{"instructions":[]}',
  '[{"type":"function","name":"f","inputs":[{"type":"tuple","components":[{"type":"tuple[]"}]}]}]',
];
const KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'x', '', 'type', 'parameters', 'ÿ', '\u0000'];

function randomString(): string {
  switch (below(6)) {
    case 0:
      return pick(STRINGS);
    case 1:
      return pick(STRINGS).repeat(1 + below(200));
    case 2:
      return Array.from({ length: below(64) }, () => String.fromCharCode(below(0x3000))).join('');
    case 3:
      return 'x'.repeat(below(8) === 0 ? 420_000 : below(5000));
    default:
      return pick(STRINGS) + pick(STRINGS);
  }
}

function randomValue(depth = 0): unknown {
  switch (below(depth > 3 ? 6 : 9)) {
    case 0:
      return randomString();
    case 1:
      return pick([0, -1, 1.5, 1e308, -1e-308, 2 ** 53 + 1, 6, 9, 10, 600, 601]);
    case 2:
      return pick([true, false, null]);
    case 3:
      return randomString();
    case 4:
      return String(below(1000));
    case 5:
      return pick(STRINGS);
    case 6:
      return Array.from({ length: below(4) }, () => randomValue(depth + 1));
    case 7:
      return Object.fromEntries(Array.from({ length: below(4) }, () => [pick(KEYS), randomValue(depth + 1)]));
    default: {
      const levels = 1 + below(80);
      return JSON.parse('['.repeat(levels) + ']'.repeat(levels));
    }
  }
}

/** Every container in a value, with its parent, to mutate one of them. */
function containers(value: unknown, out: Array<Record<string, unknown> | unknown[]> = []) {
  if (typeof value === 'object' && value !== null) {
    out.push(value as Record<string, unknown>);
    for (const child of Object.values(value)) containers(child, out);
  }
  return out;
}

function mutateDocument(document: Record<string, unknown>): string {
  const copy = JSON.parse(JSON.stringify(document)) as Record<string, unknown>;
  const target = pick(containers(copy));
  const keys = Object.keys(target);
  const op = below(5);
  if (op === 0 && keys.length > 0) delete (target as Record<string, unknown>)[pick(keys)];
  else if (op === 1) (target as Record<string, unknown>)[pick(KEYS)] = randomValue();
  else if (keys.length > 0) (target as Record<string, unknown>)[pick(keys)] = randomValue();
  let text = JSON.stringify(copy);
  // Keys JSON.stringify would not write as own data (a literal "__proto__" key) go in as text.
  if (below(10) === 0) text = text.replace(/^\{/, `{"${pick(['__proto__', 'constructor', 'prototype'])}":${JSON.stringify(randomValue())},`);
  if (below(20) === 0) {
    const levels = below(7000);
    text = text.replace(/}$/, `,"d":${'['.repeat(levels)}${']'.repeat(levels)}}`);
  }
  return text;
}

function mutateBytes(text: string): Buffer {
  const bytes = Buffer.from(text);
  switch (below(4)) {
    case 0: {
      for (let i = 0; i < 1 + below(4); i++) bytes[below(bytes.length)] = below(256);
      return bytes;
    }
    case 1:
      return bytes.subarray(0, below(bytes.length));
    case 2:
      return Buffer.concat([bytes.subarray(0, below(bytes.length)), Buffer.from([below(256), below(256)]), bytes]);
    default:
      return Buffer.from(text.replace(/"[a-zA-Z]+":/, (key) => `${key}1,${key}`));
  }
}

interface Credentials {
  organizationId: string;
  apiPublicKey: string;
  apiPrivateKey: string;
}

function privateKeyOf(credentials: Credentials): KeyObject {
  const d = Buffer.from(credentials.apiPrivateKey, 'hex');
  // PKCS#8 for a P-256 scalar: a fixed prefix, then the 32 bytes.
  const prefix = Buffer.from('308141020100301306072a8648ce3d020106082a8648ce3d030107042730250201010420', 'hex');
  return createPrivateKey({ key: Buffer.concat([prefix, d]), format: 'der', type: 'pkcs8' });
}

/**
 * A valid X-Stamp over the exact body: made by the ecosystem's own stamper when the body is text (what
 * its clients send), here for bodies of bytes that are not UTF-8, which the stamper cannot take.
 */
async function validStamp(stamper: ApiKeyStamper, credentials: Credentials, key: KeyObject, body: Buffer): Promise<string> {
  const text = body.toString();
  if (Buffer.from(text).equals(body)) return (await stamper.stamp(text)).stampHeaderValue;
  return stampHeader(credentials, key, body);
}

function stampHeader(credentials: Credentials, key: KeyObject, body: Buffer): string {
  const signature = sign('sha256', body, { key, dsaEncoding: 'der' }).toString('hex');
  return Buffer.from(
    JSON.stringify({ publicKey: credentials.apiPublicKey, scheme: 'SIGNATURE_SCHEME_TK_API_P256', signature }),
  ).toString('base64url');
}

function mutateStamp(valid: string): Record<string, string> {
  switch (below(9)) {
    case 0:
      return {};
    case 1:
      return { 'x-stamp': randomString().slice(0, 9000) };
    case 2: {
      const json = JSON.parse(Buffer.from(valid, 'base64url').toString());
      json.signature = json.signature.replace(/^30(..)/, (_: string, n: string) => `b0${n}`);
      return { 'x-stamp': Buffer.from(JSON.stringify(json)).toString('base64url') };
    }
    case 3: {
      const json = JSON.parse(Buffer.from(valid, 'base64url').toString());
      json.publicKey = `02${'11'.repeat(32)}`;
      return { 'x-stamp': JSON.stringify(json) };
    }
    case 4:
      return { 'x-stamp': valid, 'x-stamp-webauthn': valid };
    case 5:
      return { 'x-stamp-webauthn': JSON.stringify({ credentialId: 'AAAA', authenticatorData: 'A'.repeat(60), clientDataJson: 'e30', signature: 'MEUCIQ' }) };
    case 6:
      return { 'x-stamp-webauthn': JSON.stringify({ credentialId: randomString(), authenticatorData: randomString(), clientDataJson: randomString(), signature: randomString() }) };
    case 7: {
      const json = JSON.parse(Buffer.from(valid, 'base64url').toString());
      json[pick(KEYS)] = randomValue();
      return { 'x-stamp': Buffer.from(JSON.stringify(json)).toString('base64url') };
    }
    default:
      return { 'x-stamp': valid.slice(0, below(valid.length)) };
  }
}

// ---- Values the server gave: ids to put in paths, queries and bodies so requests reach rows ----

/** Field name → values seen in answers (an `id` inside `activity` is also an `activityId`). */
const known = new Map<string, string[]>();
/** Names whose values are worth reusing: ids, and the parameters of /openapi.json (a sender domain). */
const parameterNames = new Set<string>();
const identifying = (name: string) => /Id$/.test(name) || parameterNames.has(name);
/** The stamping organization's own ids: never handed to admin routes, which could remove them. */
const protectedValues = new Set<string>();

function remember(name: string, value: string) {
  if (!identifying(name) || protectedValues.has(value) || value.length > 300) return;
  const values = known.get(name) ?? [];
  if (values.includes(value)) return;
  if (values.length < 64) values.push(value);
  else values[below(values.length)] = value;
  known.set(name, values);
}

/** Ids that belong together (a user's id with its organization's), for paths with several of them. */
const groups: Array<Record<string, string>> = [];

function harvest(value: unknown, parent = '', depth = 0, context: Record<string, string> = {}): void {
  if (depth > 12 || value === null || typeof value !== 'object') return;
  const group = { ...context };
  for (const [key, child] of Object.entries(value)) {
    if (typeof child !== 'string') continue;
    remember(key, child);
    if (key === 'id' && parent) remember(`${parent.replace(/s$/, '')}Id`, child);
    const name = key === 'id' && parent ? `${parent.replace(/s$/, '')}Id` : key;
    if (identifying(name) && !protectedValues.has(child) && child.length <= 300) group[name] = child;
  }
  if (Object.keys(group).length > Object.keys(context).length && Object.keys(group).length > 1) {
    if (groups.length < 512) groups.push(group);
    else groups[below(groups.length)] = group;
  }
  for (const [key, child] of Object.entries(value)) {
    if (child !== null && typeof child === 'object') harvest(child, Array.isArray(value) ? parent : key, depth + 1, group);
  }
}

const knownValue = (name: string): string | undefined => {
  const values = known.get(name);
  return values?.length ? pick(values) : undefined;
};

const hex = (n: number) => Array.from({ length: n }, () => '0123456789abcdef'[below(16)]).join('');
const randomUuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-8${hex(3)}-${hex(12)}`;

/** A valid body: the example with the ids of this run, a fresh timestamp and, for stamps, the stamping organization. */
function filled(example: unknown, auth: Auth, organizationId: string, pristine: boolean): unknown {
  const walk = (value: unknown, key: string, depth: number): unknown => {
    if (depth > 20) return value;
    if (Array.isArray(value)) return value.map((item) => walk(item, key, depth + 1));
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([name, child]) => [name, walk(child, name, depth + 1)]));
    }
    if (typeof value !== 'string') return value;
    if (key === 'timestampMs') return String(Date.now());
    if (key === 'organizationId' && auth === 'stamp' && (pristine || below(20) !== 0)) return organizationId;
    return pristine || below(5) !== 0 ? (knownValue(key) ?? value) : value;
  };
  return walk(example, '', 0);
}

// ---- Path and query values ----

/** Percent-encoded segments that are each a different way to be wrong. */
const NASTY_SEGMENTS = [
  '', '%00', 'a%00b', '%00%00', '%', '%%', '%zz', '%0', '%E0%A4%A', '%C0%AF', '%C0%80', '%ED%A0%80', '%ED%BF%BF', '%ED%A0%80%ED%B0%80',
  '%FF', '%FE%FF', '%F4%90%80%80', '%F0%9F%92%A5', '%C3%BF', '%E2%80%AE', '%EF%BF%BF', '%EF%BB%BF', '..', '.', '%2E%2E', '%2F', 'a%2Fb',
  '%5C', '%20', '+', '%2B', '%25', '%2500', '%u0000', '%0D%0ASet-Cookie:x', '%3F', '%23', '*', '~', '-1', '0', '1e309', 'null',
  'undefined', '__proto__', 'constructor', '00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff',
  'ZZZZZZZZ-ZZZZ-4ZZZ-8ZZZ-ZZZZZZZZZZZZ', '%D9%A1%D9%A2%D9%A3', '%EF%AC%81', 'A'.repeat(254), 'a.'.repeat(127),
];

/** Lone surrogates cannot be percent-encoded as UTF-8; they become U+FFFD here and are sent as %ED%A0%80 by NASTY_SEGMENTS. */
const wellFormed = (text: string) => text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
const encode = (text: string) => encodeURIComponent(wellFormed(text));

/** A value for a path or query parameter, percent-encoded: valid, almost valid, or wrong. */
function parameterValue(parameter: Parameter): string {
  const schema = parameter.schema ?? {};
  const roll = below(100);
  if (roll < 45) {
    const valid = knownValue(parameter.name) ?? (Array.isArray(schema.enum) ? String(pick(schema.enum)) : undefined);
    if (valid !== undefined) return encode(valid);
    if (schema.type === 'integer' || schema.type === 'number') return String(below(200));
  }
  if (roll < 55) return schema.format === 'uuid' || /Id$/.test(parameter.name) ? randomUuid() : encode(`${hex(6)}.example.com`);
  if (roll < 70) return encode(randomString()).slice(0, pick([64, 1000, 9000]));
  if (roll < 75) return (knownValue(parameter.name) ?? randomUuid()) + pick(NASTY_SEGMENTS);
  if (roll < 78) return 'x'.repeat(pick([1000, 16_000, 70_000]));
  return pick(NASTY_SEGMENTS);
}

/** The operation's path with values for its parameters: ones the server gave when `pristine`, else any. */
function pathOf(operation: Operation, pristine: boolean): string {
  const names = [...operation.template.matchAll(/\{([^}]+)\}/g)].map(([, name]) => name!);
  if (names.length > 1 && (pristine || below(3) === 0)) {
    const matching = groups.filter((group) => names.every((name) => group[name] !== undefined));
    if (matching.length) {
      const group = pick(matching);
      return operation.template.replace(/\{([^}]+)\}/g, (_m, name: string) => encode(group[name]!));
    }
  }
  return operation.template.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const parameter = operation.parameters.find((p) => p.in === 'path' && p.name === name) ?? { name, in: 'path' as const, schema: {} };
    if (pristine) {
      const valid = knownValue(name) ?? (Array.isArray(parameter.schema?.enum) ? String(parameter.schema.enum[0]) : randomUuid());
      return encode(valid);
    }
    return parameterValue(parameter);
  });
}

function queryOf(operation: Operation): string {
  const parameters = operation.parameters.filter((p) => p.in === 'query');
  const pairs: string[] = [];
  for (const parameter of parameters) if (below(2) === 0) pairs.push(`${parameter.name}=${parameterValue(parameter)}`);
  switch (below(12)) {
    case 0:
      if (parameters.length) pairs.push(`${pick(parameters).name}=${below(100)}`, `${pick(parameters).name}=${below(100)}`); // repeated
      break;
    case 1:
      pairs.push(`${encode(pick(KEYS))}=${encode(pick(STRINGS))}`);
      break;
    case 2:
      if (parameters.length) pairs.push(pick(parameters).name); // no '='
      break;
    case 3:
      pairs.push(pick(['', '&&&', '=', '%00=%00', '__proto__[x]=1', 'a[]=1&a[]=2', `${'q'.repeat(9000)}=1`, 'limit=1&limit=', '%zz=%zz']));
      break;
    default:
  }
  return pairs.length ? `?${pairs.join('&')}` : pick(['', '', '', '?']);
}

// ---- Bodies ----

/** A body of one of the shapes a client can get wrong; `valid` is a correct body for the operation. */
function bodyFor(valid: unknown): { body: Buffer; kind: string } {
  const text = JSON.stringify(valid);
  const roll = below(100);
  if (roll < 15) return { body: Buffer.from(text), kind: 'valid' };
  if (roll < 60) return { body: Buffer.from(valid !== null && typeof valid === 'object' ? mutateDocument(valid as Record<string, unknown>) : JSON.stringify(randomValue())), kind: 'mutated' };
  if (roll < 75) return { body: mutateBytes(text), kind: 'bytes' };
  if (roll < 83) {
    // Bad encodings, each with a correct stamp so the parser sees them.
    const [a, b] = [text.slice(0, Math.floor(text.length / 2)), text.slice(Math.floor(text.length / 2))];
    const invalid = Buffer.from(pick(['ff', 'c0af', 'eda080', 'edbfbf', 'f4908080', 'fe', '80', 'e0a4', '00']), 'hex');
    switch (below(5)) {
      case 0:
        return { body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]), kind: 'bom' };
      case 1:
        return { body: Buffer.from(text, 'utf16le'), kind: 'utf16' };
      case 2:
        return { body: Buffer.from(text, 'latin1'), kind: 'latin1' };
      default: {
        const at = a.lastIndexOf('"');
        return at > 0
          ? { body: Buffer.concat([Buffer.from(a.slice(0, at + 1)), invalid, Buffer.from(a.slice(at + 1) + b)]), kind: 'invalid utf-8' }
          : { body: Buffer.concat([invalid, Buffer.from(text)]), kind: 'invalid utf-8' };
      }
    }
  }
  if (roll < 88) {
    // Deep nesting, up to what fits under the 1 MiB limit.
    const levels = pick([100, 5000, 100_000, 500_000]);
    const open = pick(['[', '{"a":']);
    return { body: Buffer.from(open.repeat(levels) + '1' + (open === '[' ? ']' : '}').repeat(levels)), kind: `nested ${levels}` };
  }
  if (roll < 89) {
    const size = pick([1_048_576, 1_048_577, 1_200_000, 3_000_000]);
    const prefix = text.slice(0, -1) + ',"pad":"';
    return { body: Buffer.from(prefix + 'x'.repeat(Math.max(0, size - prefix.length - 2)) + '"}'), kind: `oversize ${size}` };
  }
  if (roll < 95) return { body: Buffer.from(JSON.stringify(randomValue())), kind: 'other json' };
  return { body: Buffer.from(Array.from({ length: below(300) }, () => below(256))), kind: 'junk' };
}

// ---- Headers ----

function adminAuthorization(): Record<string, string> {
  if (below(100) < 85) return { authorization: `Bearer ${ADMIN_TOKEN}` };
  return pick<Record<string, string>>([
    {},
    { authorization: '' },
    { authorization: 'Bearer' },
    { authorization: 'Bearer ' },
    { authorization: `bearer ${ADMIN_TOKEN}` },
    { authorization: `Bearer ${ADMIN_TOKEN} ` },
    { authorization: `Bearer ${ADMIN_TOKEN}x` },
    { authorization: `Bearer ${ADMIN_TOKEN.slice(1)}` },
    { authorization: `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}` },
    { authorization: `Bearer ${'t'.repeat(8000)}` },
    { authorization: `Bearer ${randomString().slice(0, 200)}` },
  ]);
}

/** One header a client or proxy can get wrong, sometimes. */
function oddHeaders(): Record<string, string> {
  switch (below(14)) {
    case 0:
      return { 'content-type': pick(['text/plain', 'application/json; charset=latin1', 'application/json; charset=utf-16', 'application/jsonx', '', 'APPLICATION/JSON', 'application/json;;', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', '*/*', 'application/json, text/plain']) };
    case 1:
      return { 'content-encoding': pick(['gzip', 'deflate', 'br', 'identity, gzip', 'x']) };
    case 2:
      return { 'x-request-id': pick([randomString().slice(0, 300), 'a'.repeat(129), 'ok-id', '']) };
    case 3:
      return { origin: pick(['null', 'http://evil.example', randomString().slice(0, 200), 'http://127.0.0.1:1']) };
    case 4:
      return { 'x-forwarded-for': pick(['1.2.3.4', '::1, 10.0.0.1', randomString().slice(0, 200), '999.1.1.1', '']) };
    case 5:
      return { accept: pick(['text/html', '*/*;q=x', randomString().slice(0, 200)]), 'accept-encoding': pick(['gzip', 'br', 'x;q=2']) };
    case 6:
      return { 'if-none-match': pick(['*', '"x"', randomString().slice(0, 200)]) };
    case 7:
      return Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`x-junk-${i}`, 'v'.repeat(below(200))]));
    case 8:
      return { 'transfer-encoding': 'chunked' };
    case 9:
      return { 'x-stamp': randomString().slice(0, 300), authorization: randomString().slice(0, 300) };
    case 10:
      return { 'x-big': 'b'.repeat(pick([8000, 15_000, 20_000])) };
    default:
      return {};
  }
}

// ---- Sending ----

/** The headers of a request other than its stamp or token and content type, shortened. */
const describeHeaders = (headers: Record<string, string>) => {
  const odd = Object.entries(headers).filter(([name]) => !['content-type', 'x-stamp', 'authorization'].includes(name));
  return odd.length ? `, headers ${odd.map(([name, value]) => `${name}: ${value.slice(0, 40)}`).join('; ').slice(0, 200)}` : '';
};

const excerpt = (body: Buffer | undefined) => {
  if (!body || body.length === 0) return 'no body';
  const text = JSON.stringify(body.subarray(0, 120).toString('latin1'));
  return `${body.length} B ${text}${body.length > 120 ? '…' : ''}`;
};

interface Outcome {
  status?: number;
  error?: string;
  /** For an error on a kept-alive connection: what that connection carried before. */
  previous?: string;
  /** The answer's body, for 2xx JSON answers (to learn ids from). */
  json?: unknown;
}

/** Header values as HTTP can carry them (the client library refuses others before sending). */
const headerSafe = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, value.replace(/[^\x20-\x7e]/g, '?')]));

const errorCode = (error: Error) => (error as NodeJS.ErrnoException).code ?? error.message;

/** What each kept-alive connection carried last, to tell which request a reset belongs to. */
const lastOnSocket = new WeakMap<net.Socket, { description: string; at: number }>();

function send(agent: http.Agent, port: number, method: string, route: string, rawHeaders: Record<string, string>, body?: Buffer): Promise<Outcome> {
  const headers = headerSafe(rawHeaders);
  // Node's client sends a GET, HEAD or DELETE body with no length unless told: the server would rightly
  // read those bytes as the start of the next request.
  if (body && headers['transfer-encoding'] === undefined) headers['content-length'] = String(body.length);
  const description = `${method} ${route.slice(0, 120)}${route.length > 120 ? '…' : ''}, body ${excerpt(body)}${describeHeaders(headers)}`;
  let previous: string | undefined;
  let socket: net.Socket | undefined;
  return new Promise((resolve) => {
    let request: http.ClientRequest;
    try {
      request = http.request({ host: '127.0.0.1', port, method, path: route, headers, agent }, (response) => {
        const wanted = (response.statusCode ?? 0) < 300 && /json/.test(String(response.headers['content-type']));
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          if (wanted && (size += chunk.length) < 1_000_000) chunks.push(chunk);
        });
        response.on('end', () => {
          let json: unknown;
          if (wanted && size < 1_000_000) {
            try {
              json = JSON.parse(Buffer.concat(chunks).toString());
            } catch {
              // not JSON after all
            }
          }
          if (socket) lastOnSocket.set(socket, { description: `${description} → ${response.statusCode}${response.headers.connection ? ` (Connection: ${response.headers.connection})` : ''}`, at: performance.now() });
          resolve({ status: response.statusCode!, json });
        });
        response.on('error', (error) => resolve({ error: errorCode(error), previous }));
      });
    } catch (error) {
      // The client refused the request itself (a path it cannot send): not the server's doing.
      resolve({ error: `CLIENT_REFUSED ${errorCode(error as Error)}` });
      return;
    }
    request.setTimeout(40_000, () => request.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    request.on('socket', (given) => {
      socket = given;
      const last = lastOnSocket.get(given);
      previous = request.reusedSocket ? (last ? `${last.description}, ${Math.round(performance.now() - last.at)} ms before` : 'unknown') : undefined;
    });
    request.on('error', (error) => resolve({ error: errorCode(error), previous }));
    request.end(body);
  });
}

/** A malformed exchange on its own socket: the server must answer (below 500) and close, never reset. */
function sendRaw(port: number, payload: Buffer): Promise<Outcome> {
  return new Promise((resolve) => {
    // Written, not ended: a half-closed connection may be dropped before its answer (Node's HTTP server does).
    const socket = net.connect(port, '127.0.0.1', () => socket.write(payload));
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk) => (text += chunk));
    socket.on('error', (error) => {
      const answered = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
      resolve({ error: `${errorCode(error)}${answered ? ` after a ${answered}` : ''}` });
    });
    socket.setTimeout(40_000, () => {
      socket.destroy();
      resolve({ error: 'TIMEOUT' });
    });
    socket.on('close', () => {
      // The final answer, after any 100 Continue.
      const status = Number([...text.matchAll(/(?:^|\r\n)HTTP\/1\.1 (\d{3})/g)].map((match) => match[1]).find((code) => !code!.startsWith('1')));
      resolve(Number.isFinite(status) ? { status } : { error: 'NO_ANSWER' });
    });
  });
}

/** Requests only a raw socket can send: bytes in the request line and headers that a client library refuses. */
function rawRequest(path: string, method: string): Buffer {
  const at = Math.max(1, below(path.length));
  switch (below(12)) {
    case 0:
      return Buffer.from(`${method} ${path.slice(0, at)}${pick(['💥', 'ÿ', ' ', '\t', '\u0000', '\u00ff', '\u202e'])}${path.slice(at)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    case 1:
      return Buffer.concat([Buffer.from(`${method} ${path.slice(0, at)}`), Buffer.from(pick(['ff', 'eda080', 'c0af', '00', '7f']), 'hex'), Buffer.from(`${path.slice(at)} HTTP/1.1\r\nHost: x\r\n\r\n`)]);
    case 2:
      return Buffer.from(`${method} ${path} HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0000b\r\n\r\n`);
    case 3:
      return Buffer.from(`${method} ${path} HTTP/1.1\r\nHost: x\r\nX-Folded: a\r\n b\r\n\r\n`);
    case 4:
      return Buffer.from(`${method} ${path} HTTP/1.1\nHost: x\n\n`);
    case 5:
      return Buffer.from(`${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`);
    case 6:
      return Buffer.from(`${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n{}{}{}`);
    case 7:
      return Buffer.from(`${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 3000000\r\n\r\n{"organizationId":`);
    case 8:
      return Buffer.from(`${method} ${path} HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17_000 + below(20_000))}\r\n\r\n`);
    case 9:
      return Buffer.from(`${method} ${path} HTTP/9.9\r\nHost: x\r\n\r\n`);
    case 10:
      return Buffer.from(`${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n{}`);
    default:
      return Buffer.from(pick(['GARBAGE\r\n\r\n', `GET /${'%'.repeat(below(3000))} HTTP/1.1\r\nHost: x\r\n\r\n`, `${method} ${path} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n`]));
  }
}

// ---- Tally ----

interface RouteTally {
  count: number;
  outcomes: Map<string, number>;
}

interface Failure {
  count: number;
  examples: string[];
}

/** Failures the fuzzer knows the cause of, by what the request had in common. */
function knownCause(operation: Operation | undefined, path: string, outcome: Outcome, body: Buffer | undefined): string {
  if (operation?.auth === 'bearer' && outcome.status === 500 && /%00/i.test(path)) return ' [known: NUL byte in an admin path]';
  if (outcome.error && body && body.length > 1_048_576) return ' [known: 413 for a body over 1 MiB lost as a reset]';
  return '';
}


async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-fuzz-'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const databaseUrl = process.env.FUZZ_DATABASE_URL;
  const schema = databaseUrl ? await createSchema(databaseUrl, 'signet_fuzz') : undefined;
  const server = await serve(
    {
      SIGNET_PORT: String(port),
      SIGNET_HOST: '127.0.0.1',
      SIGNET_DATA_DIR: dataDir,
      SIGNET_ADMIN_TOKEN: ADMIN_TOKEN,
      SIGNET_DATABASE_URL: databaseUrl && schema ? urlWithSchema(databaseUrl, schema) : '',
      SIGNET_LOG_LEVEL: 'fatal',
      // Forged stamps must keep reaching verification instead of the failure throttle (tested on its own).
      SIGNET_AUTH_FAILURE_LIMIT: '999999/1',
      SIGNET_REQUEST_TIMEOUT_MS: '10000',
    },
    baseUrl,
  );
  const document = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as OpenApi;
  const operations = operationsOf(document);
  for (const operation of operations) for (const parameter of operation.parameters) parameterNames.add(parameter.name);

  // The stamping organization: its ids are kept away from admin routes, which could remove its key.
  const created = await fetch(`${baseUrl}/admin/v1/organizations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'fuzz' }),
  });
  const org = (await created.json()) as Credentials & { userId: string; apiKeyId: string };
  for (const id of [org.organizationId, org.userId, org.apiKeyId]) protectedValues.add(id);
  const key = privateKeyOf(org);
  const stamper = new ApiKeyStamper({ apiPublicKey: org.apiPublicKey, apiPrivateKey: org.apiPrivateKey });

  // As a well-behaved client keeps them: Node's agent closes an idle kept-alive connection a second
  // before the server's `Keep-Alive: timeout=N` says the server will, but only when the agent has a
  // timeout of its own. Without one, a connection idle past the server's timeout (the fuzzer pauses
  // while the embedded store writes a backup) is reused as the server closes it: a reset that is the
  // client's race, not the server's fault.
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY, timeout: 40_000 });
  const OFF_SPEC = '(other methods and unknown paths)';
  const RAW = '(raw socket, malformed HTTP)';
  const tallies = new Map<string, RouteTally>(
    [...operations.map(labelOf), OFF_SPEC, RAW].map((label) => [label, { count: 0, outcomes: new Map() }]),
  );
  const failures = new Map<string, Failure>();
  const statuses = new Map<number, number>();
  const errors = new Map<string, number>();
  const sentBodies: Buffer[] = [];
  let issued = 0;
  let completed = 0;
  const started = performance.now();
  const deadline = started + SECONDS * 1000;

  async function one(index: number): Promise<void> {
    // The first rounds go through every operation in order (creations come before what uses them), the
    // first of them as documented (its example, ids the server gave, valid credentials); then at random.
    const operation = index < operations.length * 3 ? operations[index % operations.length]! : pick(operations);
    const pristine = index < operations.length;
    const kind = index < operations.length * 3 ? 100 : below(100);
    let method = operation.method;
    let route = pathOf(operation, pristine) + (!pristine && (operation.parameters.some((p) => p.in === 'query') || below(20) === 0) ? queryOf(operation) : '');
    let label = labelOf(operation);
    let body: Buffer | undefined;
    let bodyKind = '';
    let outcome: Outcome;
    let headers: Record<string, string> = {};

    if (kind < 1) {
      label = RAW;
      body = rawRequest(route, method);
      outcome = await sendRaw(port, body);
    } else {
      if (kind < 5) {
        label = OFF_SPEC;
        const declared = Object.keys(document.paths[operation.template] ?? {}).map((m) => m.toUpperCase());
        if (below(2) === 0) method = pick(['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'].filter((m) => !declared.includes(m)));
        else route = pick([`${route}/x`, `${route}/`, route.replace(/^\//, '//'), route.toUpperCase(), route.replace(/\/[^/]*$/, '/nope'), '/nope', '/public/v1/submit/', '/admin/v1/', '/admin/v1/organizations/']);
        if (method === 'OPTIONS' && below(2) === 0) headers = { origin: 'http://127.0.0.1:1', 'access-control-request-method': 'POST' };
      }
      const valid = operation.examples.length ? filled(pick(operation.examples), operation.auth, org.organizationId, pristine) : undefined;
      if (valid !== undefined) {
        if (pristine) [body, bodyKind] = [Buffer.from(JSON.stringify(valid)), 'example'];
        else if (below(20) === 0 && sentBodies.length > 0) [body, bodyKind] = [pick(sentBodies), 'resubmission'];
        else ({ body, kind: bodyKind } = bodyFor(valid));
        headers['content-type'] = 'application/json';
      } else if (below(10) === 0) {
        body = Buffer.from(below(2) ? JSON.stringify(randomValue()) : randomString().slice(0, 5000));
        headers['content-type'] = 'application/json';
      }
      if (operation.auth === 'stamp') {
        const stamp = await validStamp(stamper, org, key, body ?? Buffer.alloc(0));
        Object.assign(headers, !pristine && below(10) === 0 ? mutateStamp(stamp) : { 'x-stamp': stamp });
      } else if (operation.auth === 'bearer') {
        Object.assign(headers, pristine ? { authorization: `Bearer ${ADMIN_TOKEN}` } : adminAuthorization());
      }
      if (!pristine && below(10) === 0) Object.assign(headers, oddHeaders());
      outcome = await send(agent, port, method, route, headers, body);
      if (outcome.json !== undefined && label !== OFF_SPEC) harvest(outcome.json);
      if (outcome.status === 200 && operation.auth === 'stamp' && body && sentBodies.length < 200) sentBodies.push(body);
    }

    const tally = tallies.get(label)!;
    tally.count++;
    const result = outcome.status !== undefined ? String(outcome.status) : outcome.error!;
    tally.outcomes.set(result, (tally.outcomes.get(result) ?? 0) + 1);
    if (outcome.status !== undefined) statuses.set(outcome.status, (statuses.get(outcome.status) ?? 0) + 1);
    else errors.set(outcome.error!, (errors.get(outcome.error!) ?? 0) + 1);
    if (outcome.error !== undefined || outcome.status! >= 500) {
      const signature = `${result} ${label}${knownCause(label === RAW ? undefined : operation, route, outcome, body)}`;
      const failure = failures.get(signature) ?? { count: 0, examples: [] };
      failure.count++;
      if (failure.examples.length < 3) {
        failure.examples.push(
          (label === RAW ? `raw ${excerpt(body)}` : `${method} ${route.length > 200 ? `${route.slice(0, 200)}… (${route.length} chars)` : route}, body ${bodyKind ? `(${bodyKind}) ` : ''}${excerpt(body)}${describeHeaders(headers)}`) +
            (outcome.previous ? `\n        on a kept-alive connection after: ${outcome.previous}` : ''),
        );
      }
      failures.set(signature, failure);
    }
  }

  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (issued < REQUESTS && performance.now() < deadline) {
        // The coverage rounds run one request at a time, so each creation is answered before its use.
        if (issued < operations.length * 3 && issued !== completed) {
          await new Promise((r) => setTimeout(r, 1));
          continue;
        }
        await one(issued++);
        if (++completed % 10_000 === 0) {
          process.stderr.write(`  ${completed} requests, ${Math.round(completed / ((performance.now() - started) / 1000))}/s\n`);
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  const exit = await server.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
  if (databaseUrl && schema) await dropSchema(databaseUrl, schema);

  const fivexx = [...statuses].filter(([status]) => status >= 500).reduce((n, [, count]) => n + count, 0);
  const connectionErrors = [...errors.values()].reduce((n, count) => n + count, 0);
  const exercised = operations.filter((o) => tallies.get(labelOf(o))!.count > 0).length;
  const histogram = (outcomes: Map<string, number>) =>
    [...outcomes].sort(([a], [b]) => a.localeCompare(b)).map(([result, count]) => `${result}: ${count}`).join(', ');
  const width = Math.max(...[...tallies.keys()].map((label) => label.length));
  const lines = [
    `fuzz: ${completed} requests in ${seconds.toFixed(1)} s (${Math.round(completed / seconds)}/s), seed ${args.seed}, ` +
      `${databaseUrl ? 'PostgreSQL' : 'embedded store'}${completed < REQUESTS ? `, stopped by --seconds ${SECONDS}` : ''}`,
    `routes exercised: ${exercised} of ${operations.length} operations in /openapi.json`,
    ...[...tallies].map(([label, tally]) => `  ${label.padEnd(width)} ${String(tally.count).padStart(7)}  ${histogram(tally.outcomes)}`),
    `status codes: ${[...statuses].sort(([a], [b]) => a - b).map(([status, count]) => `${status}: ${count}`).join(', ')}`,
    `5xx: ${fivexx}, connection errors: ${connectionErrors}${errors.size ? ` (${[...errors].map(([e, n]) => `${e}: ${n}`).join(', ')})` : ''}`,
    `server exit code: ${exit}`,
    ...(failures.size ? ['failures:'] : []),
    ...[...failures].flatMap(([signature, failure]) => [`  ${failure.count} × ${signature}`, ...failure.examples.map((example) => `      ${example}`)]),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  process.exitCode = fivexx === 0 && connectionErrors === 0 && exit === 0 && exercised === operations.length ? 0 : 1;
}

await main();
