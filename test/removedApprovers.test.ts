// A removed user is not an approver, through @turnkey/http on both stores: with "two admins" to
// register an interface, the admin who submitted it is removed by the operator and the other's single
// approval does not complete it (an activity whose submitter was removed can no longer be allowed: an
// approval fails it, a rejection rejects it, and canApprove says so); an approval by a user removed
// since (delete_users) stops counting, while one made with a key revoked since still counts; and, on
// PostgreSQL, a removal that commits between a vote's read of the activity and its statement is seen
// by the statement.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { testDatabases } from './support/databases.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';
import { until } from './support/until.ts';
import { envelope, interfaceBody } from './support/envelopes.ts';

type Keys = Pick<Credentials, 'apiPublicKey' | 'apiPrivateKey'>;
type Member = Keys & { userId: string; apiKeyId: string };

const CREATE_INTERFACE = "activity.resource == 'SMART_CONTRACT_INTERFACE' && activity.action == 'CREATE'";

for (const tdb of testDatabases) {
  describe(`a removed user is not an approver (${tdb.name})`, () => {
    let server: TestServer;

    before(async () => {
      server = await startTestServer(tdb);
    });
    after(async () => {
      await server.close();
    });

    const as = (keys: Keys) => server.client(keys);

    /**
     * An organization whose `count` members (not root) carry one tag, and a policy: an interface is
     * registered once `needed` of them have approved it.
     */
    async function tagged(count: number, needed: number) {
      const root = await server.createOrganization(`Removal ${randomUUID().slice(0, 8)}`);
      const { organizationId } = root;
      const members: Member[] = [];
      for (let i = 0; i < count; i++) {
        const { userId } = await server.admin('POST', `/organizations/${organizationId}/users`, { userName: `admin ${i}` });
        const key = await server.admin('POST', `/organizations/${organizationId}/api-keys`, { userId });
        members.push({ userId, apiKeyId: key.apiKeyId, apiPublicKey: key.apiPublicKey, apiPrivateKey: key.apiPrivateKey });
      }
      const { activity: tag } = (await as(root).createUserTag(
        envelope('ACTIVITY_TYPE_CREATE_USER_TAG', organizationId, { userTagName: 'admins', userIds: members.map((m) => m.userId) }),
      )) as any;
      const tagId = tag.result.createUserTagResult.userTagId as string;
      const { activity: policy } = (await as(root).createPolicy(
        envelope('ACTIVITY_TYPE_CREATE_POLICY_V3', organizationId, {
          policyName: `${needed} admins register contract interfaces`,
          effect: 'EFFECT_ALLOW',
          condition: CREATE_INTERFACE,
          consensus: `approvers.filter(user, user.tags.contains('${tagId}')).count() >= ${needed}`,
          notes: '',
        }),
      )) as any;
      assert.equal(policy.status, 'ACTIVITY_STATUS_COMPLETED');
      return { root, organizationId, members };
    }

    const approve = async (keys: Keys, organizationId: string, fingerprint: string) =>
      ((await as(keys).approveActivity(envelope('ACTIVITY_TYPE_APPROVE_ACTIVITY', organizationId, { fingerprint }))) as any).activity;
    const reject = async (keys: Keys, organizationId: string, fingerprint: string) =>
      ((await as(keys).rejectActivity(envelope('ACTIVITY_TYPE_REJECT_ACTIVITY', organizationId, { fingerprint }))) as any).activity;
    const read = async (keys: Keys, organizationId: string, activityId: string) =>
      ((await as(keys).getActivity({ organizationId, activityId })) as any).activity;
    const labels = async (keys: Keys, organizationId: string) =>
      (((await as(keys).getSmartContractInterfaces({ organizationId })) as any).smartContractInterfaces as Array<{ label: string }>).map((i) => i.label);

    test('two admins: Alice submits, the operator removes Alice, and Bob alone cannot complete it; an approval fails it, a rejection rejects it', async () => {
      const { root, organizationId, members } = await tagged(2, 2);
      const [alice, bob] = members as [Member, Member];
      const { activity: first } = (await as(alice).createSmartContractInterface(interfaceBody(organizationId, 'first'))) as any;
      const { activity: second } = (await as(alice).createSmartContractInterface(interfaceBody(organizationId, 'second'))) as any;
      assert.equal(first.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
      assert.equal(second.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
      assert.equal((await read(bob, organizationId, first.id)).canApprove, true);

      await server.admin('DELETE', `/organizations/${organizationId}/users/${alice.userId}`);

      // It still waits, but can only be rejected now, by Bob as by the root.
      for (const reader of [bob, root]) {
        const seen = await read(reader, organizationId, first.id);
        assert.equal(seen.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
        assert.deepEqual([seen.canApprove, seen.canReject], [false, true]);
      }

      const failed = await approve(bob, organizationId, first.fingerprint);
      assert.equal(failed.status, 'ACTIVITY_STATUS_FAILED');
      assert.equal(failed.failure.code, 7);
      assert.match(failed.failure.message, new RegExp(`user ${alice.userId}, who submitted it, was removed`));
      assert.deepEqual(failed.votes.map((v: any) => [v.userId, v.selection]), [
        [alice.userId, 'VOTE_SELECTION_APPROVED'],
        [bob.userId, 'VOTE_SELECTION_APPROVED'],
      ]);
      assert.deepEqual(await labels(root, organizationId), []);
      // Nothing was decided with Bob's approval: its record lists no policy.
      const { policyEvaluations } = (await as(root).getPolicyEvaluations({ organizationId, activityId: first.id })) as any;
      assert.deepEqual(policyEvaluations.map((e: any) => e.policyEvaluations.map((p: any) => p.outcome)), [['OUTCOME_REQUIRES_CONSENSUS'], []]);

      const rejected = await reject(bob, organizationId, second.fingerprint);
      assert.equal(rejected.status, 'ACTIVITY_STATUS_REJECTED');
      assert.deepEqual(await labels(root, organizationId), []);
    });

    test("an approval by a user removed since (delete_users) no longer counts; one made with a key revoked since still does", async () => {
      const { root, organizationId, members } = await tagged(4, 3);
      const [alice, bob, carol, dave] = members as [Member, Member, Member, Member];
      const { activity: waiting } = (await as(alice).createSmartContractInterface(interfaceBody(organizationId, 'three admins'))) as any;
      assert.equal((await approve(bob, organizationId, waiting.fingerprint)).status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');

      const { activity: removal } = (await as(root).deleteUsers(envelope('ACTIVITY_TYPE_DELETE_USERS', organizationId, { userIds: [bob.userId] }))) as any;
      assert.equal(removal.status, 'ACTIVITY_STATUS_COMPLETED');

      // Alice and Carol are two admins: Bob's approval is shown, not counted.
      const still = await approve(carol, organizationId, waiting.fingerprint);
      assert.equal(still.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
      assert.deepEqual(still.votes.map((v: any) => v.userId), [alice.userId, bob.userId, carol.userId]);
      assert.deepEqual(await labels(root, organizationId), []);
      assert.equal((await read(dave, organizationId, waiting.id)).canApprove, true);

      // Carol's key is revoked after her approval: the approval was hers, made while the key was good, and counts.
      await server.admin('DELETE', `/organizations/${organizationId}/api-keys/${carol.apiKeyId}`);
      const done = await approve(dave, organizationId, waiting.fingerprint);
      assert.equal(done.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.deepEqual(await labels(root, organizationId), ['three admins']);
    });
  });
}

const postgres = testDatabases.find((d) => d.name === 'postgres');

describe(
  'a removal that races with a vote (postgres)',
  { skip: postgres ? false : 'SIGNET_TEST_DATABASE_URL is not set; the embedded store runs one statement at a time, so nothing can come between a vote\'s read and its statement' },
  () => {
    let server: TestServer;

    before(async () => {
      server = await startTestServer(postgres!);
    });
    after(async () => {
      await server.close();
    });

    test("a removal committed after the vote read the activity is seen by the vote's statement", async () => {
      const root = await server.createOrganization('Raced removal');
      const { organizationId } = root;
      const members: Member[] = [];
      for (let i = 0; i < 4; i++) {
        const { userId } = await server.admin('POST', `/organizations/${organizationId}/users`, { userName: `admin ${i}` });
        const key = await server.admin('POST', `/organizations/${organizationId}/api-keys`, { userId });
        members.push({ userId, apiKeyId: key.apiKeyId, apiPublicKey: key.apiPublicKey, apiPrivateKey: key.apiPrivateKey });
      }
      const [alice, bob, carol, dave] = members as [Member, Member, Member, Member];
      const client = (keys: Keys) => server.client(keys);
      const { activity: tag } = (await client(root).createUserTag(
        envelope('ACTIVITY_TYPE_CREATE_USER_TAG', organizationId, { userTagName: 'admins', userIds: members.map((m) => m.userId) }),
      )) as any;
      await client(root).createPolicy(
        envelope('ACTIVITY_TYPE_CREATE_POLICY_V3', organizationId, {
          policyName: 'three admins',
          effect: 'EFFECT_ALLOW',
          condition: CREATE_INTERFACE,
          consensus: `approvers.filter(user, user.tags.contains('${tag.result.createUserTagResult.userTagId}')).count() >= 3`,
          notes: '',
        }),
      );
      const { activity: waiting } = (await client(alice).createSmartContractInterface(interfaceBody(organizationId, 'raced'))) as any;
      const approval = (keys: Keys) => client(keys).approveActivity(envelope('ACTIVITY_TYPE_APPROVE_ACTIVITY', organizationId, { fingerprint: waiting.fingerprint }));
      assert.equal(((await approval(bob)) as any).activity.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');

      // Hold the activity's row: Carol's vote waits for it, having read nothing yet but in the snapshot
      // its locking read started with, where Bob is not removed. The operator removes Bob meanwhile.
      let carolsVote: Promise<unknown> | undefined;
      await server.db.transaction(async (tx) => {
        const [{ pid }] = (await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')) as [{ pid: number }];
        await tx.query('SELECT id FROM activities WHERE id = $1 FOR UPDATE', [waiting.id]);
        carolsVote = approval(carol);
        carolsVote.catch(() => {});
        await until("Carol's vote waiting for the activity's row", async () => {
          const [row] = await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [pid]);
          return row!.n > 0;
        });
        await server.admin('DELETE', `/organizations/${organizationId}/users/${bob.userId}`);
      });

      // Alice and Carol are two admins, not three.
      const voted = (await carolsVote) as any;
      assert.equal(voted.activity.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
      assert.deepEqual(voted.activity.votes.map((v: any) => v.userId), [alice.userId, bob.userId, carol.userId]);
      const { smartContractInterfaces } = (await client(root).getSmartContractInterfaces({ organizationId })) as any;
      assert.deepEqual(smartContractInterfaces, []);
      assert.equal(((await approval(dave)) as any).activity.status, 'ACTIVITY_STATUS_COMPLETED');
    });
  },
);
