// create_read_write_session and create_read_only_session as the ecosystem's clients drive them: a
// read-write session's credential bundle, opened by @turnkey/crypto with the target's private key,
// gives a session key that stamps reads and writes as the user; a read-only session's token, sent in
// X-Session as the browser SDK sends it, reads and is refused every activity.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { decryptCredentialBundle, generateP256KeyPair, getPublicKey } from '@turnkey/crypto';
import { Turnkey } from '@turnkey/sdk-server';
import { testDatabases } from './support/databases.ts';
import { refused } from './support/refusals.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';

for (const tdb of testDatabases) {
  describe(`sessions (${tdb.name})`, () => {
    let server: TestServer;
    let org: Credentials;

    before(async () => {
      server = await startTestServer(tdb);
      org = await server.createOrganization('Acme');
    });
    after(async () => {
      await server.close();
    });

    /** The server-side SDK stamping with `credentials` (the organization's root API key by default). */
    function sdk(credentials: Pick<Credentials, 'apiPublicKey' | 'apiPrivateKey'> = org) {
      return new Turnkey({
        apiBaseUrl: server.baseUrl,
        apiPublicKey: credentials.apiPublicKey,
        apiPrivateKey: credentials.apiPrivateKey,
        defaultOrganizationId: org.organizationId,
      }).apiClient();
    }

    /** The key a credential bundle holds, opened with the target's private key, as a stamper's credentials. */
    function opened(credentialBundle: string, target: ReturnType<typeof generateP256KeyPair>) {
      const apiPrivateKey = decryptCredentialBundle(credentialBundle, target.privateKey);
      return { apiPublicKey: Buffer.from(getPublicKey(apiPrivateKey, true)).toString('hex'), apiPrivateKey };
    }

    async function newUser(): Promise<string> {
      const { userIds } = await sdk().createUsers({
        users: [{ userName: `Person ${randomUUID().slice(0, 8)}`, userEmail: `${randomUUID().slice(0, 8)}@example.com`, apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] }],
      });
      return userIds[0]!;
    }

    describe('create_read_write_session', () => {
      test("the bundle opens to a session key that stamps the user's reads and writes; the stored activity holds no bundle", async () => {
        const target = generateP256KeyPair();
        const answer = await sdk().createReadWriteSession({ targetPublicKey: target.publicKeyUncompressed });
        assert.equal(answer.activity.type, 'ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2');
        assert.equal(answer.activity.status, 'ACTIVITY_STATUS_COMPLETED');
        assert.equal(answer.organizationId, org.organizationId);
        assert.equal(answer.organizationName, 'Acme');
        assert.equal(answer.userId, org.userId);
        assert.ok(answer.username);
        assert.match(answer.apiKeyId, /^[0-9a-f-]{36}$/);
        // Opened with any other key the bundle gives nothing.
        assert.throws(() => decryptCredentialBundle(answer.credentialBundle, generateP256KeyPair().privateKey));

        const key = opened(answer.credentialBundle, target);
        const asSession = sdk(key);
        const whoami = await asSession.getWhoami({ organizationId: org.organizationId });
        assert.equal(whoami.userId, org.userId);
        const { apiKey } = await asSession.getApiKey({ organizationId: org.organizationId, apiKeyId: answer.apiKeyId });
        assert.deepEqual(apiKey.credential, { publicKey: key.apiPublicKey, type: 'CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256' });
        assert.equal(apiKey.expirationSeconds, '900');
        assert.match(apiKey.apiKeyName, /^Read Write Session - \d{4}-\d\d-\d\dT/);

        // A write stamped with the session key is the user's.
        const written = await asSession.createUserTag({ userTagName: `tag-${randomUUID().slice(0, 8)}`, userIds: [] });
        assert.equal(written.activity.status, 'ACTIVITY_STATUS_COMPLETED');
        assert.equal((written.activity as any).votes[0].userId, org.userId);

        const { activity } = await sdk().getActivity({ organizationId: org.organizationId, activityId: answer.activity.id });
        assert.equal((activity.result as any).createReadWriteSessionResultV2.credentialBundle, '');
        const [row] = await server.db.query<{ text: string }>('SELECT row_to_json(a)::text AS text FROM activities a WHERE id = $1', [answer.activity.id]);
        assert.equal(row!.text.includes(answer.credentialBundle), false);
      });

      test("another user's session, named and short-lived; invalidateExisting ends that user's other sessions", async () => {
        const userId = await newUser();
        const first = generateP256KeyPair();
        const one = await sdk().createReadWriteSession({ targetPublicKey: first.publicKey, userId, apiKeyName: 'laptop', expirationSeconds: '60' });
        assert.equal(one.userId, userId);
        const firstKey = opened(one.credentialBundle, first);
        assert.equal((await sdk(firstKey).getWhoami({ organizationId: org.organizationId })).userId, userId);
        const { apiKey } = await sdk().getApiKey({ organizationId: org.organizationId, apiKeyId: one.apiKeyId });
        assert.equal(apiKey.apiKeyName, 'laptop');
        assert.equal(apiKey.expirationSeconds, '60');

        const second = generateP256KeyPair();
        const two = await sdk().createReadWriteSession({ targetPublicKey: second.publicKey, userId, invalidateExisting: true });
        assert.equal((await sdk(opened(two.credentialBundle, second)).getWhoami({ organizationId: org.organizationId })).userId, userId);
        await refused(sdk(firstKey).getWhoami({ organizationId: org.organizationId }), 16, /session ended/);
      });

      test('the session key expires with its session', async () => {
        const target = generateP256KeyPair();
        const answer = await sdk().createReadWriteSession({ targetPublicKey: target.publicKey, expirationSeconds: '30' });
        const asSession = sdk(opened(answer.credentialBundle, target));
        await asSession.getWhoami({ organizationId: org.organizationId });
        server.clock.advance(31_000);
        await refused(asSession.getWhoami({ organizationId: org.organizationId }), 16, /session expired/);
      });

      test('refusals name the field: an unknown user, a target that is no key, a lifetime out of range', async () => {
        await refused(sdk().createReadWriteSession({ targetPublicKey: generateP256KeyPair().publicKey, userId: randomUUID() }), 5, /no user .* in organization/);
        await refused(sdk().createReadWriteSession({ targetPublicKey: '02abcd' }), 3, /P-256 public key/, 'parameters.targetPublicKey');
        await refused(
          sdk().createReadWriteSession({ targetPublicKey: generateP256KeyPair().publicKey, expirationSeconds: '2592001' }),
          3,
          /from 1 to 2592000/,
          'parameters.expirationSeconds',
        );
      });
    });

    describe('create_read_only_session', () => {
      /** A request as @turnkey/sdk-browser sends it with a readOnlySession and no stamper: X-Session, no stamp. */
      async function withSession(session: string, path: string, body: object): Promise<{ status: number; json: any }> {
        const response = await fetch(`${server.baseUrl}${path}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Client-Version': 'test', 'X-Session': session },
          body: JSON.stringify(body),
        });
        return { status: response.status, json: await response.json() };
      }

      /** A session the last test sees expire: moving the clock an hour on, it comes after every stamped request. */
      let lastSession = '';

      test('the session reads as the user (whoami, list_users) for an hour; the stored activity holds no session', async () => {
        const answer = await sdk().createReadOnlySession({});
        assert.equal(answer.activity.type, 'ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION');
        assert.equal(answer.activity.status, 'ACTIVITY_STATUS_COMPLETED');
        assert.equal(answer.organizationId, org.organizationId);
        assert.equal(answer.organizationName, 'Acme');
        assert.equal(answer.userId, org.userId);
        // An hour from the activity's own time (the request may take a while on a busy machine).
        const expiry = Number(answer.sessionExpiry);
        const createdAt = Math.floor(Date.parse(answer.activity.createdAt as unknown as string) / 1000);
        assert.ok(Math.abs(expiry - (createdAt + 3600)) <= 1, `${answer.sessionExpiry} is not an hour after ${createdAt}`);
        assert.ok(expiry <= server.clock.now().getTime() / 1000 + 3600 + 1, 'the session ends within the hour');

        const whoami = await withSession(answer.session, '/public/v1/query/whoami', { organizationId: org.organizationId });
        assert.equal(whoami.status, 200, JSON.stringify(whoami.json));
        assert.deepEqual(whoami.json, { organizationId: org.organizationId, organizationName: 'Acme', userId: org.userId, username: answer.username });
        const users = await withSession(answer.session, '/public/v1/query/list_users', { organizationId: org.organizationId });
        assert.equal(users.status, 200, JSON.stringify(users.json));
        assert.ok(users.json.users.some((user: any) => user.userId === org.userId));
        // A waiting activity read with it is one it may not vote on.
        const activity = await withSession(answer.session, '/public/v1/query/get_activity', { organizationId: org.organizationId, activityId: answer.activity.id });
        assert.equal(activity.status, 200, JSON.stringify(activity.json));
        assert.equal(activity.json.activity.result.createReadOnlySessionResult.session, '');

        lastSession = answer.session;
      });

      test('an activity sent with the session is refused 403, nothing stored; a stamped one is the stamp\'s', async () => {
        const { session } = await sdk().createReadOnlySession({});
        const body = {
          type: 'ACTIVITY_TYPE_CREATE_USER_TAG',
          timestampMs: String(server.clock.now().getTime()),
          organizationId: org.organizationId,
          parameters: { userTagName: `never-${randomUUID().slice(0, 8)}`, userIds: [] },
        };
        const write = await withSession(session, '/public/v1/submit/create_user_tag', body);
        assert.equal(write.status, 403, JSON.stringify(write.json));
        assert.match(write.json.message, /X-Session: a read-only session reads only/);
        assert.equal(write.json.details.at(-1).turnkeyErrorCode, 'READ_ONLY_SESSION');
        const approve = await withSession(session, '/public/v1/submit/approve_activity', { ...body, type: 'ACTIVITY_TYPE_APPROVE_ACTIVITY', parameters: { fingerprint: 'x' } });
        assert.equal(approve.status, 403);
        const [tags] = await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM user_tags WHERE name = $1', [body.parameters.userTagName]);
        assert.equal(tags!.n, 0);
      });

      test('refused: a changed token, another organization, a removed user', async () => {
        const { session } = await sdk().createReadOnlySession({});
        const [header, payload, signature] = session.split('.');
        const changed = `${header}.${payload}.${signature!.startsWith('A') ? 'B' : 'A'}${signature!.slice(1)}`;
        const forged = await withSession(changed, '/public/v1/query/whoami', { organizationId: org.organizationId });
        assert.equal(forged.status, 401);
        assert.match(forged.json.message, /does not verify/);
        const garbage = await withSession('not a token', '/public/v1/query/whoami', { organizationId: org.organizationId });
        assert.equal(garbage.status, 401);
        assert.equal(garbage.json.details.at(-1).turnkeyErrorCode, 'STAMP_MALFORMED');

        const other = await server.createOrganization('Other');
        const elsewhere = await withSession(session, '/public/v1/query/whoami', { organizationId: other.organizationId });
        assert.equal(elsewhere.status, 403);
        assert.equal(elsewhere.json.details.at(-1).turnkeyErrorCode, 'WRONG_ORGANIZATION');

        // A user's session ends when the user is removed.
        const userId = await newUser();
        const target = generateP256KeyPair();
        const rw = await sdk().createReadWriteSession({ targetPublicKey: target.publicKey, userId });
        const asUser = sdk(opened(rw.credentialBundle, target));
        // Decided like every activity: a user outside the root quorum needs a policy.
        await refused(asUser.createReadOnlySession({}), 7, /not allowed/);
        await sdk().createPolicy({
          policyName: `read-only sessions of ${userId}`,
          effect: 'EFFECT_ALLOW',
          condition: "activity.type == 'ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION'",
          consensus: `approvers.any(user, user.id == '${userId}')`,
          notes: '',
        });
        const own = await asUser.createReadOnlySession({});
        assert.equal(own.userId, userId);
        assert.equal((await withSession(own.session, '/public/v1/query/whoami', { organizationId: org.organizationId })).json.userId, userId);
        await sdk().deleteUsers({ userIds: [userId] });
        const removed = await withSession(own.session, '/public/v1/query/whoami', { organizationId: org.organizationId });
        assert.equal(removed.status, 401);
        assert.match(removed.json.message, /read-only session ended/);
      });

      test('after an hour the session is a 401 SESSION_EXPIRED', async () => {
        server.clock.advance(3_600_000);
        const expired = await withSession(lastSession, '/public/v1/query/whoami', { organizationId: org.organizationId });
        assert.equal(expired.status, 401);
        assert.match(expired.json.message, /X-Session: the read-only session expired/);
        assert.equal(expired.json.details.at(-1).turnkeyErrorCode, 'SESSION_EXPIRED');
      });
    });
  });
}
