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

    test('a missing or wrong token is 401, saying where the token comes from', async () => {
      const none = await fetch(`${server.baseUrl}/admin/v1/organizations`, { method: 'POST' });
      assert.equal(none.status, 401);
      assert.equal(((await none.json()) as any).code, 16);
      const wrong = await call(server, 'POST', '/organizations', { name: 'x' }, 'not-the-token');
      assert.equal(wrong.status, 401);
      assert.match(wrong.json.message, /SIGNET_ADMIN_TOKEN/);
      assert.match(wrong.json.message, /SIGNET_DATA_DIR\/admin-token/);
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

    test('organizations are listed newest first, in pages', async () => {
      const created: string[] = [];
      for (const name of ['Listed 1', 'Listed 2', 'Listed 3']) created.push((await call(server, 'POST', '/organizations', { name })).json.organizationId);
      const newest = created.slice().reverse();
      const first = await call(server, 'GET', '/organizations?limit=2');
      assert.equal(first.status, 200);
      assert.deepEqual(first.json.organizations.map((o: any) => o.organizationId), newest.slice(0, 2));
      assert.deepEqual(Object.keys(first.json.organizations[0]).sort(), ['createdAt', 'deletedAt', 'name', 'organizationId', 'parentId']);
      assert.equal(first.json.organizations[0].parentId, null);
      assert.equal(first.json.organizations[0].name, 'Listed 3');
      assert.match(first.json.organizations[0].createdAt, /^\d{4}-\d\d-\d\dT.*Z$/);
      const next = await call(server, 'GET', `/organizations?limit=1&after=${newest[1]}`);
      assert.deepEqual(next.json.organizations.map((o: any) => o.organizationId), [newest[2]]);
      const previous = await call(server, 'GET', `/organizations?before=${newest[2]}`);
      assert.deepEqual(previous.json.organizations.map((o: any) => o.organizationId), newest.slice(0, 2));
      const all = await call(server, 'GET', '/organizations');
      assert.ok(all.json.organizations.length >= 3 && all.json.organizations.length <= 50);

      const unknown = await call(server, 'GET', '/organizations?after=00000000-0000-4000-8000-000000000000');
      assert.equal(unknown.status, 400);
      assert.match(unknown.json.message, /query\.after: no item 00000000-0000-4000-8000-000000000000 among the organizations/);
      assert.equal((await call(server, 'GET', '/organizations?limit=501')).status, 400);
    });

    test('API keys are listed newest first with their kind, expiry and revocation; ?userId= keeps one user\'s', async () => {
      const org = (await call(server, 'POST', '/organizations', { name: 'Keys' })).json;
      const base = `/organizations/${org.organizationId}`;
      const user = (await call(server, 'POST', `${base}/users`, { userName: 'ops' })).json;
      const expiring = (await call(server, 'POST', `${base}/api-keys`, { userId: user.userId, name: 'ci', expiresInSeconds: 3600 })).json;
      const revoked = (await call(server, 'POST', `${base}/api-keys`, { userId: user.userId, name: 'old' })).json;
      await call(server, 'DELETE', `${base}/api-keys/${revoked.apiKeyId}`);

      const listed = await call(server, 'GET', `${base}/api-keys`);
      assert.equal(listed.status, 200);
      assert.deepEqual(listed.json.apiKeys.map((k: any) => k.apiKeyId), [revoked.apiKeyId, expiring.apiKeyId, org.apiKeyId]);
      const [old, ci, root] = listed.json.apiKeys;
      assert.deepEqual(Object.keys(ci).sort(), ['apiKeyId', 'createdAt', 'expiresAt', 'kind', 'name', 'publicKey', 'revokedAt', 'userId']);
      assert.deepEqual(
        { userId: ci.userId, name: ci.name, publicKey: ci.publicKey, kind: ci.kind, expiresAt: ci.expiresAt, revokedAt: ci.revokedAt },
        { userId: user.userId, name: 'ci', publicKey: expiring.apiPublicKey, kind: 'api_key', expiresAt: expiring.expiresAt, revokedAt: null },
      );
      assert.match(old.revokedAt, /Z$/);
      assert.equal(old.expiresAt, null);
      assert.deepEqual({ userId: root.userId, kind: root.kind, revokedAt: root.revokedAt }, { userId: org.userId, kind: 'api_key', revokedAt: null });

      const ofUser = await call(server, 'GET', `${base}/api-keys?userId=${user.userId}&limit=1`);
      assert.deepEqual(ofUser.json.apiKeys.map((k: any) => k.apiKeyId), [revoked.apiKeyId]);
      const rest = await call(server, 'GET', `${base}/api-keys?userId=${user.userId}&after=${revoked.apiKeyId}`);
      assert.deepEqual(rest.json.apiKeys.map((k: any) => k.apiKeyId), [expiring.apiKeyId]);

      const nobody = await call(server, 'GET', `${base}/api-keys?userId=00000000-0000-4000-8000-000000000000`);
      assert.equal(nobody.status, 404);
      assert.ok(nobody.json.message.includes(`\`signet user list --org ${org.organizationId}\``), nobody.json.message);
      const noOrg = await call(server, 'GET', '/organizations/00000000-0000-4000-8000-000000000000/api-keys');
      assert.equal(noOrg.status, 404);
      assert.match(noOrg.json.message, /no organization .*; list organizations with `signet org list`/);
      assert.equal((await call(server, 'GET', `${base}/api-keys?userId=nope`)).status, 400);
    });

    test('a sender domain is removed in any letter case; sending from it is refused again; a second removal is 404', async () => {
      const org = (await call(server, 'POST', '/organizations', { name: 'Domains' })).json;
      const base = `/organizations/${org.organizationId}/sender-domains`;
      const added = (await call(server, 'POST', base, { domain: 'mail.acme.example' })).json;
      await call(server, 'POST', base, { domain: 'keep.acme.example' });
      const submit = (from: string) =>
        server.client(org).initOtpAuth({
          type: 'ACTIVITY_TYPE_INIT_OTP_AUTH_V3',
          timestampMs: String(Date.now()),
          organizationId: org.organizationId,
          parameters: { otpType: 'OTP_TYPE_EMAIL', contact: 'alice@example.com', appName: 'Acme', sendFromEmailAddress: from },
        } as any);
      await submit('otp@mail.acme.example');

      const removed = await call(server, 'DELETE', `${base}/MAIL.Acme.example`);
      assert.equal(removed.status, 200);
      assert.deepEqual(removed.json, { senderDomainId: added.senderDomainId, domain: 'mail.acme.example' });
      assert.deepEqual((await call(server, 'GET', base)).json.senderDomains.map((d: any) => d.domain), ['keep.acme.example']);
      await assert.rejects(
        submit('otp@mail.acme.example'),
        (error: any) => error.message.includes(`signet sender-domain add --org ${org.organizationId} --domain mail.acme.example`),
      );

      const again = await call(server, 'DELETE', `${base}/mail.acme.example`);
      assert.equal(again.status, 404);
      assert.ok(again.json.message.includes(`\`signet sender-domain list --org ${org.organizationId}\``), again.json.message);
      const noOrg = await call(server, 'DELETE', '/organizations/00000000-0000-4000-8000-000000000000/sender-domains/mail.acme.example');
      assert.equal(noOrg.status, 404);

      // A domain may be 253 characters: one that long is removed by its name in the path too.
      const long = `${Array.from({ length: 3 }, () => 'a'.repeat(63)).join('.')}.${'b'.repeat(53)}.example`;
      assert.equal(long.length, 253);
      assert.equal((await call(server, 'POST', base, { domain: long })).status, 200);
      const removedLong = await call(server, 'DELETE', `${base}/${long}`);
      assert.equal(removedLong.status, 200, JSON.stringify(removedLong.json));
      assert.equal(removedLong.json.domain, long);
      assert.match(noOrg.json.message, /`signet org list`/);
    });

    test('a NUL, an unpaired surrogate or a percent-encoding that is not UTF-8 in a path or query parameter is a 400 naming it, not a 500 from the database', async () => {
      const org = (await call(server, 'POST', '/organizations', { name: 'NUL' })).json;
      const base = `/organizations/${org.organizationId}/sender-domains`;
      await call(server, 'POST', base, { domain: 'x.example' });
      const refused = async (method: string, route: string, field: string, description: RegExp) => {
        const response = await fetch(`${server.baseUrl}/admin/v1${route}`, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
        const json = (await response.json()) as any;
        assert.equal(response.status, 400, `${route}: ${JSON.stringify(json)}`);
        assert.deepEqual(Object.keys(json).sort(), ['code', 'details', 'message']);
        assert.equal(json.code, 3);
        assert.equal(json.details[0].fieldViolations[0].field, field);
        assert.match(json.details[0].fieldViolations[0].description, description);
        assert.match(response.headers.get('x-request-id') ?? '', /.+/);
      };
      await refused('DELETE', `${base}/x%00y`, 'domain', /NUL/);
      await refused('DELETE', `/organizations/${org.organizationId}%00/sender-domains/x.example`, 'organizationId', /NUL/);
      // %ED%A0%80 is an unpaired surrogate written as UTF-8; %FF is no UTF-8 at all.
      await refused('DELETE', `${base}/x%ED%A0%80y`, '(path)', /not valid percent-encoded UTF-8/);
      await refused('DELETE', `${base}/x%FFy`, '(path)', /not valid percent-encoded UTF-8/);
      await refused('GET', `${base}?after=%00`, 'after', /NUL/);
      await refused('GET', `${base}?after=a%ED%A0%80b`, 'after', /not valid percent-encoded UTF-8/);
      await refused('GET', `${base}?a%00=1`, '(query)', /a parameter name contains a NUL/);
      // Nothing was removed, and the same request without the NUL works.
      assert.deepEqual((await call(server, 'GET', base)).json.senderDomains.map((d: any) => d.domain), ['x.example']);
      assert.equal((await call(server, 'DELETE', `${base}/x.example`)).status, 200);
    });

    test('unknown users, API keys and templates are 404s naming the command that lists them', async () => {
      const org = (await call(server, 'POST', '/organizations', { name: 'Hints' })).json;
      const base = `/organizations/${org.organizationId}`;
      const nobody = '00000000-0000-4000-8000-000000000000';
      for (const [method, route, command] of [
        ['GET', `${base}/users/${nobody}`, `signet user list --org ${org.organizationId}`],
        ['DELETE', `${base}/users/${nobody}`, `signet user list --org ${org.organizationId}`],
        ['DELETE', `${base}/api-keys/${nobody}`, `signet apikey list --org ${org.organizationId}`],
        ['DELETE', `${base}/email-templates/${nobody}`, `signet template list --org ${org.organizationId}`],
        ['GET', `/organizations/${nobody}/users`, 'signet org list'],
      ] as const) {
        const answer = await call(server, method, route);
        assert.equal(answer.status, 404, route);
        assert.ok(answer.json.message.includes(`\`${command}\``), `${route}: ${answer.json.message}`);
      }
      const noUser = await call(server, 'POST', `${base}/api-keys`, { userId: nobody });
      assert.ok(noUser.json.message.includes(`\`signet user list --org ${org.organizationId}\``), noUser.json.message);
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
