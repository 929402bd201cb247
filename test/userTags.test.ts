// User tags through @turnkey/http's own TurnkeyClient: create_user_tag (with users, a name taken, a
// user not of the organization), list_user_tags in pages, create_users giving tags, the voter's
// userTags, delete_user_tags taking the tag from its users, and another organization's tags.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { TurnkeyClient } from '@turnkey/http';
import { generateApiKeyPair } from '../src/admin/organizations.ts';
import { MAX_USER_TAGS } from '../src/activities/handlers/users/createUserTag.ts';
import { run } from '../src/store/sql.ts';
import { lockAuthority } from '../src/store/authorityVersion.ts';
import { testDatabases } from './support/databases.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';
import { refused } from './support/refusals.ts';

const ABI = JSON.stringify([{ type: 'event', name: 'Ping', inputs: [] }]);

const stamp = (organizationId: string) => ({ timestampMs: String(Date.now()), organizationId });

function createTag(client: TurnkeyClient, organizationId: string, userTagName: string, userIds: string[]) {
  return client.createUserTag({ type: 'ACTIVITY_TYPE_CREATE_USER_TAG', ...stamp(organizationId), parameters: { userTagName, userIds } });
}

function deleteTags(client: TurnkeyClient, organizationId: string, userTagIds: string[]) {
  return client.deleteUserTags({ type: 'ACTIVITY_TYPE_DELETE_USER_TAGS', ...stamp(organizationId), parameters: { userTagIds } });
}

function createUsers(client: TurnkeyClient, organizationId: string, users: Array<{ userName: string; publicKey: string; userTags: string[] }>) {
  return client.createUsers({
    type: 'ACTIVITY_TYPE_CREATE_USERS_V4',
    ...stamp(organizationId),
    parameters: {
      users: users.map((u) => ({
        userName: u.userName,
        apiKeys: [{ apiKeyName: u.userName, publicKey: u.publicKey, curveType: 'API_KEY_CURVE_P256' as const }],
        authenticators: [],
        oauthProviders: [],
        userTags: u.userTags,
      })),
    },
  });
}

