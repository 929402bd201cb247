// Who the client is: behind a trusted reverse proxy (SIGNET_TRUSTED_PROXIES) the client address comes
// from X-Forwarded-For, so /admin and /metrics no longer treat every proxied request as loopback;
// without it the header is ignored. Failed authentications are throttled per client address
// (SIGNET_AUTH_FAILURE_LIMIT) without ever holding back a credential that signs correctly.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addressMatcher } from '../src/http/clientAddress.ts';
import { testDatabases } from './support/databases.ts';
import { strangerKey } from './support/keys.ts';
import { post, postStamped, stampHeaders } from './support/http.ts';
import { ADMIN_TOKEN, startTestServer, type Credentials, type TestServer } from './support/server.ts';

const tdb = testDatabases[0]!;

async function admin(server: TestServer, forwardedFor?: string) {
  const response = await fetch(`${server.baseUrl}/admin/v1/organizations/00000000-0000-4000-8000-000000000000/sender-domains`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) },
  });
  return response.status;
}

async function metrics(server: TestServer, forwardedFor?: string) {
  const response = await fetch(`${server.baseUrl}/metrics`, { headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {} });
  return response.status;
}

test('address lists take exact addresses, CIDR ranges and *, IPv4-mapped addresses as IPv4', () => {
  const allowed = addressMatcher(['127.0.0.1', '::1', '10.0.0.0/8', '2001:db8::/32']);
  for (const yes of ['127.0.0.1', '::ffff:127.0.0.1', '::1', '10.20.30.40', '::ffff:10.0.0.1', '2001:db8::5']) assert.ok(allowed(yes), yes);
  for (const no of ['127.0.0.2', '11.0.0.1', '::2', '2001:db9::1', 'localhost', '', undefined]) assert.ok(!allowed(no), String(no));
  assert.ok(addressMatcher(['*'])('203.0.113.9'));
});

describe('without a trusted proxy', () => {
  let server: TestServer;
  before(async () => (server = await startTestServer(tdb)));
  after(() => server.close());

  test('X-Forwarded-For is ignored: the TCP peer (loopback) is the client', async () => {
    assert.equal(await admin(server, '203.0.113.7'), 404); // allowed through to the route: no such organization
    assert.equal(await metrics(server, '203.0.113.7'), 200);
  });
});

describe('behind a trusted reverse proxy on the same host', () => {
  let server: TestServer;
  before(async () => (server = await startTestServer(tdb, { SIGNET_TRUSTED_PROXIES: '127.0.0.1,::1', SIGNET_METRICS_HOST: '10.0.0.0/8' })));
  after(() => server.close());

  test('/admin and /metrics judge the forwarded client, not the proxy', async () => {
    assert.equal(await admin(server, '203.0.113.7'), 403);
    assert.equal(await admin(server, '127.0.0.1'), 404); // an operator on the proxy host itself
    assert.equal(await metrics(server, '203.0.113.7'), 403);
    assert.equal(await metrics(server, '10.1.2.3'), 200);
    // The rightmost address the trusted proxy did not add is the client's: a forged left part does not help.
    assert.equal(await admin(server, '127.0.0.1, 203.0.113.7'), 403);
  });
});

describe('throttling failed authentications per client address', () => {
  let server: TestServer;
  let org: Credentials;
  const query = (organizationId: string) => JSON.stringify({ organizationId, paginationOptions: { limit: '1' } });
  const route = '/public/v1/query/list_activities';
  const from = async (address: string, credentials: Pick<Credentials, 'apiPublicKey' | 'apiPrivateKey'>, organizationId: string) => {
    const body = query(organizationId);
    return post(server.baseUrl, route, body, { ...(await stampHeaders(credentials, body)), 'x-forwarded-for': address });
  };

  before(async () => {
    server = await startTestServer(tdb, { SIGNET_TRUSTED_PROXIES: '127.0.0.1,::1', SIGNET_AUTH_FAILURE_LIMIT: '5/60' });
    org = await server.createOrganization();
  });
  after(() => server.close());

  test('an address that keeps failing gets 429 with Retry-After, before any signature check', async () => {
    assert.equal((await from('198.51.100.1', org, org.organizationId)).status, 200);
    for (let i = 0; i < 5; i++) assert.equal((await from('198.51.100.1', strangerKey(), org.organizationId)).status, 401);
    const metricsBefore = await (await fetch(`${server.baseUrl}/metrics`)).text();
    const throttled = await from('198.51.100.1', strangerKey(), org.organizationId);
    assert.equal(throttled.status, 429);
    assert.equal(throttled.json.code, 8);
    assert.match(throttled.json.message, /too many failed authentications from this address \(more than 5 in 60 seconds\); retry in \d+ seconds/);
    const retryAfter = Number(throttled.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 12, `Retry-After ${retryAfter}`);
    assert.match(throttled.headers.get('x-request-id') ?? '', /.+/);
    // Refused before verification: no stamp failure was counted for it.
    const failures = (text: string) => Number(/signet_stamp_failures_total\{reason="unknown_credential"\} (\d+)/.exec(text)![1]);
    assert.equal(failures(await (await fetch(`${server.baseUrl}/metrics`)).text()), failures(metricsBefore));
  });

  test('a credential that signs correctly is not held back, even from the throttled address', async () => {
    const answer = await from('198.51.100.1', org, org.organizationId);
    assert.equal(answer.status, 200, answer.text);
  });

  test("other addresses keep their own budget", async () => {
    assert.equal((await from('198.51.100.2', strangerKey(), org.organizationId)).status, 401);
    assert.equal((await from('198.51.100.2', org, org.organizationId)).status, 200);
  });

  test('unstamped routes are not throttled', async () => {
    const response = await fetch(`${server.baseUrl}/healthz`, { headers: { 'x-forwarded-for': '198.51.100.1' } });
    assert.equal(response.status, 200);
    assert.equal((await postStamped(server.baseUrl, route, query(org.organizationId), org)).status, 200);
  });
});
