// Every organization has a root quorum: an organization made by the admin API (signet org create)
// has its creator alone, threshold 1. The one statement that writes a quorum writes nothing unless
// its threshold is at most its members, all users of the organization not removed.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { insertRootQuorum } from '../src/store/rootQuorums.ts';
import { testDatabases } from './support/databases.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';

for (const tdb of testDatabases) {
  describe(`root quorum (${tdb.name})`, () => {
    let server: TestServer;
    let org: Credentials;

    before(async () => {
      server = await startTestServer(tdb, { SIGNET_OUTBOX_WORKER: 'false' });
      org = await server.createOrganization('Quorum');
    });
    after(() => server.close());

    test('a new organization (admin API) has its creator as its root quorum, threshold 1, and no other member', async () => {
      const [quorum] = await server.db.query<{ threshold: number }>('SELECT threshold FROM root_quorums WHERE organization_id = $1', [org.organizationId]);
      assert.equal(quorum?.threshold, 1);
      const members = await server.db.query<{ user_id: string }>('SELECT user_id FROM root_quorum_members WHERE organization_id = $1', [org.organizationId]);
      assert.deepEqual(members.map((m) => m.user_id), [org.userId]);
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
  });
}
