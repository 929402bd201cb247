// Users and their credentials as @turnkey/http's own TurnkeyClient reads them: getWhoami, getUser,
// getUsers (list_users), getApiKeys, getApiKey, getAuthenticators and getAuthenticator, with an API
// key, an expiring key, a session key, a passkey, a revoked key, a removed user and another
// organization's ids.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { TurnkeyClient } from '@turnkey/http';
import { generateApiKeyPair } from '../src/admin/organizations.ts';
import { testDatabases } from './support/databases.ts';
import { refused } from './support/refusals.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';
import { createSoftwareAuthenticator, v1Attestation, webauthnStamperFor, type SoftwareAuthenticator } from './support/softwareAuthenticator.ts';

const RP_ID = 'localhost';
const ORIGIN = 'http://localhost:3000';
const NOT_FOUND = 5;
const PERMISSION_DENIED = 7;

for (const tdb of testDatabases) {
  describe(`user queries (${tdb.name})`, () => {
    let server: TestServer;
    let org: Credentials;
    let other: Credentials;
    let client: TurnkeyClient;
    let alice: string;
    let aliceKey: { apiKeyId: string; apiPublicKey: string; apiPrivateKey: string };
    let expiring: { apiKeyId: string; apiPublicKey: string };
    let revoked: { apiKeyId: string };
    let expired: string;
    let session: { id: string; publicKey: string };
    let passkey: { authenticatorId: string; credentialId: string };
    let phone: SoftwareAuthenticator;
    let removed: string;

    before(async () => {
      server = await startTestServer(tdb, { SIGNET_WEBAUTHN_RP_ID: RP_ID, SIGNET_WEBAUTHN_ORIGINS: ORIGIN });
      org = await server.createOrganization('Readers');
      other = await server.createOrganization('Elsewhere');
      client = server.client(org);
      const base = `/organizations/${org.organizationId}`;
      alice = (await server.admin('POST', `${base}/users`, { userName: 'alice', email: 'alice@example.com' })).userId;
      aliceKey = await server.admin('POST', `${base}/api-keys`, { userId: alice, name: 'laptop' });
      expiring = await server.admin('POST', `${base}/api-keys`, { userId: alice, name: 'ci', expiresInSeconds: 3600 });
      revoked = await server.admin('POST', `${base}/api-keys`, { userId: alice, name: 'old' });
      await server.admin('DELETE', `${base}/api-keys/${revoked.apiKeyId}`);
      // A session key as otp_login registers one, and one whose session is over.
      session = { id: randomUUID(), publicKey: generateApiKeyPair().apiPublicKey };
      expired = randomUUID();
      await server.db.query(
        `INSERT INTO api_keys (id, organization_id, user_id, name, public_key, kind, created_at, expires_at)
         VALUES ($1, $2, $3, 'session', $4, 'session', now(), now() + interval '900 seconds'),
                ($5, $2, $3, 'session', $6, 'session', now() - interval '2 hours', now() - interval '1 hour')`,
        [session.id, org.organizationId, alice, session.publicKey, expired, generateApiKeyPair().apiPublicKey],
      );
      phone = createSoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN });
      const challenge = randomBytes(32).toString('base64url');
      passkey = await server.admin('POST', `${base}/users/${alice}/authenticators`, {
        name: 'phone',
        challenge,
        attestation: { ...v1Attestation(phone.register(challenge)), transports: ['AUTHENTICATOR_TRANSPORT_INTERNAL'] },
      });
      removed = (await server.admin('POST', `${base}/users`, { userName: 'gone' })).userId;
      await server.admin('POST', `${base}/api-keys`, { userId: removed });
      await server.admin('DELETE', `${base}/users/${removed}`);
    });

    after(() => server.close());

    test('whoami names the stamping credential\'s user: an API key\'s, another user\'s key\'s, a passkey\'s', async () => {
      assert.deepEqual(await client.getWhoami({ organizationId: org.organizationId }), {
        organizationId: org.organizationId,
        organizationName: 'Readers',
        userId: org.userId,
        username: (await client.getUser({ organizationId: org.organizationId, userId: org.userId })).user.userName,
      });
      const asAlice = await server.client(aliceKey).getWhoami({ organizationId: org.organizationId });
      assert.equal(asAlice.userId, alice);
      assert.equal(asAlice.username, 'alice');
      // Stamped with her passkey (X-Stamp-WebAuthn), the same user.
      const byPasskey = new TurnkeyClient({ baseUrl: server.baseUrl }, webauthnStamperFor(phone));
      assert.equal((await byPasskey.getWhoami({ organizationId: org.organizationId })).userId, alice);
    });

    test('get_user gives the user with its usable keys, session key and passkey; no revoked or expired key', async () => {
      const { user } = await client.getUser({ organizationId: org.organizationId, userId: alice });
      assert.equal(user.userName, 'alice');
      assert.equal(user.userEmail, 'alice@example.com');
      assert.deepEqual(user.userTags, []);
      assert.deepEqual(user.oauthProviders, []);
      assert.deepEqual(
        user.apiKeys.map((k) => [k.apiKeyId, k.apiKeyName, k.credential.type, k.expirationSeconds]),
        [
          [aliceKey.apiKeyId, 'laptop', 'CREDENTIAL_TYPE_API_KEY_P256', undefined],
          [expiring.apiKeyId, 'ci', 'CREDENTIAL_TYPE_API_KEY_P256', '3600'],
          [session.id, 'session', 'CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256', '900'],
        ],
      );
      assert.equal(user.apiKeys[0]!.credential.publicKey, aliceKey.apiPublicKey);
      assert.equal(user.apiKeys[0]!.createdAt as unknown as string, user.apiKeys[0]!.updatedAt as unknown as string);
      assert.ok(!Number.isNaN(Date.parse(user.apiKeys[0]!.createdAt as unknown as string)));
      assert.equal(user.authenticators.length, 1);
      const [phone] = user.authenticators;
      assert.equal(phone!.authenticatorId, passkey.authenticatorId);
      assert.equal(phone!.credentialId, passkey.credentialId);
      assert.equal(phone!.authenticatorName, 'phone');
      assert.equal(phone!.credential.type, 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR');
      assert.match(phone!.credential.publicKey, /^[0-9a-f]+$/);
      assert.deepEqual(phone!.transports, ['AUTHENTICATOR_TRANSPORT_INTERNAL']);
    });

    test('a removed user, an unknown one and another organization\'s are 404s', async () => {
      for (const userId of [removed, randomUUID(), other.userId]) {
        await refused(client.getUser({ organizationId: org.organizationId, userId }), NOT_FOUND, /no user/);
      }
    });

    test('list_users lists the users not removed, oldest first, with their credentials', async () => {
      const { users } = await client.getUsers({ organizationId: org.organizationId });
      assert.deepEqual(users.map((u) => u.userId), [org.userId, alice]);
      assert.equal(users[1]!.apiKeys.length, 3);
      assert.equal(users[0]!.apiKeys[0]!.apiKeyId, org.apiKeyId);
    });

    test('get_api_keys lists the keys neither revoked nor expired, of the organization or of one user', async () => {
      const all = await client.getApiKeys({ organizationId: org.organizationId });
      assert.deepEqual(all.apiKeys.map((k) => k.apiKeyId), [org.apiKeyId, aliceKey.apiKeyId, expiring.apiKeyId, session.id]);
      const ofAlice = await client.getApiKeys({ organizationId: org.organizationId, userId: alice });
      assert.deepEqual(ofAlice.apiKeys.map((k) => k.apiKeyId), [aliceKey.apiKeyId, expiring.apiKeyId, session.id]);
      assert.deepEqual((await client.getApiKeys({ organizationId: org.organizationId, userId: other.userId })).apiKeys, []);
    });

    test('get_api_key answers a key of the organization, an expired one too; revoked or another organization\'s is a 404', async () => {
      const { apiKey } = await client.getApiKey({ organizationId: org.organizationId, apiKeyId: session.id });
      assert.equal(apiKey.credential.type, 'CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256');
      assert.equal(apiKey.credential.publicKey, session.publicKey);
      assert.equal((await client.getApiKey({ organizationId: org.organizationId, apiKeyId: expired })).apiKey.expirationSeconds, '3600');
      for (const apiKeyId of [revoked.apiKeyId, other.apiKeyId, randomUUID()]) {
        await refused(client.getApiKey({ organizationId: org.organizationId, apiKeyId }), NOT_FOUND, /no API key/);
      }
    });

    test('get_authenticators and get_authenticator read the passkey; another organization\'s is a 404', async () => {
      const { authenticators } = await client.getAuthenticators({ organizationId: org.organizationId, userId: alice });
      assert.deepEqual(authenticators.map((a) => a.authenticatorId), [passkey.authenticatorId]);
      assert.deepEqual((await client.getAuthenticators({ organizationId: org.organizationId, userId: org.userId })).authenticators, []);
      const { authenticator } = await client.getAuthenticator({ organizationId: org.organizationId, authenticatorId: passkey.authenticatorId });
      assert.deepEqual(authenticator, authenticators[0]);
      await refused(
        server.client(other).getAuthenticator({ organizationId: other.organizationId, authenticatorId: passkey.authenticatorId }),
        NOT_FOUND,
        /no authenticator/,
      );
    });

    test('another organization\'s id in the body is a 403, before any read', async () => {
      await refused(client.getUsers({ organizationId: other.organizationId }), PERMISSION_DENIED, /does not belong to organization/);
      await refused(client.getWhoami({ organizationId: other.organizationId }), PERMISSION_DENIED, /does not belong to organization/);
    });
  });
}
