// Cross-origin access through the real HTTP stack: no CORS header unless SIGNET_CORS_ORIGINS is set;
// an allowed origin's preflights are answered (without a stamp, and without counting as failed
// authentications) and its answers, errors included, name it; other origins, /admin and /metrics never do.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { generateApiKeyPair } from '../src/admin/organizations.ts';
import { CORS_ALLOWED_HEADERS } from '../src/http/cors.ts';
import { testDatabases } from './support/databases.ts';
import { ADMIN_TOKEN, startTestServer, type Credentials, type TestServer } from './support/server.ts';

const APP = 'https://app.example.com';
const OTHER = 'https://evil.example.net';
const CORS_HEADERS = [
  'access-control-allow-origin',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-max-age',
  'access-control-expose-headers',
];

/** What Chromium sends before a stamped POST from a page on `origin`. */
function preflight(server: TestServer, path: string, origin: string, method = 'POST'): Promise<Response> {
  return fetch(`${server.baseUrl}${path}`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'content-type,x-client-version,x-stamp',
    },
  });
}

/** A list_activities query stamped by `credentials` (or by a key the server never saw: a 401). */
async function listActivities(server: TestServer, credentials: Credentials, origin: string | undefined, unknownKey = false): Promise<Response> {
  const body = JSON.stringify({ organizationId: credentials.organizationId });
  const stamper = new ApiKeyStamper(unknownKey ? generateApiKeyPair() : credentials);
  const stamp = await stamper.stamp(body);
  return fetch(`${server.baseUrl}/public/v1/query/list_activities`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [stamp.stampHeaderName]: stamp.stampHeaderValue, ...(origin ? { origin } : {}) },
    body,
  });
}

function corsHeadersOf(response: Response): Record<string, string> {
  const found: Record<string, string> = {};
  for (const name of CORS_HEADERS) {
    const value = response.headers.get(name);
    if (value !== null) found[name] = value;
  }
  return found;
}

const tdb = testDatabases[0]!; // the HTTP layer only: one store is enough

describe('CORS, not configured', () => {
  let server: TestServer;
  let org: Credentials;

  before(async () => {
    server = await startTestServer(tdb, { SIGNET_OUTBOX_WORKER: 'false' });
    org = await server.createOrganization('No CORS');
  });
  after(() => server?.close());

  test('answers carry no CORS header and a preflight is a 403 that names the setting', async () => {
    const answer = await listActivities(server, org, APP);
    assert.equal(answer.status, 200);
    assert.deepEqual(corsHeadersOf(answer), {});
    assert.equal(answer.headers.get('vary'), null);

    const refused = await preflight(server, '/public/v1/query/list_activities', APP);
    assert.equal(refused.status, 403);
    assert.deepEqual(corsHeadersOf(refused), {});
    const json = await refused.json();
    assert.equal(json.code, 7);
    assert.match(json.message, /not enabled on this server.*SIGNET_CORS_ORIGINS/);
  });
});

