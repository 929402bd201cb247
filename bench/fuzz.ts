// A bounded fuzzer for every public route: starts `signet serve` as its own process (embedded store,
// or PostgreSQL with FUZZ_DATABASE_URL), then sends mutated requests — valid bodies with one value
// changed, bytes flipped or cut, unknown and special keys, deep nesting, mangled stamps and headers,
// wrong methods and paths, malformed HTTP on raw sockets — each body stamped correctly unless the
// stamp is what is mutated, so the checks behind the stamp are reached. It fails (exit 1) on any 5xx
// or any connection reset. Deterministic for a seed.
//   npm run fuzz -- --requests 100000 [--seed 1] [--concurrency 32]
import { createPrivateKey, sign, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { activityHandlers } from '../src/activities/registry.ts';
import { queryHandlers } from '../src/queries/registry.ts';
import { freePort, serve } from '../test/support/processes.ts';
import { seededRandom } from './seededRandom.ts';

const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: '100000' },
    seed: { type: 'string', default: '1' },
    concurrency: { type: 'string', default: '32' },
  },
});
const REQUESTS = Number(args.requests);
const CONCURRENCY = Number(args.concurrency);
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

interface Outcome {
  status?: number;
  error?: string;
}

/** Header values as HTTP can carry them (the client library refuses others before sending). */
const headerSafe = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, value.replace(/[^\x20-\x7e]/g, '?')]));

function send(agent: http.Agent, port: number, method: string, route: string, rawHeaders: Record<string, string>, body?: Buffer): Promise<Outcome> {
  const headers = headerSafe(rawHeaders);
  return new Promise((resolve) => {
    const request = http.request({ host: '127.0.0.1', port, method, path: route, headers, agent }, (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode! }));
      response.on('error', (error) => resolve({ error: (error as NodeJS.ErrnoException).code ?? error.message }));
    });
    request.on('error', (error) => resolve({ error: (error as NodeJS.ErrnoException).code ?? error.message }));
    request.end(body);
  });
}