/** The tags the user's vote shows, on the answer to a submission it stamps and on reading it back. */
async function votedTags(client: TurnkeyClient, organizationId: string, label: string): Promise<string[]> {
  const { activity } = (await client.createSmartContractInterface({
    type: 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE',
    ...stamp(organizationId),
    parameters: { smartContractAddress: '0xdAC17F958D2ee523a2206206994597C13D831ec7', smartContractInterface: ABI, type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM', label },
  })) as any;
  const read = (await client.getActivity({ organizationId, activityId: activity.id })) as any;
  assert.deepEqual(read.activity.votes[0].user.userTags, activity.votes[0].user.userTags, 'the same when read back');
  return activity.votes[0].user.userTags;
}

for (const tdb of testDatabases) {
  describe(`user tags (${tdb.name})`, () => {
    let server: TestServer;
    let org: Credentials;
    let root: TurnkeyClient;
    const people: Array<{ userId: string; client: TurnkeyClient }> = [];

    before(async () => {
      server = await startTestServer(tdb, { SIGNET_OUTBOX_WORKER: 'false' });
      org = await server.createOrganization('Tagged');
      root = server.client(org);
      const keys = [generateApiKeyPair(), generateApiKeyPair()];
      const made = (await createUsers(root, org.organizationId, [
        { userName: 'Alice', publicKey: keys[0]!.apiPublicKey, userTags: [] },
        { userName: 'Bob', publicKey: keys[1]!.apiPublicKey, userTags: [] },
      ])) as any;
      made.activity.result.createUsersResult.userIds.forEach((userId: string, i: number) => people.push({ userId, client: server.client(keys[i]!) }));
      // Their votes show their tags: they submit, so they are of the root quorum (which any one of them satisfies).
      for (const { userId } of people) await server.joinRootQuorum(org.organizationId, userId);
    });
    after(() => server.close());

    test('a tag with two users: created, listed, shown on their votes; taken from them when deleted', async () => {
      const [alice, bob] = people;
      const { activity } = (await createTag(root, org.organizationId, '  approvers ', [alice!.userId, bob!.userId])) as any;
      assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.deepEqual(activity.intent.createUserTagIntent, { userTagName: 'approvers', userIds: [alice!.userId, bob!.userId] }, 'the name trimmed');
      const { userTagId, userIds } = activity.result.createUserTagResult;
      assert.deepEqual(userIds, [alice!.userId, bob!.userId]);

      const { userTags } = (await root.listUserTags({ organizationId: org.organizationId })) as any;
      const [row] = await server.db.query<{ created_at: Date }>('SELECT created_at FROM user_tags WHERE id = $1', [userTagId]);
      assert.deepEqual(userTags.find((t: any) => t.tagId === userTagId), {
        tagId: userTagId,
        tagName: 'approvers',
        tagType: 'TAG_TYPE_USER',
        createdAt: row!.created_at.toISOString(),
        updatedAt: row!.created_at.toISOString(),
      });
      assert.deepEqual(await votedTags(alice!.client, org.organizationId, 'alice'), [userTagId]);
      assert.deepEqual(await votedTags(bob!.client, org.organizationId, 'bob'), [userTagId]);
      assert.deepEqual(await votedTags(root, org.organizationId, 'root'), [], 'an untagged user');
      const shown = await server.admin('GET', `/organizations/${org.organizationId}/users/${alice!.userId}`);
      assert.deepEqual(shown.userTags, [userTagId], 'the admin API shows the user with its tags');
      const { users } = await server.admin('GET', `/organizations/${org.organizationId}/users?limit=500`);
      assert.deepEqual(users.find((u: any) => u.userId === bob!.userId).userTags, [userTagId]);
      const { organizationData } = (await root.getOrganization({ organizationId: org.organizationId })) as any;
      const tagsOf = (id: string) => organizationData.users.find((u: any) => u.userId === id).userTags;
      assert.deepEqual([tagsOf(alice!.userId), tagsOf(bob!.userId)], [[userTagId], [userTagId]], 'get_organization shows its users with their tags');

      const deleted = (await deleteTags(root, org.organizationId, [userTagId])) as any;
      assert.deepEqual(deleted.activity.intent.deleteUserTagsIntent, { userTagIds: [userTagId] });
      assert.deepEqual(deleted.activity.result.deleteUserTagsResult, { userTagIds: [userTagId], userIds: [alice!.userId, bob!.userId].sort() });
      const listed = (await root.listUserTags({ organizationId: org.organizationId })) as any;
      assert.equal(listed.userTags.some((t: any) => t.tagId === userTagId), false);
      assert.deepEqual(await votedTags(alice!.client, org.organizationId, 'alice again'), [], 'the tag is gone from its users');
      assert.deepEqual((await server.admin('GET', `/organizations/${org.organizationId}/users/${alice!.userId}`)).userTags, []);
      const [members] = await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM user_tag_members WHERE tag_id = $1', [userTagId]);
      assert.equal(members!.n, 0);
      await refused(deleteTags(root, org.organizationId, [userTagId]), 5, new RegExp(`parameters.userTagIds\\[0\\]: no user tag ${userTagId}`));
    });

    test('a name the organization has is a 400; an unknown or removed user a 404 naming it; nothing is written', async () => {
      await createTag(root, org.organizationId, 'operators', []);
      const count = async () => (await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM user_tags'))[0]!.n;
      const before = await count();
      await refused(createTag(root, org.organizationId, ' operators', []), 3, /already has a tag named "operators"/, 'parameters.userTagName');
      await refused(createTag(root, org.organizationId, '   ', []), 3, /must not be empty/, 'parameters.userTagName');
      await refused(createTag(root, org.organizationId, 'x'.repeat(257), []), 3, /at most 256 characters/, 'parameters.userTagName');
      const stranger = randomUUID();
      await refused(createTag(root, org.organizationId, 'new', [people[0]!.userId, stranger]), 5, new RegExp(`parameters.userIds\\[1\\]: no user ${stranger}`));
      const removed = await server.admin('POST', `/organizations/${org.organizationId}/users`, { email: 'gone@example.com' });
      await server.admin('DELETE', `/organizations/${org.organizationId}/users/${removed.userId}`);
      await refused(createTag(root, org.organizationId, 'new', [removed.userId]), 5, /parameters.userIds\[0\].*removed/);
      await refused(createTag(root, org.organizationId, 'new', [people[0]!.userId, people[0]!.userId]), 3, /twice/, 'parameters.userIds');
      await refused(createTag(root, org.organizationId, 'new', Array.from({ length: 101 }, () => randomUUID())), 3, /at most 100 user ids/, 'parameters.userIds');
      await refused(deleteTags(root, org.organizationId, []), 3, /at least one/, 'parameters.userTagIds');
      assert.equal(await count(), before);
    });

    test('create_users gives tags by id; a tag not of the organization is a 404 naming the field', async () => {
      const { activity: tagged } = (await createTag(root, org.organizationId, 'signers', [])) as any;
      const tagId = tagged.result.createUserTagResult.userTagId;
      const key = generateApiKeyPair();
      const made = (await createUsers(root, org.organizationId, [{ userName: 'Carol', publicKey: key.apiPublicKey, userTags: [tagId.toUpperCase()] }])) as any;
      assert.deepEqual(made.activity.intent.createUsersIntentV4.users[0].userTags, [tagId]);
      await server.joinRootQuorum(org.organizationId, made.activity.result.createUsersResult.userIds[0]);
      assert.deepEqual(await votedTags(server.client(key), org.organizationId, 'carol'), [tagId]);

      const users = async () => (await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM users'))[0]!.n;
      const before = await users();
      const unknown = randomUUID();
      await refused(
        createUsers(root, org.organizationId, [
          { userName: 'Dan', publicKey: generateApiKeyPair().apiPublicKey, userTags: [tagId] },
          { userName: 'Eve', publicKey: generateApiKeyPair().apiPublicKey, userTags: [tagId, unknown] },
        ]),
        5,
        new RegExp(`parameters.users\\[1\\].userTags\\[1\\]: no user tag ${unknown}`),
      );
      assert.equal(await users(), before, 'no user written');
      // Bounded: a tag once per user, at most 20 a user and 100 distinct in a request.
      const user = (name: string, userTags: string[]) => ({ userName: name, publicKey: generateApiKeyPair().apiPublicKey, userTags });
      await refused(createUsers(root, org.organizationId, [user('Gus', [tagId, tagId])]), 3, /twice/, 'parameters.users[0].userTags[1]');
      await refused(createUsers(root, org.organizationId, [user('Hal', Array.from({ length: 21 }, () => randomUUID()))]), 3, /at most 20/, 'parameters.users[0].userTags');
      const many = Array.from({ length: 6 }, (_, i) => user(`Many ${i}`, Array.from({ length: 17 }, () => randomUUID())));
      await refused(createUsers(root, org.organizationId, many), 3, /at most 100 distinct user tags/, 'parameters.users[5].userTags[15]');
      assert.equal(await users(), before, 'no user written');

      const deleted = (await deleteTags(root, org.organizationId, [tagId])) as any;
      const carol = made.activity.result.createUsersResult.userIds[0];
      assert.deepEqual(deleted.activity.result.deleteUserTagsResult.userIds, [carol]);
    });

    test("another organization's tags and users are not found, nor listed", async () => {
      const other = await server.createOrganization('Other');
      const otherClient = server.client(other);
      const { activity } = (await createTag(otherClient, other.organizationId, 'approvers', [other.userId])) as any;
      const theirs = activity.result.createUserTagResult.userTagId;
      await refused(deleteTags(root, org.organizationId, [theirs]), 5, new RegExp(`no user tag ${theirs} in organization ${org.organizationId}`));
      await refused(createUsers(root, org.organizationId, [{ userName: 'Fay', publicKey: generateApiKeyPair().apiPublicKey, userTags: [theirs] }]), 5, /parameters.users\[0\].userTags\[0\]/);
      await refused(createTag(root, org.organizationId, 'borrowed', [other.userId]), 5, /parameters.userIds\[0\]/);
      const listed = (await root.listUserTags({ organizationId: org.organizationId })) as any;
      assert.equal(listed.userTags.some((t: any) => t.tagId === theirs), false);
      // Its tag survived the other organization's attempts.
      const own = (await otherClient.listUserTags({ organizationId: other.organizationId })) as any;
      assert.deepEqual(own.userTags.map((t: any) => t.tagId), [theirs]);
    });

    test('create_users giving a tag and delete_user_tags at once: each answered with its own outcome, never a 500', async () => {
      for (let round = 0; round < 8; round++) {
        const { activity } = (await createTag(root, org.organizationId, `race ${round}`, [])) as any;
        const tagId = activity.result.createUserTagResult.userTagId;
        const [made, deleted] = await Promise.allSettled([
          createUsers(root, org.organizationId, [{ userName: `Racer ${round}`, publicKey: generateApiKeyPair().apiPublicKey, userTags: [tagId] }]),
          deleteTags(root, org.organizationId, [tagId]),
        ]);
        for (const outcome of [made, deleted]) {
          if (outcome.status === 'rejected') assert.ok([3, 5].includes((outcome.reason as any).code), String(outcome.reason));
        }
        const userId = made.status === 'fulfilled' ? (made.value as any).activity.result.createUsersResult.userIds[0] : undefined;
        let result;
        if (deleted.status === 'fulfilled') {
          result = (deleted.value as any).activity.result.deleteUserTagsResult;
        } else {
          // The member came after the deletion read its tag's users: refused whole, and the tag is still there.
          assert.match(String(deleted.reason), /changed while they were being deleted/);
          result = ((await deleteTags(root, org.organizationId, [tagId])) as any).activity.result.deleteUserTagsResult;
        }
        // The user was created before the deletion (and is in its result) or after it, refused with the tag gone.
        assert.deepEqual(result.userIds, userId ? [userId] : []);
        if (made.status === 'rejected') assert.equal((made.reason as any).code, 5);
      }
    });

    // Two connections: one holds the deletion uncommitted while the other's create_users arrives.
    test('a deletion committing while create_users waits on its tag: create_users is a 404, never a 500', { skip: tdb.name !== 'postgres' && 'needs two connections' }, async () => {
      const { activity } = (await createTag(root, org.organizationId, 'held', [])) as any;
      const tagId = activity.result.createUserTagResult.userTagId;
      let release!: () => void;
      let deleting!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const started = new Promise<void>((resolve) => (deleting = resolve));
      const deletion = server.db.transaction(async (tx) => {
        await tx.query('DELETE FROM user_tags WHERE id = $1', [tagId]);
        deleting();
        await held;
      });
      await started;
      const made = createUsers(root, org.organizationId, [{ userName: 'Late', publicKey: generateApiKeyPair().apiPublicKey, userTags: [tagId] }]);
      const settled = made.then(() => 'answered', () => 'answered');
      // create_users waits on the tag's row until the deletion commits.
      assert.equal(await Promise.race([settled, new Promise((resolve) => setTimeout(() => resolve('waiting'), 500))]), 'waiting');
      release();
      await deletion;
      await refused(made, 5, new RegExp(`no user tag ${tagId}`));
    });

    test('a member added while delete_user_tags waits on its tag: the deletion is refused whole, never answers without it', { skip: tdb.name !== 'postgres' && 'needs two connections' }, async () => {
      const { activity } = (await createTag(root, org.organizationId, 'joined late', [])) as any;
      const tagId = activity.result.createUserTagResult.userTagId;
      const member = people[0]!.userId;
      let release!: () => void;
      let adding!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const started = new Promise<void>((resolve) => (adding = resolve));
      const addition = server.db.transaction(async (tx) => {
        await tx.query('INSERT INTO user_tag_members (tag_id, user_id) VALUES ($1, $2)', [tagId, member]);
        adding();
        await held;
      });
      await started;
      const deletion = deleteTags(root, org.organizationId, [tagId]);
      const settled = deletion.then(() => 'answered', () => 'answered');
      assert.equal(await Promise.race([settled, new Promise((resolve) => setTimeout(() => resolve('waiting'), 500))]), 'waiting');
      release();
      await addition;
      await refused(deletion, 3, /changed while they were being deleted/);
      const again = (await deleteTags(root, org.organizationId, [tagId])) as any;
      assert.deepEqual(again.activity.result.deleteUserTagsResult.userIds, [member]);
    });

    test('list_user_tags pages newest first; an organization has at most the bound of tags', async () => {
      const org2 = await server.createOrganization('Many tags');
      const client = server.client(org2);
      const ids: string[] = [];
      for (const name of ['one', 'two', 'three']) ids.push(((await createTag(client, org2.organizationId, name, [])) as any).activity.result.createUserTagResult.userTagId);
      const first = (await client.listUserTags({ organizationId: org2.organizationId, paginationOptions: { limit: '2' } } as any)) as any;
      assert.deepEqual(first.userTags.map((t: any) => t.tagName), ['three', 'two']);
      const next = (await client.listUserTags({ organizationId: org2.organizationId, paginationOptions: { limit: '2', after: first.userTags[1].tagId } } as any)) as any;
      assert.deepEqual(next.userTags.map((t: any) => t.tagId), [ids[0]]);

      // Fill the organization up to the bound directly; the next tag is refused.
      await server.db.query(
        `INSERT INTO user_tags (id, organization_id, name, created_at, updated_at)
         SELECT gen_random_uuid(), $1, 'filler ' || n, now(), now() FROM generate_series(1, $2::int) n`,
        [org2.organizationId, MAX_USER_TAGS - ids.length],
      );
      await refused(createTag(client, org2.organizationId, 'one too many', []), 3, new RegExp(`has ${MAX_USER_TAGS} user tags, the most`));
      if (tdb.name === 'postgres') {
        // One place left, and another process's create_user_tag (its lock and its tag, not committed
        // yet) takes it while this one arrives: this one waits, then sees the place gone.
        await server.db.query("DELETE FROM user_tags WHERE organization_id = $1 AND name = 'filler 1'", [org2.organizationId]);
        let release!: () => void;
        let holding!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        const started = new Promise<void>((resolve) => (holding = resolve));
        const other = server.db.transaction(async (tx) => {
          await run(tx, lockAuthority(org2.organizationId));
          await tx.query("INSERT INTO user_tags (id, organization_id, name, created_at, updated_at) VALUES ($1, $2, 'the last place', now(), now())", [randomUUID(), org2.organizationId]);
          holding();
          await held;
        });
        await started;
        const late = createTag(client, org2.organizationId, 'too late', []);
        const settled = late.then(() => 'answered', () => 'answered');
        assert.equal(await Promise.race([settled, new Promise((resolve) => setTimeout(() => resolve('waiting'), 500))]), 'waiting');
        release();
        await other;
        await refused(late, 3, /the most it may have/);
        const [stored] = await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM user_tags WHERE organization_id = $1', [org2.organizationId]);
        assert.equal(stored!.n, MAX_USER_TAGS);
      }
      await deleteTags(client, org2.organizationId, [ids[0]!]);
      await createTag(client, org2.organizationId, 'room again', []);
    });
  });
}
