// The operator's way back for an organization whose root users lost their keys: PUT
// /admin/v1/organizations/{org}/root-quorum replaces the root quorum without its approval, under
// update_root_quorum's rules, and the running server decides the organization's next write with the
// new quorum at once (its authority version was raised); GET shows the quorum; the old root can then
// be removed. A bad body is a 400 naming the field, nothing written; an unknown organization a 404;
// no admin token a 401. `signet org quorum` does the same from the command line.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { TurnkeyClient } from '@turnkey/http';
import { testDatabases } from './support/databases.ts';
import { signet } from './support/processes.ts';
import { ADMIN_TOKEN, startTestServer, type Credentials, type TestServer } from './support/server.ts';

for (const tdb of testDatabases) {
  describe(`the admin API's root quorum (${tdb.name})`, () => {
    let server: TestServer;

    before(async () => {
      server = await startTestServer(tdb, { SIGNET_OUTBOX_WORKER: 'false' });
    });
    after(() => server.close());

    /** A user of the organization with an API key, and its client. */
    async function member(org: Credentials, userName: string) {
      const { userId } = await server.admin('POST', `/organizations/${org.organizationId}/users`, { userName });
      const key = await server.admin('POST', `/organizations/${org.organizationId}/api-keys`, { userId });
      const credentials: Credentials = { ...org, userId, apiKeyId: key.apiKeyId, apiPublicKey: key.apiPublicKey, apiPrivateKey: key.apiPrivateKey };
      return { ...credentials, client: server.client(credentials) };
    }

    /** A write of the organization: a new user tag; the activity, or the error it was refused with. */
    async function tag(client: TurnkeyClient, organizationId: string): Promise<{ status?: string; error?: any }> {
      try {
        const { activity } = (await client.createUserTag({
          type: 'ACTIVITY_TYPE_CREATE_USER_TAG',
          timestampMs: String(Date.now()),
          organizationId,
          parameters: { userTagName: `tag ${randomUUID().slice(0, 8)}`, userIds: [] },
        })) as any;
        return { status: activity.status };
      } catch (error) {
        return { error };
      }
    }

    /** The admin API's answer, whatever its status. */
    async function call(method: string, path: string, body?: unknown, token: string | null = ADMIN_TOKEN) {
      const response = await fetch(`${server.baseUrl}/admin/v1${path}`, {
        method,
        headers: { ...(token !== null ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
      });
      return { status: response.status, json: (await response.json()) as any };
    }

    const authorityVersion = async (organizationId: string) =>
      (await server.db.query<{ version: string }>('SELECT authority_version::text AS version FROM organizations WHERE id = $1', [organizationId]))[0]!.version;

    test("break-glass: the root's key is revoked, the operator makes another user the quorum, whose write is allowed at once; the old root can then be removed", async () => {
      const org = await server.createOrganization('Lost keys');
      const root = server.client(org);
      const heir = await member(org, 'heir');

      // The root writes; the heir, in no quorum and with no policy, is refused. The server now
      // remembers the organization's authority.
      assert.equal((await tag(root, org.organizationId)).status, 'ACTIVITY_STATUS_COMPLETED');
      const refused = await tag(heir.client, org.organizationId);
      assert.ok(refused.error, 'the heir may not write yet');
      assert.equal(refused.error.code, 7, String(refused.error.message));

      // The root's only key is lost: revoked. Nobody can write any more.
      await server.admin('DELETE', `/organizations/${org.organizationId}/api-keys/${org.apiKeyId}`);
      const revoked = await tag(root, org.organizationId);
      assert.equal(revoked.error?.code, 16, 'a revoked key is refused');
      assert.equal((await tag(heir.client, org.organizationId)).error?.code, 7);
      // And the root cannot be removed while it is the quorum.
      const kept = await call('DELETE', `/organizations/${org.organizationId}/users/${org.userId}`);
      assert.equal(kept.status, 400);
      assert.match(kept.json.message, /member of the root quorum/);

      const before = await authorityVersion(org.organizationId);
      const replaced = await call('PUT', `/organizations/${org.organizationId}/root-quorum`, { threshold: 1, userIds: [heir.userId.toUpperCase()] });
      assert.equal(replaced.status, 200, JSON.stringify(replaced.json));
      assert.deepEqual(replaced.json, { threshold: 1, userIds: [heir.userId] });
      assert.equal(BigInt(await authorityVersion(org.organizationId)), BigInt(before) + 1n, 'the authority version is raised once');

      // What the API shows, through the admin route and the ecosystem's query.
      assert.deepEqual((await call('GET', `/organizations/${org.organizationId}/root-quorum`)).json, { threshold: 1, userIds: [heir.userId] });
      const { configs } = (await heir.client.getOrganizationConfigs({ organizationId: org.organizationId })) as any;
      assert.deepEqual(configs.quorum, replaced.json);

      // The heir's next write is allowed at once by the same running server.
      assert.equal((await tag(heir.client, org.organizationId)).status, 'ACTIVITY_STATUS_COMPLETED');

      // The old root, out of the quorum, can now be removed.
      const removed = await call('DELETE', `/organizations/${org.organizationId}/users/${org.userId}`);
      assert.equal(removed.status, 200, JSON.stringify(removed.json));
      assert.equal(removed.json.userId, org.userId);
    });

    test('members that stay are kept, the threshold replaced; the answer lists them oldest first', async () => {
      const org = await server.createOrganization('Kept');
      const alice = await member(org, 'alice');
      const bob = await member(org, 'bob');
      const two = await call('PUT', `/organizations/${org.organizationId}/root-quorum`, { threshold: 2, userIds: [bob.userId, org.userId, alice.userId] });
      assert.deepEqual(two.json, { threshold: 2, userIds: [org.userId, alice.userId, bob.userId] });
      const one = await call('PUT', `/organizations/${org.organizationId}/root-quorum`, { threshold: 1, userIds: [org.userId] });
      assert.deepEqual(one.json, { threshold: 1, userIds: [org.userId] });
      const rows = await server.db.query<{ user_id: string }>('SELECT user_id FROM root_quorum_members WHERE organization_id = $1', [org.organizationId]);
      assert.deepEqual(rows.map((r) => r.user_id), [org.userId]);
      const [quorum] = await server.db.query<{ threshold: number }>('SELECT threshold FROM root_quorums WHERE organization_id = $1', [org.organizationId]);
      assert.equal(quorum!.threshold, 1);
      // Another organization's quorum is untouched.
      const other = await server.createOrganization('Untouched');
      assert.deepEqual((await call('GET', `/organizations/${other.organizationId}/root-quorum`)).json, { threshold: 1, userIds: [other.userId] });
    });

    test('a bad body is a 400 naming the field, and nothing is written', async () => {
      const org = await server.createOrganization('Refused');
      const alice = await member(org, 'alice');
      const gone = await member(org, 'gone');
      await server.admin('DELETE', `/organizations/${org.organizationId}/users/${gone.userId}`);
      const stranger = await server.createOrganization('Stranger');
      const unknown = randomUUID();
      const many = Array.from({ length: 101 }, () => randomUUID());
      const cases: Array<[unknown, string, RegExp]> = [
        [{ threshold: 3, userIds: [org.userId, alice.userId] }, 'threshold', /must be at most the number of userIds/],
        [{ threshold: 0, userIds: [org.userId] }, 'threshold', /must be at least 1/],
        [{ threshold: 1.5, userIds: [org.userId] }, 'threshold', /must be a whole number/],
        [{ threshold: '1', userIds: [org.userId] }, 'threshold', /must be a whole number/],
        [{ userIds: [org.userId] }, 'threshold', /required field is missing/],
        [{ threshold: 1 }, 'userIds', /required field is missing/],
        [{ threshold: 1, userIds: 'everyone' }, 'userIds', /must be an array of user ids/],
        [{ threshold: 1, userIds: [] }, 'userIds', /must list at least one user/],
        [{ threshold: 1, userIds: [alice.userId, alice.userId.toUpperCase()] }, 'userIds', /must not list a user twice/],
        [{ threshold: 1, userIds: many }, 'userIds', /may hold at most 100 user ids/],
        [{ threshold: 1, userIds: [org.userId, 'alice'] }, 'userIds[1]', /must be a user id \(a UUID\)/],
        [{ threshold: 1, userIds: [org.userId, unknown] }, 'userIds[1]', new RegExp(`no user ${unknown} in organization ${org.organizationId}`)],
        [{ threshold: 1, userIds: [gone.userId] }, 'userIds[0]', new RegExp(`no user ${gone.userId} .*\\(or it was removed\\)`)],
        [{ threshold: 2, userIds: [alice.userId, org.userId, stranger.userId] }, 'userIds[2]', new RegExp(`no user ${stranger.userId}`)],
        [{ threshold: 1, userIds: [org.userId], organizationId: org.organizationId }, 'organizationId', /unrecognized|not allowed|unknown/i],
      ];
      const version = await authorityVersion(org.organizationId);
      for (const [body, field, message] of cases) {
        const label = JSON.stringify(body).slice(0, 100);
        const answer = await call('PUT', `/organizations/${org.organizationId}/root-quorum`, body);
        assert.equal(answer.status, 400, `${label}: ${JSON.stringify(answer.json)}`);
        assert.equal(answer.json.code, 3);
        assert.match(answer.json.message, message, label);
        assert.ok(JSON.stringify(answer.json.details).includes(`"field":"${field}"`), `${label}: ${JSON.stringify(answer.json.details)}`);
      }
      const notJson = await call('PUT', `/organizations/${org.organizationId}/root-quorum`, '{"threshold": 1,');
      assert.equal(notJson.status, 400);
      const badPath = await call('PUT', '/organizations/not-an-id/root-quorum', { threshold: 1, userIds: [org.userId] });
      assert.equal(badPath.status, 400);
      assert.match(badPath.json.message, /organizationId/);

      assert.deepEqual((await call('GET', `/organizations/${org.organizationId}/root-quorum`)).json, { threshold: 1, userIds: [org.userId] });
      assert.equal(await authorityVersion(org.organizationId), version, 'the authority version is unchanged');
    });

    test('an unknown organization is a 404; without the admin token a 401, nothing written', async () => {
      const org = await server.createOrganization('Guarded');
      const alice = await member(org, 'alice');
      const unknown = randomUUID();
      for (const method of ['GET', 'PUT']) {
        const answer = await call(method, `/organizations/${unknown}/root-quorum`, method === 'PUT' ? { threshold: 1, userIds: [org.userId] } : undefined);
        assert.equal(answer.status, 404, `${method}: ${JSON.stringify(answer.json)}`);
        assert.match(answer.json.message, new RegExp(`no organization ${unknown}; list organizations with \`signet org list\``));
      }
      const version = await authorityVersion(org.organizationId);
      for (const token of [null, 'not-the-admin-token']) {
        for (const method of ['GET', 'PUT']) {
          const answer = await call(method, `/organizations/${org.organizationId}/root-quorum`, method === 'PUT' ? { threshold: 1, userIds: [alice.userId] } : undefined, token);
          assert.equal(answer.status, 401, `${method} with ${token ?? 'no token'}`);
          assert.equal(answer.json.code, 16);
        }
      }
      assert.deepEqual((await call('GET', `/organizations/${org.organizationId}/root-quorum`)).json, { threshold: 1, userIds: [org.userId] });
      assert.equal(await authorityVersion(org.organizationId), version);
    });

    // The replacement takes the lock update_root_quorum and policy writes take (the organization's
    // row) before anything else, so it runs wholly before or after them. Were it to take it only when
    // it raises the version, it would hold the quorum's rows while waiting for the organization's, and
    // a quorum change holding the organization's row would wait for those: a deadlock, one of them lost.
    test('a replacement runs after a quorum change that holds the organization, never into it', { skip: tdb.name !== 'postgres' && 'needs two connections' }, async () => {
      const org = await server.createOrganization('Raced');
      const alice = await member(org, 'alice');
      const version = BigInt(await authorityVersion(org.organizationId));
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let locked!: () => void;
      const isLocked = new Promise<void>((resolve) => (locked = resolve));
      // As update_root_quorum does: the organization's row first, then the quorum and the version.
      const holder = server.db.transaction(async (tx) => {
        await tx.query('SELECT id FROM organizations WHERE id = $1 FOR NO KEY UPDATE', [org.organizationId]);
        locked();
        await released;
        await tx.query('UPDATE root_quorums SET threshold = 1, updated_at = now() WHERE organization_id = $1', [org.organizationId]);
        await tx.query('UPDATE organizations SET authority_version = authority_version + 1 WHERE id = $1', [org.organizationId]);
      });
      await isLocked;
      let done = false;
      const replacing = call('PUT', `/organizations/${org.organizationId}/root-quorum`, { threshold: 1, userIds: [alice.userId] }).finally(() => (done = true));
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(done, false, "the replacement waits for the organization's row");
      release();
      await holder;
      const replaced = await replacing;
      assert.equal(replaced.status, 200, JSON.stringify(replaced.json));
      assert.deepEqual(replaced.json, { threshold: 1, userIds: [alice.userId] });
      assert.equal(BigInt(await authorityVersion(org.organizationId)), version + 2n, 'each raised the version');
      // A removal of the new member waits for nothing now, and is refused: the quorum never names a removed user.
      assert.equal((await call('DELETE', `/organizations/${org.organizationId}/users/${alice.userId}`)).status, 400);
    });

    test('`signet org quorum` replaces the quorum as the operator; an error is printed with its status', async () => {
      const org = await server.createOrganization('CLI');
      const alice = await member(org, 'alice');
      const env = { SIGNET_URL: server.baseUrl, SIGNET_ADMIN_TOKEN: ADMIN_TOKEN };
      const set = await signet(['org', 'quorum', '--org', org.organizationId, '--threshold', '2', '--user', alice.userId, '--user', org.userId, '--json'], env);
      assert.equal(set.code, 0, set.stderr);
      assert.deepEqual(JSON.parse(set.stdout), { threshold: 2, userIds: [org.userId, alice.userId] });
      const plain = await signet(['org', 'quorum', '--org', org.organizationId, '--threshold', '1', '--user', alice.userId], env);
      assert.equal(plain.stdout, `threshold: 1\nuserIds: ${alice.userId}\n`);
      const refused = await signet(['org', 'quorum', '--org', org.organizationId, '--threshold', '2', '--user', alice.userId], env);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /400: invalid root quorum: --threshold: must be at most the number of --user values/);
      assert.deepEqual((await call('GET', `/organizations/${org.organizationId}/root-quorum`)).json, { threshold: 1, userIds: [alice.userId] });
    });
  });
}
