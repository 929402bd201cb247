// GET /metrics through the real HTTP stack: each counter moves by exactly what the requests made
// with @turnkey/http did (requests by route pattern, activities by outcome, stamp failures by
// reason, delivery outcomes), the outbox depth is read at scrape time, and access is loopback-only.
import assert from 'node:assert/strict';
import { createECDH, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { STAMP_FAILURE_REASONS } from '../src/errors.ts';
import type { Database } from '../src/store/db.ts';
import { testDatabases, type TestDatabase } from './support/databases.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';
import { startSmtpSink, type SmtpSink } from './support/smtpSink.ts';
import { until } from './support/until.ts';

const CONTRACT = 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE';
const CONTRACT_ROUTE = '/public/v1/submit/create_smart_contract_interface';
const OTP = 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3';
const ABI = JSON.stringify([{ type: 'function', name: 'ping', stateMutability: 'view', inputs: [], outputs: [] }]);

/** One scrape, parsed: `name{a="1",b="2"}` (labels sorted) → value. */
type Scrape = Map<string, number>;

function seriesKey(name: string, labels: Record<string, string> = {}): string {
  const inner = Object.keys(labels)
    .sort()
    .map((key) => `${key}="${labels[key]}"`)
    .join(',');
  return inner ? `${name}{${inner}}` : name;
}

function parseExposition(text: string): Scrape {
  const samples: Scrape = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(match, `not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[key!] = value!;
    samples.set(seriesKey(match[1]!, labels), Number(match[3]));
  }
  return samples;
}

async function scrape(server: TestServer): Promise<Scrape> {
  const response = await fetch(`${server.baseUrl}/metrics`);
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return parseExposition(text);
}

/** How much a series moved between two scrapes (a series absent before counts from 0). */
function delta(before: Scrape, after: Scrape, name: string, labels: Record<string, string> = {}): number {
  const key = seriesKey(name, labels);
  assert.ok(after.has(key), `no series ${key} in the scrape`);
  return after.get(key)! - (before.get(key) ?? 0);
}

function contractBody(organizationId: string, address = '0xdAC17F958D2ee523a2206206994597C13D831ec7') {
  return {
    type: CONTRACT,
    timestampMs: String(Date.now()),
    organizationId,
    parameters: { smartContractAddress: address, smartContractInterface: ABI, type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM', label: 'Ping' },
  };
}

function otpBody(organizationId: string, contact: string) {
  return {
    type: OTP,
    timestampMs: String(Date.now()),
    organizationId,
    parameters: { otpType: 'OTP_TYPE_EMAIL', contact, appName: 'Metrics Wallet' },
  };
}

/** The gRPC code a client call ended with: 0 for success (the client throws a TurnkeyRequestError otherwise). */
async function codeOf(call: Promise<unknown>): Promise<number> {
  try {
    await call;
    return 0;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    assert.equal(typeof code, 'number', `not a refusal by the server: ${(error as Error).message}`);
    return code as number;
  }
}

const OK = 0;
const INVALID_ARGUMENT = 3; // 400
const PERMISSION_DENIED = 7; // 403
const UNAUTHENTICATED = 16; // 401

for (const tdb of testDatabases) {
  describe(`metrics (${tdb.name})`, () => {
    let server: TestServer;
    let acme: Credentials;
    let other: Credentials;

    before(async () => {
      server = await startTestServer(tdb); // no SIGNET_SMTP_URL: email goes to the dev mailbox
      acme = await server.createOrganization('Acme');
      other = await server.createOrganization('Other');
    });
    after(() => server.close());

    test('requests are counted by route pattern and status, never by URL', async () => {
      const before = await scrape(server);
      const client = server.client(acme);
      assert.equal(await codeOf(client.createSmartContractInterface(contractBody(acme.organizationId) as any)), OK);
      assert.equal(await codeOf(client.createSmartContractInterface(contractBody(acme.organizationId, '0x1234') as any)), INVALID_ARGUMENT);
      for (const id of ['a1b2c3', 'd4e5f6']) assert.equal((await fetch(`${server.baseUrl}/no/such/${id}`)).status, 404);
      const response = await fetch(`${server.baseUrl}/metrics`);
      const text = await response.text();
      const after = parseExposition(text);

      const requests = (route: string, status: string, method = 'POST') => delta(before, after, 'signet_http_requests_total', { method, route, status });
      assert.equal(requests(CONTRACT_ROUTE, '200'), 1);
      assert.equal(requests(CONTRACT_ROUTE, '400'), 1);
      assert.equal(requests('unmatched', '404', 'GET'), 2);
      assert.equal(delta(before, after, 'signet_http_request_duration_seconds_count', { method: 'POST', route: CONTRACT_ROUTE }), 2);
      assert.ok(delta(before, after, 'signet_http_request_duration_seconds_sum', { method: 'POST', route: CONTRACT_ROUTE }) > 0);
      assert.doesNotMatch(text, /a1b2c3|d4e5f6|\/no\/such/, 'the raw URL never becomes a label');
      assert.equal(response.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
    });

    test('activities are counted and timed by type and outcome', async () => {
      const before = await scrape(server);
      const client = server.client(acme);
      const signed = await client.stampCreateSmartContractInterface(contractBody(acme.organizationId) as any);
      const resend = () => fetch(signed.url, { method: 'POST', body: signed.body, headers: { [signed.stamp.stampHeaderName]: signed.stamp.stampHeaderValue, 'content-type': 'application/json' } });
      assert.equal((await resend()).status, 200);
      assert.equal((await resend()).status, 200); // the same body again: the stored activity
      assert.equal(await codeOf(client.createSmartContractInterface(contractBody(acme.organizationId, 'not-an-address') as any)), INVALID_ARGUMENT);
      const after = await scrape(server);

      const activities = (outcome: string) => delta(before, after, 'signet_activities_total', { type: CONTRACT, outcome });
      assert.equal(activities('created'), 1);
      assert.equal(activities('resubmitted'), 1);
      assert.equal(activities('refused'), 1);
      assert.equal(activities('failed'), 0);
      assert.equal(delta(before, after, 'signet_activities_total', { type: OTP, outcome: 'created' }), 0);
      assert.equal(delta(before, after, 'signet_activity_duration_seconds_count', { type: CONTRACT, outcome: 'created' }), 1);
      assert.ok(delta(before, after, 'signet_activity_duration_seconds_sum', { type: CONTRACT, outcome: 'created' }) > 0);
      assert.equal(after.get(seriesKey('signet_activity_duration_seconds_bucket', { type: CONTRACT, outcome: 'created', le: '+Inf' })),
        after.get(seriesKey('signet_activity_duration_seconds_count', { type: CONTRACT, outcome: 'created' })));
    });

    test('stamp failures are counted by the check that refused them, and nothing else moves', async () => {
      const before = await scrape(server);
      const body = () => contractBody(acme.organizationId) as any;

      // A signature by another key than the one named: bad_signature.
      assert.equal(await codeOf(server.client({ apiPublicKey: acme.apiPublicKey, apiPrivateKey: other.apiPrivateKey }).createSmartContractInterface(body())), UNAUTHENTICATED);
      // A valid key of another organization: wrong_organization (403).
      assert.equal(await codeOf(server.client(other).createSmartContractInterface(body())), PERMISSION_DENIED);
      // A key pair never registered: unknown_credential.
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      const stranger = server.client({ apiPublicKey: ecdh.getPublicKey('hex', 'compressed'), apiPrivateKey: ecdh.getPrivateKey('hex').padStart(64, '0') });
      assert.equal(await codeOf(stranger.createSmartContractInterface(body())), UNAUTHENTICATED);
      // A revoked key: revoked.
      const key = await server.admin('POST', `/organizations/${acme.organizationId}/api-keys`, { userId: acme.userId, name: 'soon revoked' });
      await server.admin('DELETE', `/organizations/${acme.organizationId}/api-keys/${key.apiKeyId}`);
      assert.equal(await codeOf(server.client(key).createSmartContractInterface(body())), UNAUTHENTICATED);
      // A key past its expiry: expired.
      const shortLived = await server.admin('POST', `/organizations/${acme.organizationId}/api-keys`, { userId: acme.userId, name: 'short-lived', expiresInSeconds: 1 });
      server.clock.advance(1100);
      assert.equal(await codeOf(server.client(shortLived).createSmartContractInterface(body())), UNAUTHENTICATED);
      // A stamp header that is not a stamp: malformed.
      const garbled = await fetch(`${server.baseUrl}${CONTRACT_ROUTE}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-stamp': 'not a stamp' }, body: JSON.stringify(body()) });
      assert.equal(garbled.status, 401);
      // A timestamp ten minutes old: stale_timestamp.
      const stale = { ...body(), timestampMs: String(Date.now() - 10 * 60_000) };
      assert.equal(await codeOf(server.client(acme).createSmartContractInterface(stale)), UNAUTHENTICATED);
      // No stamp at all, twice: missing.
      for (let i = 0; i < 2; i++) {
        const response = await fetch(`${server.baseUrl}${CONTRACT_ROUTE}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body()) });
        assert.equal(response.status, 401);
      }
      // A wrong admin token is a 401 too, but not a stamp failure.
      const admin = await fetch(`${server.baseUrl}/admin/v1/organizations/${acme.organizationId}/sender-domains`, { headers: { authorization: 'Bearer wrong' } });
      assert.equal(admin.status, 401);
      const after = await scrape(server);

      const expected: Record<string, number> = {
        bad_signature: 1, wrong_organization: 1, unknown_credential: 1, revoked: 1, expired: 1, malformed: 1, stale_timestamp: 1, missing: 2,
      };
      for (const reason of STAMP_FAILURE_REASONS) {
        assert.equal(delta(before, after, 'signet_stamp_failures_total', { reason }), expected[reason] ?? 0, reason);
      }
      assert.equal(delta(before, after, 'signet_http_requests_total', { method: 'POST', route: CONTRACT_ROUTE, status: '401' }), 8);
      assert.equal(delta(before, after, 'signet_http_requests_total', { method: 'POST', route: CONTRACT_ROUTE, status: '403' }), 1);
      assert.equal(delta(before, after, 'signet_activities_total', { type: CONTRACT, outcome: 'refused' }), 9);
    });

    test('a delivered email counts as sent, and the outbox drains to 0', async () => {
      const before = await scrape(server);
      const client = server.client(acme);
      await client.initOtpAuth(otpBody(acme.organizationId, `metrics-${randomUUID().slice(0, 8)}@example.com`) as any);

      const after = await until(
        'the email to be delivered',
        async () => {
          const scraped = await scrape(server);
          return delta(before, scraped, 'signet_deliveries_total', { channel: 'email', status: 'sent' }) >= 1 && scraped;
        },
        { timeoutMs: 10_000, everyMs: 50 },
      );
      assert.equal(delta(before, after, 'signet_deliveries_total', { channel: 'email', status: 'sent' }), 1);
      assert.equal(delta(before, after, 'signet_deliveries_total', { channel: 'email', status: 'retrying' }), 0);
      assert.equal(delta(before, after, 'signet_activities_total', { type: OTP, outcome: 'created' }), 1);
      assert.equal(after.get('signet_outbox_depth'), 0);
      const mail = fs.readdirSync(path.join(server.dataDir, 'mail')).filter((file) => file.endsWith('.eml'));
      assert.equal(mail.length, 1, 'the dev mailbox holds the email that was counted');
    });

    test('process metrics come along with the signet_ prefix', async () => {
      const after = await scrape(server);
      assert.ok(after.has('signet_process_cpu_user_seconds_total'));
      assert.ok(after.has('signet_nodejs_eventloop_lag_seconds'));
      assert.ok((after.get('signet_process_resident_memory_bytes') ?? after.get('signet_nodejs_heap_size_used_bytes') ?? 0) > 0);
    });
  });

  describe(`metrics of the outbox, worker driven by hand (${tdb.name})`, () => {
    let smtp: SmtpSink;
    let server: TestServer;
    let acme: Credentials;

    before(async () => {
      smtp = await startSmtpSink();
      server = await startTestServer(tdb, { SIGNET_SMTP_URL: smtp.url, SIGNET_OUTBOX_WORKER: 'false' });
      acme = await server.createOrganization('Acme');
    });
    after(async () => {
      await server.close();
      await smtp.close();
    });

    test('the depth gauge counts queued messages; outcomes count sent, retrying and failed', async () => {
      const client = server.client(acme);
      const before = await scrape(server);
      assert.equal(before.get('signet_outbox_depth'), 0);
      for (let i = 0; i < 3; i++) await client.initOtpAuth(otpBody(acme.organizationId, `depth${i}-${randomUUID().slice(0, 8)}@example.com`) as any);
      assert.equal((await scrape(server)).get('signet_outbox_depth'), 3);

      // One refused for now (451: retried), one for good (550), one accepted.
      smtp.refuseNext(1, 451);
      assert.equal(await server.server.worker.runOnce(), 3);
      const outcomes = (s: Scrape) => ({
        sent: delta(before, s, 'signet_deliveries_total', { channel: 'email', status: 'sent' }),
        retrying: delta(before, s, 'signet_deliveries_total', { channel: 'email', status: 'retrying' }),
        failed: delta(before, s, 'signet_deliveries_total', { channel: 'email', status: 'failed' }),
      });
      let after = await scrape(server);
      assert.deepEqual(outcomes(after), { sent: 2, retrying: 1, failed: 0 });
      assert.equal(after.get('signet_outbox_depth'), 1, 'the retrying message is still unfinished');
      assert.equal(delta(before, after, 'signet_deliveries_total', { channel: 'sms', status: 'sent' }), 0);

      // Make the retry due now, and refuse it for good this time.
      await server.db.query("UPDATE outbox SET next_attempt_at = now() WHERE status = 'retrying'");
      smtp.refuseNext(1, 550);
      assert.equal(await server.server.worker.runOnce(), 1);
      after = await scrape(server);
      assert.deepEqual(outcomes(after), { sent: 2, retrying: 1, failed: 1 });
      assert.equal(after.get('signet_outbox_depth'), 0);
    });
  });
}

describe('metrics access and failures', () => {
  test('/metrics answers only the addresses in SIGNET_METRICS_HOST', async () => {
    const server = await startTestServer(testDatabases[0]!, { SIGNET_METRICS_HOST: '192.0.2.10', SIGNET_OUTBOX_WORKER: 'false' });
    try {
      const response = await fetch(`${server.baseUrl}/metrics`);
      assert.equal(response.status, 403);
      const json = await response.json();
      assert.equal(json.code, 7);
      assert.match(json.message, /SIGNET_METRICS_HOST/);
      const open = await startTestServer(testDatabases[0]!, { SIGNET_METRICS_HOST: '*', SIGNET_OUTBOX_WORKER: 'false' });
      try {
        assert.equal((await fetch(`${open.baseUrl}/metrics`)).status, 200);
      } finally {
        await open.close();
      }
    } finally {
      await server.close();
    }
  });

  test('an unreadable outbox depth is NaN and the scrape still answers', async () => {
    let broken = false;
    const base = testDatabases[0]!;
    const flaky: TestDatabase = {
      name: base.name,
      async open() {
        const db = await base.open();
        const wrapped: Database = {
          kind: db.kind,
          query: (sql, params) => (broken && /FROM outbox/.test(sql) ? Promise.reject(new Error('connection terminated')) : db.query(sql, params)),
          exec: (sql) => db.exec(sql),
          transaction: (fn) => db.transaction(fn),
          close: () => db.close(),
        };
        return wrapped;
      },
    };
    const server = await startTestServer(flaky, { SIGNET_OUTBOX_WORKER: 'false' });
    try {
      assert.equal((await scrape(server)).get('signet_outbox_depth'), 0);
      broken = true;
      const during = await scrape(server);
      assert.ok(Number.isNaN(during.get('signet_outbox_depth')), 'NaN while the store does not answer');
      assert.ok(during.has(seriesKey('signet_stamp_failures_total', { reason: 'missing' })), 'the other metrics are still there');
      broken = false;
      assert.equal((await scrape(server)).get('signet_outbox_depth'), 0);
    } finally {
      await server.close();
    }
  });
});