describe('CORS, SIGNET_CORS_ORIGINS set', () => {
  let server: TestServer;
  let org: Credentials;

  before(async () => {
    server = await startTestServer(tdb, {
      SIGNET_OUTBOX_WORKER: 'false',
      SIGNET_CORS_ORIGINS: `${APP}, http://localhost:5173/`,
      SIGNET_AUTH_FAILURE_LIMIT: '2/600',
    });
    org = await server.createOrganization('Browser app');
  });
  after(() => server?.close());

  test('a preflight from an allowed origin is 204 with the methods, the stamp headers and a max age', async () => {
    for (const path of ['/public/v1/query/list_activities', '/public/v1/submit/create_smart_contract_interface', '/public/v1/submit/no_such_activity']) {
      const answer = await preflight(server, path, APP);
      assert.equal(answer.status, 204, path);
      assert.equal(await answer.text(), '');
      assert.equal(answer.headers.get('access-control-allow-origin'), APP);
      assert.equal(answer.headers.get('access-control-allow-methods'), 'POST, OPTIONS');
      const allowed = answer.headers.get('access-control-allow-headers')!.split(',').map((h) => h.trim().toLowerCase());
      for (const name of ['content-type', 'x-stamp', 'x-stamp-webauthn', 'x-stamp-attested', 'x-client-version', 'x-session', 'x-request-id']) {
        assert.ok(allowed.includes(name), `${name} in ${allowed.join(', ')}`);
      }
      assert.equal(allowed.length, CORS_ALLOWED_HEADERS.length);
      assert.equal(answer.headers.get('access-control-max-age'), '7200');
      assert.equal(answer.headers.get('vary'), 'Origin');
      assert.match(answer.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    }
    // The trailing slash of a configured origin is not part of it.
    const local = await preflight(server, '/public/v1/query/list_activities', 'http://localhost:5173');
    assert.equal(local.headers.get('access-control-allow-origin'), 'http://localhost:5173');

    const wellKnown = await preflight(server, '/.well-known/jwks.json', APP, 'GET');
    assert.equal(wellKnown.status, 204);
    assert.equal(wellKnown.headers.get('access-control-allow-methods'), 'GET, OPTIONS');
  });

  test('answers to an allowed origin name it, a 200 and a 401 alike, and expose the request id', async () => {
    const ok = await listActivities(server, org, APP);
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('access-control-allow-origin'), APP);
    assert.equal(ok.headers.get('access-control-expose-headers'), 'X-Request-Id, Retry-After');
    assert.equal(ok.headers.get('vary'), 'Origin');
    assert.equal(ok.headers.get('access-control-allow-methods'), null); // preflight-only headers stay there

    const jwks = await fetch(`${server.baseUrl}/.well-known/jwks.json`, { headers: { origin: APP } });
    assert.equal(jwks.status, 200);
    assert.equal(jwks.headers.get('access-control-allow-origin'), APP);
    assert.equal(jwks.headers.get('vary'), 'Origin'); // it is cacheable: caches must keep origins apart

    const unknownRoute = await fetch(`${server.baseUrl}/public/v1/query/no_such_query`, { method: 'POST', headers: { origin: APP } });
    assert.equal(unknownRoute.status, 404);
    assert.equal(unknownRoute.headers.get('access-control-allow-origin'), APP);
  });

  test('another origin gets no CORS header: its preflight is a 403 naming the setting, its answers say only Vary', async () => {
    const refused = await preflight(server, '/public/v1/query/list_activities', OTHER);
    assert.equal(refused.status, 403);
    assert.deepEqual(corsHeadersOf(refused), {});
    const json = await refused.json();
    assert.deepEqual(Object.keys(json).sort(), ['code', 'details', 'message']);
    assert.match(json.message, /from https:\/\/evil\.example\.net are not allowed.*SIGNET_CORS_ORIGINS/);

    const answer = await listActivities(server, org, OTHER);
    assert.equal(answer.status, 200); // a non-browser client is not refused: CORS is the browser's rule
    assert.deepEqual(corsHeadersOf(answer), {});
    assert.equal(answer.headers.get('vary'), 'Origin');

    // Origins match exactly: scheme, host and port.
    for (const near of ['http://app.example.com', 'https://app.example.com:8443', 'https://sub.app.example.com', 'null']) {
      assert.equal((await preflight(server, '/public/v1/query/list_activities', near)).status, 403, near);
    }
  });

  test('/admin, /metrics, /health, /openapi.json and /docs never carry CORS headers, and their preflights are not answered', async () => {
    const admin = await fetch(`${server.baseUrl}/admin/v1/organizations/${org.organizationId}/sender-domains`, { headers: { origin: APP, authorization: `Bearer ${ADMIN_TOKEN}` } });
    assert.equal(admin.status, 200);
    assert.deepEqual(corsHeadersOf(admin), {});
    assert.equal(admin.headers.get('vary'), null);
    const metrics = await fetch(`${server.baseUrl}/metrics`, { headers: { origin: APP } });
    assert.equal(metrics.status, 200);
    assert.deepEqual(corsHeadersOf(metrics), {});
    const docs = await fetch(`${server.baseUrl}/docs`, { headers: { origin: APP } });
    assert.equal(docs.status, 200);
    assert.deepEqual(corsHeadersOf(docs), {});
    for (const path of [`/admin/v1/organizations/${org.organizationId}/sender-domains`, '/metrics', '/health', '/openapi.json', '/docs', '/docs/assets/swagger-ui.css']) {
      const answer = await preflight(server, path, APP, 'GET');
      assert.ok(answer.status >= 400, `${path}: ${answer.status}`);
      assert.deepEqual(corsHeadersOf(answer), {}, path);
    }
  });

  test('preflights need no stamp and never count as failed authentications; a 429 still names the origin', async () => {
    const other = await server.createOrganization('Throttled');
    // Many preflights first: none of them uses up the two failures the limit allows.
    for (let i = 0; i < 5; i++) assert.equal((await preflight(server, '/public/v1/query/list_activities', APP)).status, 204);
    assert.equal((await listActivities(server, other, APP, true)).status, 401);
    const second = await listActivities(server, other, APP, true);
    assert.equal(second.status, 401);
    assert.equal(second.headers.get('access-control-allow-origin'), APP);

    // The address is now throttled: a preflight is still answered, and the 429 is readable by the page.
    assert.equal((await preflight(server, '/public/v1/query/list_activities', APP)).status, 204);
    const throttled = await listActivities(server, other, APP, true);
    assert.equal(throttled.status, 429);
    assert.equal(throttled.headers.get('access-control-allow-origin'), APP);
    assert.match(throttled.headers.get('retry-after') ?? '', /^\d+$/);
    assert.match(throttled.headers.get('access-control-expose-headers') ?? '', /Retry-After/);
  });
});

describe('CORS, SIGNET_CORS_ORIGINS=*', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer(tdb, { SIGNET_OUTBOX_WORKER: 'false', SIGNET_CORS_ORIGINS: '*' });
  });
  after(() => server?.close());

  test('any origin is allowed, answered with *', async () => {
    const answer = await preflight(server, '/public/v1/submit/create_smart_contract_interface', OTHER);
    assert.equal(answer.status, 204);
    assert.equal(answer.headers.get('access-control-allow-origin'), '*');
    const admin = await preflight(server, '/admin/v1/organizations', OTHER, 'GET');
    assert.deepEqual(corsHeadersOf(admin), {});
  });
});
