// stamp_login as the ecosystem's clients drive it: a session for the stamping user, stamped with an
// API key (@turnkey/sdk-server's stampLogin), with the current session key (a refresh), with a
// passkey (@turnkey/webauthn-stamper's shape), or with X-Stamp-Attested (a verification token of
// verify_otp V2 and the key it is bound to, as @turnkey/core's AttestedStamper builds it). Sessions
// are checked with @turnkey/crypto's verifySessionJwtSignature and the keys of /.well-known.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { generateP256KeyPair, verifySessionJwtSignature } from '@turnkey/crypto';
import { TurnkeyClient } from '@turnkey/http';
import { Turnkey } from '@turnkey/sdk-server';
import { testDatabases } from './support/databases.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';
import { createSoftwareAuthenticator, webauthnStamperFor } from './support/softwareAuthenticator.ts';

const RP_ID = 'wallet.example';
const ORIGIN = 'https://wallet.example';

type KeyPair = ReturnType<typeof generateP256KeyPair>;

/** A JWT's payload, decoded as the clients decode it. */
function claimsOf(jwt: string): Record<string, any> {
  return JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8'));
}

for (const tdb of testDatabases) {
  describe(`stamp_login (${tdb.name})`, () => {
    let server: TestServer;
    let org: Credentials;
    let sessionSigner: string;

    before(async () => {
      server = await startTestServer(tdb, { SIGNET_WEBAUTHN_RP_ID: RP_ID, SIGNET_WEBAUTHN_ORIGINS: ORIGIN });
      org = await server.createOrganization('Sessions');
      sessionSigner = ((await (await fetch(`${server.baseUrl}/.well-known/signet-keys.json`)).json()) as { sessionSignerPublicKey: string }).sessionSignerPublicKey;
    });
    after(() => server.close());

    /** The server-side SDK stamping with `credentials` (an API key or a session key). */
    function sdk(credentials: { apiPublicKey: string; apiPrivateKey: string }) {
      return new Turnkey({ apiBaseUrl: server.baseUrl, ...credentials, defaultOrganizationId: org.organizationId }).apiClient();
    }
    const asKey = (key: KeyPair) => sdk({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey });

    async function stampRaw(headers: Record<string, string>, body: string, path = '/public/v1/submit/stamp_login') {
      const response = await fetch(`${server.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
      return { status: response.status, json: (await response.json()) as any };
    }
    async function submitWithKey(key: { apiPublicKey: string; apiPrivateKey: string }, body: object, path = '/public/v1/submit/stamp_login') {
      const text = JSON.stringify(body);
      const stamp = await new ApiKeyStamper(key).stamp(text);
      return stampRaw({ [stamp.stampHeaderName]: stamp.stampHeaderValue }, text, path);
    }
    function loginBody(parameters: object, organizationId = org.organizationId) {
      return { type: 'ACTIVITY_TYPE_STAMP_LOGIN', timestampMs: String(Date.now()), organizationId, parameters };
    }

    /** The stamp the submitter's vote recorded, as policies see it. */
    async function voteOf(activityId: string) {
      const [vote] = await server.db.query<{ scheme: string; credential_type: string; credential_id: string; public_key: string; signature: string }>(
        'SELECT scheme, credential_type, credential_id, public_key, signature FROM votes WHERE activity_id = $1',
        [activityId],
      );
      return vote!;
    }

    async function checkSession(session: string, userId: string, publicKey: string) {
      assert.equal(await verifySessionJwtSignature(session, sessionSigner), true);
      const claims = claimsOf(session);
      assert.equal(claims.user_id, userId);
      assert.equal(claims.organization_id, org.organizationId);
      assert.equal(claims.public_key, publicKey);
      assert.equal(claims.session_type, 'SESSION_TYPE_READ_WRITE');
      return claims;
    }

    test('an API key logs its user in: the session verifies, and its key stamps whoami and get_user as the user', async () => {
      const sessionKey = generateP256KeyPair();
      const { session, activity } = (await sdk(org).stampLogin({ publicKey: sessionKey.publicKey })) as any;
      assert.equal(activity.type, 'ACTIVITY_TYPE_STAMP_LOGIN');
      assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.deepEqual(activity.intent.stampLoginIntent, { publicKey: sessionKey.publicKey, expirationSeconds: '900', invalidateExisting: false });
      assert.equal(activity.votes[0].scheme, 'SIGNATURE_SCHEME_TK_API_P256');
      assert.equal((await voteOf(activity.id)).credential_type, 'CREDENTIAL_TYPE_API_KEY_P256');
      const claims = await checkSession(session, org.userId, sessionKey.publicKey);
      assert.ok(Math.abs(claims.exp - (Date.now() / 1000 + 900)) < 60, `exp ${claims.exp}`);

      const asSession = asKey(sessionKey);
      const whoami = await asSession.getWhoami({ organizationId: org.organizationId });
      assert.equal(whoami.userId, org.userId);
      const { user } = await asSession.getUser({ organizationId: org.organizationId, userId: org.userId });
      const listed = user.apiKeys.find((k: any) => k.credential.publicKey === sessionKey.publicKey);
      assert.equal(listed?.credential.type, 'CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256');
    });

    test('the uncompressed form of a key is kept in the session as the client wrote it, with the lifetime asked for', async () => {
      const sessionKey = generateP256KeyPair();
      const { session } = await sdk(org).stampLogin({ publicKey: sessionKey.publicKeyUncompressed, expirationSeconds: '3600' });
      const claims = await checkSession(session, org.userId, sessionKey.publicKeyUncompressed);
      assert.ok(Math.abs(claims.exp - (Date.now() / 1000 + 3600)) < 60, `exp ${claims.exp}`);
      assert.equal((await asKey(sessionKey).getWhoami({ organizationId: org.organizationId })).userId, org.userId);
    });

    test('refresh: stamp_login stamped with the session key gives a new session; the vote records the session key', async () => {
      const first = generateP256KeyPair();
      await sdk(org).stampLogin({ publicKey: first.publicKey });
      const second = generateP256KeyPair();
      const { session, activity } = (await asKey(first).stampLogin({ publicKey: second.publicKey, expirationSeconds: '1800' })) as any;
      await checkSession(session, org.userId, second.publicKey);
      assert.equal((await voteOf(activity.id)).credential_type, 'CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256');
      assert.equal((await asKey(second).getWhoami({ organizationId: org.organizationId })).userId, org.userId);
      // Without invalidateExisting the first session goes on.
      assert.equal((await asKey(first).getWhoami({ organizationId: org.organizationId })).userId, org.userId);
    });

    test("invalidateExisting ends the user's other session keys at once, never its API keys", async () => {
      const old1 = generateP256KeyPair();
      const old2 = generateP256KeyPair();
      await sdk(org).stampLogin({ publicKey: old1.publicKey });
      await asKey(old1).stampLogin({ publicKey: old2.publicKey });
      const fresh = generateP256KeyPair();
      const { session } = await asKey(old2).stampLogin({ publicKey: fresh.publicKey, invalidateExisting: true });
      await checkSession(session, org.userId, fresh.publicKey);
      for (const ended of [old1, old2]) {
        const refused = await submitWithKey({ apiPublicKey: ended.publicKey, apiPrivateKey: ended.privateKey }, { organizationId: org.organizationId }, '/public/v1/query/whoami');
        assert.equal(refused.status, 401, JSON.stringify(refused.json));
        assert.match(refused.json.message, /session/);
      }
      assert.equal((await asKey(fresh).getWhoami({ organizationId: org.organizationId })).userId, org.userId);
      assert.equal((await sdk(org).getWhoami({ organizationId: org.organizationId })).userId, org.userId);
    });

    test('a passkey logs its user in (X-Stamp-WebAuthn); the vote records the passkey', async () => {
      const authenticator = createSoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN });
      const challenge = randomBytes(32).toString('base64url');
      await server.admin('POST', `/organizations/${org.organizationId}/users/${org.userId}/authenticators`, {
        name: 'laptop passkey',
        challenge,
        attestation: authenticator.register(challenge),
      });
      const client = new TurnkeyClient({ baseUrl: server.baseUrl }, webauthnStamperFor(authenticator) as any);
      const sessionKey = generateP256KeyPair();
      const { activity } = (await client.stampLogin(loginBody({ publicKey: sessionKey.publicKey }) as any)) as any;
      assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.equal(activity.votes[0].scheme, 'SIGNATURE_SCHEME_WEBAUTHN');
      assert.equal((await voteOf(activity.id)).credential_type, 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR');
      await checkSession(activity.result.stampLoginResult.session, org.userId, sessionKey.publicKey);
      assert.equal((await asKey(sessionKey).getWhoami({ organizationId: org.organizationId })).userId, org.userId);
    });

    test('refusals: a key the organization has, a session profile, a bad lifetime (400); a user no policy allows (403)', async () => {
      const taken = await submitWithKey(org, loginBody({ publicKey: org.apiPublicKey }));
      assert.equal(taken.status, 400, JSON.stringify(taken.json));
      assert.match(taken.json.message, /parameters\.publicKey.*already a key of this organization/);
      const profile = await submitWithKey(org, loginBody({ publicKey: generateP256KeyPair().publicKey, sessionProfileId: 'p' }));
      assert.equal(profile.status, 400);
      assert.match(profile.json.message, /sessionProfileId/);
      const lifetime = await submitWithKey(org, loginBody({ publicKey: generateP256KeyPair().publicKey, expirationSeconds: '2592001' }));
      assert.equal(lifetime.status, 400);
      assert.match(lifetime.json.message, /expirationSeconds/);

      // A user outside the root quorum: refused until a policy allows its logins.
      const userKey = generateP256KeyPair();
      const { userIds } = await sdk(org).createUsers({
        users: [{ userName: `Outsider ${randomUUID().slice(0, 6)}`, apiKeys: [{ apiKeyName: 'k', publicKey: userKey.publicKey, curveType: 'API_KEY_CURVE_P256' }], authenticators: [], oauthProviders: [], userTags: [] }],
      });
      const sessionKey = generateP256KeyPair();
      const refused = await submitWithKey({ apiPublicKey: userKey.publicKey, apiPrivateKey: userKey.privateKey }, loginBody({ publicKey: sessionKey.publicKey }));
      assert.equal(refused.status, 403, JSON.stringify(refused.json));
      assert.match(refused.json.message, new RegExp(`ACTIVITY_TYPE_STAMP_LOGIN is not allowed for user ${userIds[0]}`));
      const none = await server.db.query('SELECT 1 FROM api_keys WHERE public_key = $1', [sessionKey.publicKey]);
      assert.equal(none.length, 0);

      await sdk(org).createPolicy({
        policyName: `logins of ${userIds[0]}`,
        effect: 'EFFECT_ALLOW',
        condition: "activity.type == 'ACTIVITY_TYPE_STAMP_LOGIN'",
        consensus: `approvers.any(user, user.id == '${userIds[0]}')`,
        notes: '',
      });
      const { session } = await asKey(userKey).stampLogin({ publicKey: sessionKey.publicKey });
      await checkSession(session, userIds[0]!, sessionKey.publicKey);
    });
  });
}
