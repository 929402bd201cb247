// Every organization has a root quorum, read through @turnkey/http's own getOrganizationConfigs and
// getOrganization: an organization made by the admin API (signet org create) has its creator alone,
// threshold 1; get_organization lists its users not removed, oldest first, 100 at most; another
// organization's id is refused before any read. The one statement that writes a quorum writes
// nothing unless its threshold is at most its members, all users of the organization not removed.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { TurnkeyClient } from '@turnkey/http';
import { insertRootQuorum } from '../src/store/rootQuorums.ts';
import { testDatabases } from './support/databases.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';

for (const tdb of testDatabases) {
  describe(`root quorum (${tdb.name})`, () => {
    let server: TestServer;
    let org: Credentials;
    let other: Credentials;
    let client: TurnkeyClient;

    before(async () => {
      server = await startTestServer(tdb, { SIGNET_OUTBOX_WORKER: 'false' });
      org = await server.createOrganization('Quorum');
      other = await server.createOrganization('Other');
      client = server.client(org);
    });
    after(() => server.close());

    test('a new organization (admin API) has its creator as its root quorum, threshold 1', async () => {
      const configs = await client.getOrganizationConfigs({ organizationId: org.organizationId });
      assert.deepEqual(configs, { configs: { features: [], quorum: { threshold: 1, userIds: [org.userId] } } });

      const { organizationData } = (await client.getOrganization({ organizationId: org.organizationId })) as any;
      assert.deepEqual(Object.keys(organizationData), ['organizationId', 'name', 'users', 'policies', 'rootQuorum', 'tags']);
      assert.equal(organizationData.organizationId, org.organizationId);
      assert.equal(organizationData.name, 'Quorum');
      assert.deepEqual(organizationData.rootQuorum, { threshold: 1, userIds: [org.userId] });
      assert.deepEqual(organizationData.policies, []);
      assert.deepEqual(organizationData.tags, []);
      const [root] = organizationData.users;
      assert.equal(organizationData.users.length, 1);
      const user = await server.admin('GET', `/organizations/${org.organizationId}/users/${org.userId}`);
      assert.deepEqual(root, {
        userId: org.userId,
        userName: 'root',
        authenticators: [],
        apiKeys: [],
        userTags: [],
        oauthProviders: [],
        mfaPolicies: [],
        createdAt: user.createdAt,
        updatedAt: user.updatedAt,
      });
    });

    test("another organization's id is refused (403) before any read", async () => {
      for (const call of [
        () => server.client(other).getOrganizationConfigs({ organizationId: org.organizationId }),
        () => server.client(other).getOrganization({ organizationId: org.organizationId }),
      ]) {
        await assert.rejects(call(), (error: any) => {
          assert.equal(error.code, 7); // PermissionDenied: the 403 of every query
          assert.doesNotMatch(String(error.message), /Quorum/);
          return true;
        });
      }
      // Each organization reads its own.
      const { configs } = (await server.client(other).getOrganizationConfigs({ organizationId: other.organizationId })) as any;
      assert.deepEqual(configs.quorum.userIds, [other.userId]);
    });

    test('get_organization lists the users not removed, oldest first, the first 100 at most, with their contacts', async () => {
      const team = await server.createOrganization('Team');
      const alice = await server.admin('POST', `/organizations/${team.organizationId}/users`, { userName: 'alice', email: 'Alice@Example.com', phoneNumber: '+14155552671' });
      const gone = await server.admin('POST', `/organizations/${team.organizationId}/users`, { userName: 'gone' });
      await server.admin('DELETE', `/organizations/${team.organizationId}/users/${gone.userId}`);
      // 120 more, later than alice, one millisecond apart.
      await server.db.query(
        `INSERT INTO users (id, organization_id, user_name, created_at, updated_at)
         SELECT gen_random_uuid(), $1, 'bulk ' || i, now() + i * interval '1 millisecond', now() + i * interval '1 millisecond'
           FROM generate_series(1, 120) i`,
        [team.organizationId],
      );
      const { organizationData } = (await server.client(team).getOrganization({ organizationId: team.organizationId })) as any;
      const users = organizationData.users;
      assert.equal(users.length, 100);
      assert.deepEqual(users.slice(0, 3).map((u: any) => u.userName), ['root', 'alice', 'bulk 1']);
      assert.equal(users[99].userName, 'bulk 98');
      assert.equal(users.some((u: any) => u.userId === gone.userId), false);
      assert.equal(users[1].userEmail, 'alice@example.com');
      assert.equal(users[1].userPhoneNumber, '+14155552671');
      assert.equal(users[1].userId, alice.userId);
      // The quorum is still its creator alone.
      assert.deepEqual(organizationData.rootQuorum, { threshold: 1, userIds: [team.userId] });
    });

    test('a quorum is written only with a threshold at most its members, all users of the organization not removed', async () => {
      const fresh = randomUUID();
      await server.db.query("INSERT INTO organizations (id, name) VALUES ($1, 'fresh')", [fresh]);
      const user = async (removed = false) => {
        const id = randomUUID();
        await server.db.query('INSERT INTO users (id, organization_id, user_name, removed_at) VALUES ($1, $2, $3, $4)', [id, fresh, 'u', removed ? new Date() : null]);
        return id;
      };
      const [a, b, removed] = [await user(), await user(), await user(true)];
      const refused = [
        { threshold: 3, userIds: [a, b] },
        { threshold: 1, userIds: [] },
        { threshold: 2, userIds: [a, a] },
        { threshold: 1, userIds: [a, removed] },
        { threshold: 1, userIds: [a, org.userId] }, // another organization's user
        { threshold: 1, userIds: [a, randomUUID()] },
      ];
      for (const quorum of refused) assert.equal(await insertRootQuorum(server.db, fresh, quorum), false, JSON.stringify(quorum));
      const count = async (table: string) =>
        (await server.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE organization_id = $1`, [fresh]))[0]!.n;
      assert.equal(await count('root_quorums'), 0);
      assert.equal(await count('root_quorum_members'), 0);
      await assert.rejects(server.db.query('INSERT INTO root_quorums (organization_id, threshold) VALUES ($1, 0)', [fresh]), /check constraint|root_quorums_threshold_check/);
      // A member of another organization is refused by the foreign key too.
      await server.db.query('INSERT INTO root_quorums (organization_id, threshold) VALUES ($1, 1)', [fresh]);
      await assert.rejects(server.db.query('INSERT INTO root_quorum_members (organization_id, user_id) VALUES ($1, $2)', [fresh, org.userId]), /foreign key/);
      await server.db.query('DELETE FROM root_quorums WHERE organization_id = $1', [fresh]);

      assert.equal(await insertRootQuorum(server.db, fresh, { threshold: 2, userIds: [b, a] }), true);
      assert.equal(await count('root_quorum_members'), 2);
      const [row] = await server.db.query<{ threshold: number }>('SELECT threshold FROM root_quorums WHERE organization_id = $1', [fresh]);
      assert.equal(row!.threshold, 2);
    });

    test('a write is refused only by the current quorum: a user another process makes a root user writes at once', async () => {
      const changing = await server.createOrganization('Changing');
      const body = (label: string) => ({
        type: 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE' as const,
        timestampMs: String(Date.now()),
        organizationId: changing.organizationId,
        parameters: {
          smartContractAddress: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
          smartContractInterface: JSON.stringify([{ type: 'event', name: 'Ping', inputs: [] }]),
          type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM' as const,
          label,
        },
      });
      // This process has decided for the organization: it knows its quorum (the creator alone).
      const root = server.client(changing);
      assert.equal(((await root.createSmartContractInterface(body('by the creator'))) as any).activity.status, 'ACTIVITY_STATUS_COMPLETED');
      const user = await server.admin('POST', `/organizations/${changing.organizationId}/users`, { userName: 'later root' });
      const asUser = server.client(await server.admin('POST', `/organizations/${changing.organizationId}/api-keys`, { userId: user.userId }));
      await assert.rejects(asUser.createSmartContractInterface(body('not yet')), (error: any) => {
        assert.equal(error.code, 7);
        assert.match(error.message, /the root quorum has not approved it \(1 of its 1 users must\).*\(implicit deny\)/);
        return true;
      });
      // Another process (here, SQL) makes the user a root user; this one is told by the version only.
      await server.joinRootQuorum(changing.organizationId, user.userId);
      const { activity } = (await asUser.createSmartContractInterface(body('now a root user'))) as any;
      assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.equal(activity.votes[0].userId, user.userId);
    });
  });
}
