// update_root_quorum through @turnkey/http's own updateRootQuorum: the quorum is replaced (members
// that stay kept, the others removed, new ones added) and get_organization_configs and get_organization
// show it; a threshold out of range, a user twice, too many users, or a user that is not one of the
// organization's (unknown, removed, another organization's) is a 400 naming the field, nothing
// written; replacements in two processes never mix their members.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { TurnkeyClient } from '@turnkey/http';
import { updateRootQuorum } from '../src/activities/handlers/policies/updateRootQuorum.ts';
import { startServer } from '../src/server.ts';
import { testDatabases } from './support/databases.ts';
import { postStamped } from './support/http.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';

function setQuorum(client: TurnkeyClient, organizationId: string, threshold: number, userIds: string[]) {
  return client.updateRootQuorum({
    type: 'ACTIVITY_TYPE_UPDATE_ROOT_QUORUM',
    timestampMs: String(Date.now()),
    organizationId,
    parameters: { threshold, userIds },
  });
}

for (const tdb of testDatabases) {
  describe(`update_root_quorum (${tdb.name})`, () => {
    let server: TestServer;

    before(async () => {
      server = await startTestServer(tdb, { SIGNET_OUTBOX_WORKER: 'false' });
    });
    after(() => server.close());

    /** An organization with its root user and two more users, each with an API key. */
    async function team(name: string) {
      const org = await server.createOrganization(name);
      const people: Array<Credentials & { client: TurnkeyClient }> = [];
      for (const userName of ['alice', 'bob']) {
        const { userId } = await server.admin('POST', `/organizations/${org.organizationId}/users`, { userName });
        const key = await server.admin('POST', `/organizations/${org.organizationId}/api-keys`, { userId });
        const credentials = { ...org, userId, apiKeyId: key.apiKeyId, apiPublicKey: key.apiPublicKey, apiPrivateKey: key.apiPrivateKey };
        people.push({ ...credentials, client: server.client(credentials) });
      }
      return { org, root: server.client(org), alice: people[0]!, bob: people[1]! };
    }

    async function quorumOf(client: TurnkeyClient, organizationId: string) {
      const { configs } = (await client.getOrganizationConfigs({ organizationId })) as any;
      const { organizationData } = (await client.getOrganization({ organizationId })) as any;
      assert.deepEqual(organizationData.rootQuorum, configs.quorum, 'get_organization and get_organization_configs agree');
      return configs.quorum as { threshold: number; userIds: string[] };
    }

    test('the quorum is replaced and both queries show it, members oldest first', async () => {
      const startedAt = Date.now();
      const { org, root, alice, bob } = await team('Replaced');
      assert.deepEqual(await quorumOf(root, org.organizationId), { threshold: 1, userIds: [org.userId] });

      const { activity } = (await setQuorum(root, org.organizationId, 1, [alice.userId.toUpperCase(), org.userId])) as any;
      assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.equal(activity.type, 'ACTIVITY_TYPE_UPDATE_ROOT_QUORUM');
      assert.deepEqual(activity.intent, { updateRootQuorumIntent: { threshold: 1, userIds: [alice.userId.toUpperCase(), org.userId] } });
      assert.deepEqual(activity.result.updateRootQuorumResult, {});
      assert.deepEqual(activity.result.activity.result, { updateRootQuorumResult: {} }, 'the nested activity too');
      assert.deepEqual(await quorumOf(alice.client, org.organizationId), { threshold: 1, userIds: [org.userId, alice.userId] });

      // The root user leaves; alice, now alone in the quorum, brings it back with bob, threshold 2.
      await setQuorum(root, org.organizationId, 1, [alice.userId]);
      assert.deepEqual(await quorumOf(root, org.organizationId), { threshold: 1, userIds: [alice.userId] });
      await setQuorum(alice.client, org.organizationId, 2, [bob.userId, org.userId]);
      assert.deepEqual(await quorumOf(bob.client, org.organizationId), { threshold: 2, userIds: [org.userId, bob.userId] });
      const [row] = await server.db.query<{ threshold: number; updated_at: Date }>('SELECT threshold, updated_at FROM root_quorums WHERE organization_id = $1', [org.organizationId]);
      assert.equal(row!.threshold, 2);
      const updatedAt = row!.updated_at.getTime();
      assert.ok(updatedAt >= startedAt - 1000 && updatedAt <= Date.now() + 1000, `updated_at is the activity's time: ${row!.updated_at.toISOString()}`);

      // Another organization's quorum is untouched.
      const other = await server.createOrganization('Untouched');
      assert.deepEqual(await quorumOf(server.client(other), other.organizationId), { threshold: 1, userIds: [other.userId] });
    });

    test('bad parameters are 400s naming the field; a user not of the organization is named; nothing is written', async () => {
      const { org, root, alice, bob } = await team('Refused');
      const removed = await server.admin('POST', `/organizations/${org.organizationId}/users`, { userName: 'gone' });
      await server.admin('DELETE', `/organizations/${org.organizationId}/users/${removed.userId}`);
      const stranger = await server.createOrganization('Stranger');
      const unknown = randomUUID();
      const many = Array.from({ length: 101 }, () => randomUUID());
      const cases: Array<[number | string, unknown, string, RegExp]> = [
        [3, [org.userId, alice.userId], 'parameters.threshold', /must be at most the number of userIds/],
        [0, [org.userId], 'parameters.threshold', /must be at least 1/],
        [1.5, [org.userId], 'parameters.threshold', /must be a whole number/],
        ['1', [org.userId], 'parameters.threshold', /must be a whole number/],
        [1, [], 'parameters.userIds', /must list at least one user/],
        [1, [alice.userId, alice.userId.toUpperCase()], 'parameters.userIds', /must not list a user twice/],
        [1, many, 'parameters.userIds', /may hold at most 100 user ids/],
        [1, [org.userId, 'alice'], 'parameters.userIds[1]', /must be a user id \(a UUID\)/],
        [1, [org.userId, unknown], 'parameters.userIds[1]', new RegExp(`no user ${unknown} in organization ${org.organizationId}`)],
        [1, [removed.userId], 'parameters.userIds[0]', new RegExp(`no user ${removed.userId} .*\\(or it was removed\\)`)],
        [2, [bob.userId, org.userId, stranger.userId], 'parameters.userIds[2]', new RegExp(`no user ${stranger.userId}`)],
      ];
      for (const [threshold, userIds, field, message] of cases) {
        const body = JSON.stringify({ type: 'ACTIVITY_TYPE_UPDATE_ROOT_QUORUM', timestampMs: String(Date.now()), organizationId: org.organizationId, parameters: { threshold, userIds } });
        const answer = await postStamped(server.baseUrl, '/public/v1/submit/update_root_quorum', body, org);
        const label = `${threshold} ${JSON.stringify(userIds).slice(0, 80)}`;
        assert.equal(answer.status, 400, `${label}: ${answer.text}`);
        assert.equal(answer.json.code, 3);
        assert.match(answer.json.message, message, label);
        assert.ok(JSON.stringify(answer.json.details).includes(`"field":"${field}"`), `${label}: ${JSON.stringify(answer.json.details)}`);
      }
      assert.deepEqual(await quorumOf(root, org.organizationId), { threshold: 1, userIds: [org.userId] });
      const stored = await server.db.query('SELECT 1 FROM activities WHERE organization_id = $1 AND type = $2', [org.organizationId, 'ACTIVITY_TYPE_UPDATE_ROOT_QUORUM']);
      assert.equal(stored.length, 0, 'no refused activity is stored');
    });

    // Two processes on one store: a transaction holds the root user's row, which a replacement
    // submitted to the first process waits on inside its statement; another replacement reaches the
    // second process meanwhile. Were they not run one after the other, the second would read the
    // members before the first wrote them, and the quorum would mix both.
    test('replacements in two processes run one after the other: the quorum is the later one, never a mix', { skip: tdb.name !== 'postgres' && 'needs two connections' }, async () => {
      const { org, root, alice, bob } = await team('Raced');
      const second = await startServer({ ...server.config, outboxWorker: false }, { db: server.db });
      try {
        const rootThere = new TurnkeyClient({ baseUrl: second.url }, new ApiKeyStamper({ apiPublicKey: org.apiPublicKey, apiPrivateKey: org.apiPrivateKey }));
        let release!: () => void;
        let holding!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        const started = new Promise<void>((resolve) => (holding = resolve));
        const holder = server.db.transaction(async (tx) => {
          await tx.query('SELECT id FROM users WHERE id = $1 FOR UPDATE', [org.userId]);
          holding();
          await held;
        });
        await started;
        const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
        const first = setQuorum(root, org.organizationId, 1, [org.userId, alice.userId]);
        await sleep(300);
        const later = setQuorum(rootThere, org.organizationId, 1, [org.userId, bob.userId]);
        await sleep(300);
        release();
        await holder;
        const answers = await Promise.all([first, later]);
        assert.deepEqual(answers.map((a: any) => a.activity.status), ['ACTIVITY_STATUS_COMPLETED', 'ACTIVITY_STATUS_COMPLETED']);
        assert.deepEqual(await quorumOf(root, org.organizationId), { threshold: 1, userIds: [org.userId, bob.userId] });
      } finally {
        await second.close();
      }
    });

    test('the handler is decided by the root quorum alone', () => {
      assert.equal(updateRootQuorum.rootQuorumOnly, true);
    });
  });
}
