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
  });
}