const RAW_REQUESTS = [
  () => `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17_000 + below(20_000))}\r\n\r\n`,
  () => 'GARBAGE\r\n\r\n',
  () => `POST /public/v1/submit/init_otp_auth HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
  () => `POST /public/v1/submit/init_otp_auth HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n{}{}{}`,
  () => `POST /public/v1/query/list_activities HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 3000000\r\n\r\n{"organizationId":`,
  () => `GET /${'%'.repeat(below(3000))} HTTP/1.1\r\nHost: x\r\n\r\n`,
  () => `GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n`,
];

/** A malformed exchange on its own socket: the server must answer (below 500) and close, never reset. */
function sendRaw(port: number, payload: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(payload));
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk) => (text += chunk));
    socket.on('error', (error) => resolve({ error: (error as NodeJS.ErrnoException).code ?? error.message }));
    socket.setTimeout(40_000, () => {
      socket.destroy();
      resolve({ error: 'TIMEOUT' });
    });
    socket.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
      resolve(Number.isFinite(status) ? { status } : { error: 'NO_ANSWER' });
    });
  });
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-fuzz-'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const server = await serve(
    {
      SIGNET_PORT: String(port),
      SIGNET_DATA_DIR: dataDir,
      SIGNET_ADMIN_TOKEN: ADMIN_TOKEN,
      SIGNET_DATABASE_URL: process.env.FUZZ_DATABASE_URL ?? '',
      SIGNET_LOG_LEVEL: 'fatal',
      // Forged stamps must keep reaching verification instead of the failure throttle (tested on its own).
      SIGNET_AUTH_FAILURE_LIMIT: '999999/1',
      SIGNET_REQUEST_TIMEOUT_MS: '10000',
    },
    baseUrl,
  );
  const admin = async (route: string, body: unknown) => {
    const response = await fetch(`${baseUrl}/admin/v1${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return response.json() as Promise<Credentials & { userId: string }>;
  };
  const org = await admin('/organizations', { name: 'fuzz' });
  const key = privateKeyOf(org);

  const routes = [
    ...activityHandlers.map((h) => ({
      route: `/public/v1/submit/${h.path}`,
      document: () => ({ type: h.activityType, timestampMs: String(Date.now()), organizationId: org.organizationId, parameters: h.example }),
    })),
    ...queryHandlers.map((q) => ({ route: `/public/v1/query/${q.path}`, document: () => ({ ...(q.example as object), organizationId: org.organizationId }) })),
  ];
  const unstamped = ['/healthz', '/readyz', '/openapi.json', '/docs', '/.well-known/jwks.json', '/metrics', '/', '/public/v1/submit/', '/nope'];
  const adminRoutes = ['/admin/v1/organizations', `/admin/v1/organizations/${org.organizationId}/users`, `/admin/v1/organizations/${org.organizationId}/sender-domains`];

  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const statuses = new Map<number, number>();
  const errors = new Map<string, number>();
  const serverErrors: string[] = [];
  const sentBodies: Array<{ route: string; body: Buffer }> = [];
  let issued = 0;
  let completed = 0;
  const started = performance.now();

  async function one(): Promise<void> {
    const kind = below(100);
    let outcome: Outcome;
    let label: string;
    if (kind < 1) {
      const raw = pick(RAW_REQUESTS)();
      label = `raw ${raw.slice(0, 40).replace(/\r\n/g, ' ')}`;
      outcome = await sendRaw(port, raw);
    } else if (kind < 8) {
      const route = pick(unstamped);
      label = `GET ${route}`;
      outcome = await send(agent, port, pick(['GET', 'GET', 'POST', 'DELETE', 'PUT']), route, {});
    } else if (kind < 12) {
      const route = pick(adminRoutes);
      const body = Buffer.from(below(2) ? mutateDocument({ name: 'x', userName: 'y', domain: 'a.example.com' }) : randomString());
      label = `admin ${route}`;
      outcome = await send(agent, port, pick(['GET', 'POST']), route, {
        'content-type': 'application/json',
        authorization: below(3) ? `Bearer ${ADMIN_TOKEN}` : `Bearer ${randomString().slice(0, 100)}`,
      }, body);
    } else {
      const target = pick(routes);
      const document = target.document() as Record<string, unknown>;
      let body: Buffer;
      const flavour = below(100);
      if (flavour < 15) body = Buffer.from(JSON.stringify(document));
      else if (flavour < 70) body = Buffer.from(mutateDocument(document));
      else if (flavour < 85) body = mutateBytes(JSON.stringify(document));
      else if (flavour < 90 && sentBodies.length > 0) body = pick(sentBodies).body; // a resubmission
      else body = Buffer.from(mutateDocument(document));
      const stamp = stampHeader(org, key, body);
      let headers: Record<string, string> = { 'content-type': 'application/json', 'x-stamp': stamp };
      if (flavour >= 90) headers = { 'content-type': 'application/json', ...mutateStamp(stamp) };
      if (below(50) === 0) headers['content-type'] = pick(['text/plain', 'application/json; charset=latin1', 'application/jsonx', '']);
      label = `POST ${target.route}`;
      outcome = await send(agent, port, below(100) === 0 ? 'GET' : 'POST', target.route, headers, body);
      if (outcome.status === 200 && sentBodies.length < 200) sentBodies.push({ route: target.route, body });
    }
    if (outcome.status !== undefined) {
      statuses.set(outcome.status, (statuses.get(outcome.status) ?? 0) + 1);
      if (outcome.status >= 500 && serverErrors.length < 20) serverErrors.push(`${outcome.status} ${label}`);
    } else {
      errors.set(outcome.error!, (errors.get(outcome.error!) ?? 0) + 1);
      if (serverErrors.length < 20) serverErrors.push(`${outcome.error} ${label}`);
    }
  }

  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (issued < REQUESTS) {
        issued++;
        await one();
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

  const fivexx = [...statuses].filter(([status]) => status >= 500).reduce((n, [, count]) => n + count, 0);
  const resets = [...errors.values()].reduce((n, count) => n + count, 0);
  const byStatus = [...statuses].sort(([a], [b]) => a - b).map(([status, count]) => `${status}: ${count}`).join(', ');
  process.stdout.write(
    `fuzz: ${REQUESTS} requests in ${seconds.toFixed(1)} s (${Math.round(REQUESTS / seconds)}/s), seed ${args.seed}, ` +
      `${routes.length + unstamped.length + adminRoutes.length} routes\n` +
      `status codes: ${byStatus}\n` +
      `5xx: ${fivexx}, connection errors: ${resets}${errors.size ? ` (${[...errors].map(([e, n]) => `${e}: ${n}`).join(', ')})` : ''}\n` +
      `server exit code: ${exit}\n` +
      (serverErrors.length ? `first failures:\n  ${serverErrors.join('\n  ')}\n` : ''),
  );
  process.exitCode = fivexx === 0 && resets === 0 && exit === 0 ? 0 : 1;
}

await main();
