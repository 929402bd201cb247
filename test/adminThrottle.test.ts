// Wrong admin tokens are throttled per client address (SIGNET_AUTH_FAILURE_LIMIT, a budget apart
// from the public API's): past the budget an address gets 429 with Retry-After before its token is
// compared, the burst is logged once at warn, and the right token keeps working from other addresses.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { testDatabases } from './support/databases.ts';
import { strangerKey } from './support/keys.ts';
import { post, stampHeaders } from './support/http.ts';
import { logCapture } from './support/logCapture.ts';
import { ADMIN_TOKEN, startTestServer, type TestServer } from './support/server.ts';

const WRONG_TOKEN = 'wrong-admin-token-0123456789-abcdefghij';
const THROTTLED = 'admin token failures throttled';

for (const tdb of testDatabases) {
  describe(`throttling wrong admin tokens per client address (${tdb.name})`, () => {
    let server: TestServer;
    const log = logCapture();
    // Through a trusted proxy on loopback, so each test request can come from an address of its own.
    const admin = async (address: string, token: string | undefined) => {
      const response = await fetch(`${server.baseUrl}/admin/v1/organizations?limit=1`, {
        headers: { 'x-forwarded-for': address, ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
      });
      return { status: response.status, headers: response.headers, json: (await response.json()) as any };
    };
    const bursts = () => log.lines().filter((line) => line.msg === THROTTLED);

    before(async () => {
      server = await startTestServer(
        tdb,
        {
          SIGNET_TRUSTED_PROXIES: '127.0.0.1,::1',
          SIGNET_ADMIN_HOST: '127.0.0.1,::1,198.51.100.0/24',
          // A window long enough that no failure is given back while the tests run, however slowly.
          SIGNET_AUTH_FAILURE_LIMIT: '5/3600',
        },
        { logger: { level: 'warn', stream: log.stream } },
      );
    });
    after(() => server.close());

    test('an address past its budget gets 429 with Retry-After, and the burst is logged once at warn', async () => {
      for (let i = 0; i < 4; i++) assert.equal((await admin('198.51.100.1', WRONG_TOKEN)).status, 401);
      assert.equal((await admin('198.51.100.1', undefined)).status, 401, 'a missing token is a failure too');
      for (let i = 0; i < 30; i++) {
        const throttled = await admin('198.51.100.1', WRONG_TOKEN);
        assert.equal(throttled.status, 429);
        assert.equal(throttled.json.code, 8);
        assert.equal(throttled.json.details[0].turnkeyErrorCode, 'TOO_MANY_AUTH_FAILURES');
        assert.match(throttled.json.message, /too many failed authentications from this address \(more than 5 in 3600 seconds\); retry in \d+ seconds with the admin token/);
        const retryAfter = Number(throttled.headers.get('retry-after'));
        assert.ok(retryAfter >= 1 && retryAfter <= 720, `Retry-After ${retryAfter}`);
      }
      const lines = bursts();
      assert.equal(lines.length, 1, JSON.stringify(lines));
      assert.equal(lines[0]!.level, 40);
      assert.equal(lines[0]!.clientAddress, '198.51.100.1');
      assert.equal(lines[0]!.limit, '5/3600');
      assert.ok(!log.text().includes(WRONG_TOKEN) && !log.text().includes(ADMIN_TOKEN), 'no log line holds a token');
    });

    test('the right token from another address keeps working, and that address has its own budget', async () => {
      const answer = await admin('198.51.100.2', ADMIN_TOKEN);
      assert.equal(answer.status, 200, JSON.stringify(answer.json));
      assert.ok(Array.isArray(answer.json.organizations));
      assert.equal((await admin('198.51.100.2', WRONG_TOKEN)).status, 401);
      assert.equal((await admin('198.51.100.2', ADMIN_TOKEN)).status, 200);
    });

    test('from the throttled address the right token waits too: a guess gets the same 429 as any other', async () => {
      const answer = await admin('198.51.100.1', ADMIN_TOKEN);
      assert.equal(answer.status, 429);
      assert.equal(answer.json.details[0].turnkeyErrorCode, 'TOO_MANY_AUTH_FAILURES');
    });

    test('the public API and the admin API spend budgets of their own', async () => {
      const body = JSON.stringify({ organizationId: '00000000-0000-4000-8000-000000000000' });
      const publicFrom = async (address: string) =>
        post(server.baseUrl, '/public/v1/query/whoami', body, { ...(await stampHeaders(strangerKey(), body)), 'x-forwarded-for': address });
      for (let i = 0; i < 6; i++) {
        const refused = await publicFrom('198.51.100.3');
        assert.ok([401, 429].includes(refused.status), `${refused.status} ${refused.text}`);
      }
      assert.equal((await admin('198.51.100.3', ADMIN_TOKEN)).status, 200, 'failed stamps do not lock the operator out');
      assert.equal((await publicFrom('198.51.100.1')).status, 401, 'wrong admin tokens do not throttle the public API');
    });

    test('once the budget has refilled the address is answered again, and a new burst is logged again', async () => {
      server.clock.advance(3600_000);
      assert.equal((await admin('198.51.100.1', ADMIN_TOKEN)).status, 200);
      for (let i = 0; i < 5; i++) assert.equal((await admin('198.51.100.1', WRONG_TOKEN)).status, 401);
      assert.equal((await admin('198.51.100.1', WRONG_TOKEN)).status, 429);
      assert.equal(bursts().length, 2);
    });
  });
}
