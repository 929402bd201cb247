// A revocation takes effect at once in every process: two `signet serve` processes share one
// PostgreSQL; the second has the key in its credential cache (it served the key a moment before)
// and still refuses it right after the first revoked it. PostgreSQL only (the embedded store is one
// process's).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { serverStore, testDatabases, type ServerStore } from './support/databases.ts';
import { postStamped } from './support/http.ts';
import { freePort, serve, type Served } from './support/processes.ts';

const ADMIN_TOKEN = 'revocation-test-admin-token-0123456789abc';
const postgres = testDatabases.find((d) => d.name === 'postgres');

describe('revocation across processes (postgres)', { skip: postgres ? false : 'SIGNET_TEST_DATABASE_URL is not set; two processes need PostgreSQL' }, () => {
  let store: ServerStore;
  const servers: Array<{ served: Served; baseUrl: string }> = [];

  before(async () => {
    store = await serverStore(postgres!, 'signet_revocation');
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      const baseUrl = `http://127.0.0.1:${port}`;
      const env = { ...store.env, SIGNET_PORT: String(port), SIGNET_ADMIN_TOKEN: ADMIN_TOKEN, SIGNET_OTP_SECRET: 'f3b1c9e07a5d42688e1b0c7d9a3f5e21b4c6d8e0f2a4b6c8d0e2f4a6b8c0d2e4', SIGNET_LOG_LEVEL: 'warn' };
      servers.push({ served: await serve(env, baseUrl), baseUrl });
    }
  });
  after(async () => {
    for (const { served } of servers) await served.stop();
    await store.dispose();
  });

  test('a key revoked through one process is refused by the other at once, for activities and queries', async () => {
    const [first, second] = servers as [(typeof servers)[0], (typeof servers)[0]];
    const admin = (method: string, path: string, body?: unknown) =>
      fetch(`${first.baseUrl}/admin/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      }).then((r) => r.json() as Promise<any>);
    const org = await admin('POST', '/organizations', { name: 'Revoked' });
    const submit = (label: string) =>
      postStamped(
        second.baseUrl,
        '/public/v1/submit/create_smart_contract_interface',
        JSON.stringify({
          type: 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE',
          timestampMs: String(Date.now()),
          organizationId: org.organizationId,
          parameters: { smartContractAddress: '0xdAC17F958D2ee523a2206206994597C13D831ec7', smartContractInterface: '[]', type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM', label },
        }),
        org,
      );
    const query = () => postStamped(second.baseUrl, '/public/v1/query/list_activities', JSON.stringify({ organizationId: org.organizationId }), org);

    // The second process serves the key: it is now in its memory.
    assert.equal((await submit('before')).status, 200);
    assert.equal((await query()).status, 200);

    const revoked = await admin('DELETE', `/organizations/${org.organizationId}/api-keys/${org.apiKeyId}`);
    assert.match(revoked.revokedAt, /Z$/);

    const refused = await submit('after');
    assert.equal(refused.status, 401, refused.text);
    assert.match(refused.json.message, /^API key revoked: the API key .* was revoked at /);
    const refusedQuery = await query();
    assert.equal(refusedQuery.status, 401, refusedQuery.text);
    assert.match(refusedQuery.json.message, /^API key revoked/);
  });
});
