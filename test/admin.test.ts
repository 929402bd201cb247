// The admin API: bearer token, allowed client addresses, and the organization/credential
// operations with their errors; plus health and readiness.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generateApiKeyPair } from '../src/admin/organizations.ts';
import { testDatabases } from './support/databases.ts';
import { ADMIN_TOKEN, startTestServer, type TestServer } from './support/server.ts';

async function call(server: TestServer, method: string, route: string, body?: unknown, token = ADMIN_TOKEN) {
  const response = await fetch(`${server.baseUrl}/admin/v1${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, json: (await response.json()) as any };
}

for (const tdb of testDatabases) {
  describe(`admin API (${tdb.name})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer(tdb);
    });
    after(() => server.close());

    test('health and readiness answer ok', async () => {
      assert.deepEqual(await (await fetch(`${server.baseUrl}/healthz`)).json(), { status: 'ok' });
      const ready = await fetch(`${server.baseUrl}/readyz`);
      assert.equal(ready.status, 200);
      assert.deepEqual(await ready.json(), { status: 'ok' });
    });

    test('a missing or wrong token is 401', async () => {
      const none = await fetch(`${server.baseUrl}/admin/v1/organizations`, { method: 'POST' });
      assert.equal(none.status, 401);
      assert.equal(((await none.json()) as any).code, 16);
      const wrong = await call(server, 'POST', '/organizations', { name: 'x' }, 'not-the-token');
      assert.equal(wrong.status, 401);
    });

    test('creates an organization with a generated key, or registers a given public key', async () => {
      const generated = await call(server, 'POST', '/organizations', { name: 'Gen' });
      assert.equal(generated.status, 200);
      assert.match(generated.json.apiPrivateKey, /^[0-9a-f]{64}$/);

      const pair = generateApiKeyPair();
      const uncompressed = (await import('node:crypto')).ECDH.convertKey(pair.apiPublicKey, 'prime256v1', 'hex', 'hex', 'uncompressed') as string;
      const given = await call(server, 'POST', '/organizations', { name: 'Own key', publicKey: uncompressed });
      assert.equal(given.status, 200);
      assert.equal(given.json.apiPublicKey, pair.apiPublicKey, 'stored compressed');
      assert.equal(given.json.apiPrivateKey, undefined);

      const duplicate = await call(server, 'POST', `/organizations/${given.json.organizationId}/api-keys`, {
        userId: given.json.userId,
        publicKey: pair.apiPublicKey,
      });
      assert.equal(duplicate.status, 400);
    });

    test('bad input is 400 with the field named; unknown objects are 404', async () => {
      const badKey = await call(server, 'POST', '/organizations', { name: 'Bad', publicKey: '04' + '00'.repeat(64) });
      assert.equal(badKey.status, 400);
      assert.equal(badKey.json.details[0].fieldViolations[0].field, 'publicKey');

      const unknownField = await call(server, 'POST', '/organizations', { name: 'X', colour: 'red' });
      assert.equal(unknownField.status, 400);
      assert.equal(unknownField.json.details[0].fieldViolations[0].field, 'colour');

      const org = (await call(server, 'POST', '/organizations', { name: 'Y' })).json;
      const badDomain = await call(server, 'POST', `/organizations/${org.organizationId}/sender-domains`, { domain: 'not a domain' });
      assert.equal(badDomain.status, 400);

      const unknownUser = await call(server, 'POST', `/organizations/${org.organizationId}/api-keys`, {
        userId: '00000000-0000-4000-8000-000000000000',
      });
      assert.equal(unknownUser.status, 404);
      const unknownOrg = await call(server, 'POST', '/organizations/00000000-0000-4000-8000-000000000000/users', { userName: 'z' });
      assert.equal(unknownOrg.status, 404);
      const badPath = await call(server, 'DELETE', `/organizations/${org.organizationId}/api-keys/not-a-uuid`);
      assert.equal(badPath.status, 400);
    });

    test('users, keys and sender domains of an organization', async () => {
      const org = (await call(server, 'POST', '/organizations', { name: 'Z' })).json;
      const user = await call(server, 'POST', `/organizations/${org.organizationId}/users`, { userName: 'ops' });
      assert.equal(user.status, 200);
      const key = await call(server, 'POST', `/organizations/${org.organizationId}/api-keys`, { userId: user.json.userId, name: 'ops key' });
      assert.equal(key.status, 200);
      const revoked = await call(server, 'DELETE', `/organizations/${org.organizationId}/api-keys/${key.json.apiKeyId}`);
      assert.equal(revoked.status, 200);
      assert.match(revoked.json.revokedAt, /Z$/);

      await call(server, 'POST', `/organizations/${org.organizationId}/sender-domains`, { domain: 'Mail.Example.com' });
      const domains = await call(server, 'GET', `/organizations/${org.organizationId}/sender-domains`);
      assert.deepEqual(domains.json.senderDomains.map((d: any) => d.domain), ['mail.example.com']);
    });

    test('admin lists are paged: newest first, ?limit= (1–500, default 50), ?after= and ?before= ids', async () => {
      const org = (await call(server, 'POST', '/organizations', { name: 'Paged' })).json;
      const added: string[] = [];
      for (const domain of ['a.example.com', 'b.example.com', 'c.example.com', 'd.example.com']) {
        added.push((await call(server, 'POST', `/organizations/${org.organizationId}/sender-domains`, { domain })).json.senderDomainId);
      }
      const list = async (query: string) =>
        (await call(server, 'GET', `/organizations/${org.organizationId}/sender-domains${query}`)).json.senderDomains.map((d: any) => d.domain);
      assert.deepEqual(await list(''), ['d.example.com', 'c.example.com', 'b.example.com', 'a.example.com']);
      assert.deepEqual(await list('?limit=2'), ['d.example.com', 'c.example.com']);
      assert.deepEqual(await list(`?limit=2&after=${added[2]}`), ['b.example.com', 'a.example.com']);
      assert.deepEqual(await list(`?before=${added[1]}`), ['d.example.com', 'c.example.com']);
      const tooMany = await call(server, 'GET', `/organizations/${org.organizationId}/sender-domains?limit=501`);
      assert.equal(tooMany.status, 400);
      assert.match(tooMany.json.message, /limit: must be a whole number from 1 to 500/);
      const templates = await call(server, 'GET', `/organizations/${org.organizationId}/email-templates?limit=0`);
      assert.equal(templates.status, 400);
    });
  });

  describe(`admin API from a client address that is not allowed (${tdb.name})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer(tdb, { SIGNET_ADMIN_HOST: '10.1.2.3' });
    });
    after(() => server.close());

    test('is 403 even with the right token', async () => {
      const sent = await call(server, 'POST', '/organizations', { name: 'x' });
      assert.equal(sent.status, 403);
      assert.match(sent.json.message, /SIGNET_ADMIN_HOST/);
    });
  });
}
