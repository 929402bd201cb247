// stamp_login as the ecosystem's clients drive it: a session for the stamping user, stamped with an
// API key (@turnkey/sdk-server's stampLogin), with the current session key (a refresh), with a
// passkey (@turnkey/webauthn-stamper's shape), or with X-Stamp-Attested (a verification token of
// verify_otp V2 and the key it is bound to, as @turnkey/core's AttestedStamper builds it). Sessions
// are checked with @turnkey/crypto's verifySessionJwtSignature and the keys of /.well-known.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ApiKeyStamper, SignatureFormat } from '@turnkey/api-key-stamper';
import { encryptOtpCodeToBundle, generateP256KeyPair, verifySessionJwtSignature } from '@turnkey/crypto';
import { TurnkeyClient } from '@turnkey/http';
import { Turnkey } from '@turnkey/sdk-server';
import { parseStamp, stampCredential } from '../src/auth/parseStamp.ts';
import { p256PointHex } from '../src/keys/p256.ts';
import { attestedStamper } from './support/attested.ts';
import { testDatabases } from './support/databases.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';
import { startSmtpSink, type SmtpSink } from './support/smtpSink.ts';
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
    let smtp: SmtpSink;
    let server: TestServer;
    let org: Credentials;
    let keys: { sessionSignerPublicKey: string; otpEncryptionBundleSignerPublicKey: string };
    let sessionSigner: string;

    before(async () => {
      smtp = await startSmtpSink();
      server = await startTestServer(tdb, {
        SIGNET_WEBAUTHN_RP_ID: RP_ID,
        SIGNET_WEBAUTHN_ORIGINS: ORIGIN,
        SIGNET_SMTP_URL: smtp.url,
        SIGNET_EMAIL_FROM: 'otp@signet.test',
      });
      org = await server.createOrganization('Sessions');
      keys = (await (await fetch(`${server.baseUrl}/.well-known/signet-keys.json`)).json()) as typeof keys;
      sessionSigner = keys.sessionSignerPublicKey;
    });
    after(async () => {
      await server.close();
      await smtp.close();
    });

    let contacts = 0;
    /** A user of the organization with an email address, in the root quorum unless `outsider`. */
    async function userWithEmail(outsider = false): Promise<{ email: string; userId: string }> {
      const email = `person${++contacts}-${randomUUID().slice(0, 8)}@example.com`;
      const { userIds } = await sdk(org).createUsers({
        users: [{ userName: `Person ${contacts}`, userEmail: email, apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] }],
      });
      if (!outsider) await server.joinRootQuorum(org.organizationId, userIds[0]!);
      return { email, userId: userIds[0]! };
    }

    /** init_otp, the emailed code, verify_otp V2 (the code encrypted by the client): a token bound to the client's key. */
    async function verified(email: string, expirationSeconds?: string): Promise<{ verificationToken: string; clientKey: KeyPair }> {
      const client = sdk(org);
      const { otpId, otpEncryptionTargetBundle } = await client.initOtp({ otpType: 'OTP_TYPE_EMAIL', contact: email, appName: 'Sessions' });
      const code = await smtp.nextCodeTo(email);
      const clientKey = generateP256KeyPair();
      const encryptedOtpBundle = await encryptOtpCodeToBundle(code, otpEncryptionTargetBundle, clientKey.publicKey, keys.otpEncryptionBundleSignerPublicKey);
      const { verificationToken } = await client.verifyOtp({ otpId, encryptedOtpBundle, ...(expirationSeconds ? { expirationSeconds } : {}) });
      return { verificationToken, clientKey };
    }

    /** stamp_login through @turnkey/http's TurnkeyClient with `stamper`. */
    function attestedLogin(stamper: { stamp(payload: string): Promise<{ stampHeaderName: string; stampHeaderValue: string }> }, parameters: object, organizationId = org.organizationId) {
      return new TurnkeyClient({ baseUrl: server.baseUrl }, stamper as any).stampLogin(loginBody(parameters, organizationId) as any) as Promise<any>;
    }
    /** stamp_login sent by hand with `stamper`'s header: status and answer. */
    async function attestedRaw(stamper: { stamp(payload: string): Promise<{ stampHeaderName: string; stampHeaderValue: string }> }, body: object, path = '/public/v1/submit/stamp_login') {
      const text = JSON.stringify(body);
      const stamp = await stamper.stamp(text);
      return stampRaw({ [stamp.stampHeaderName]: stamp.stampHeaderValue }, text, path);
    }
    async function sessionKeysOf(userId: string): Promise<string[]> {
      const rows = await server.db.query<{ public_key: string }>("SELECT public_key FROM api_keys WHERE user_id = $1 AND kind = 'session' ORDER BY created_at", [userId]);
      return rows.map((row) => row.public_key);
    }

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
      const startedAt = server.clock.now().getTime();
      const sessionKey = generateP256KeyPair();
      const { session, activity } = (await sdk(org).stampLogin({ publicKey: sessionKey.publicKey })) as any;
      assert.equal(activity.type, 'ACTIVITY_TYPE_STAMP_LOGIN');
      assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.deepEqual(activity.intent.stampLoginIntent, { publicKey: sessionKey.publicKey, expirationSeconds: '900', invalidateExisting: false });
      assert.equal(activity.votes[0].scheme, 'SIGNATURE_SCHEME_TK_API_P256');
      assert.equal((await voteOf(activity.id)).credential_type, 'CREDENTIAL_TYPE_API_KEY_P256');
      const claims = await checkSession(session, org.userId, sessionKey.publicKey);
      assert.ok(claims.exp >= Math.floor(startedAt / 1000) + 900 && claims.exp <= Math.ceil(server.clock.now().getTime() / 1000) + 900, `exp ${claims.exp}`);

      const asSession = asKey(sessionKey);
      const whoami = await asSession.getWhoami({ organizationId: org.organizationId });
      assert.equal(whoami.userId, org.userId);
      const { user } = await asSession.getUser({ organizationId: org.organizationId, userId: org.userId });
      const listed = user.apiKeys.find((k: any) => k.credential.publicKey === sessionKey.publicKey);
      assert.equal(listed?.credential.type, 'CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256');
    });

    test('the uncompressed form of a key is kept in the session as the client wrote it, with the lifetime asked for', async () => {
      const startedAt = server.clock.now().getTime();
      const sessionKey = generateP256KeyPair();
      const { session } = await sdk(org).stampLogin({ publicKey: sessionKey.publicKeyUncompressed, expirationSeconds: '3600' });
      const claims = await checkSession(session, org.userId, sessionKey.publicKeyUncompressed);
      assert.ok(claims.exp >= Math.floor(startedAt / 1000) + 3600 && claims.exp <= Math.ceil(server.clock.now().getTime() / 1000) + 3600, `exp ${claims.exp}`);
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

    test("X-Stamp-Attested as @turnkey/core sends it: verify_otp V2's token and its key log the contact's user in, the key becoming the session key", async () => {
      const { email, userId } = await userWithEmail();
      const { verificationToken, clientKey } = await verified(email);
      const { activity } = await attestedLogin(attestedStamper(verificationToken, clientKey), { publicKey: clientKey.publicKey, expirationSeconds: '900', invalidateExisting: false });
      assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
      await checkSession(activity.result.stampLoginResult.session, userId, clientKey.publicKey);
      assert.equal(activity.votes[0].userId, userId);
      assert.equal(activity.votes[0].scheme, 'STAMP_ATTESTED_SCHEME_P256_VERIFICATION_TOKEN');
      assert.equal(activity.votes[0].publicKey, clientKey.publicKey);
      const vote = await voteOf(activity.id);
      assert.equal(vote.credential_type, 'CREDENTIAL_TYPE_OTP_AUTH_KEY_P256');
      assert.equal(vote.credential_id, claimsOf(verificationToken).id);
      assert.equal(vote.scheme, 'STAMP_ATTESTED_SCHEME_P256_VERIFICATION_TOKEN');
      assert.match(vote.signature, /^30[0-9a-f]{12,142}$/); // DER: 8 to 72 bytes
      assert.equal((await asKey(clientKey).getWhoami({ organizationId: org.organizationId })).userId, userId);

      // The token logs in once: again, with another session key, is a 401 and makes no session.
      const again = await attestedRaw(attestedStamper(verificationToken, clientKey), loginBody({ publicKey: generateP256KeyPair().publicKey }));
      assert.equal(again.status, 401, JSON.stringify(again.json));
      assert.match(again.json.message, /X-Stamp-Attested: the verification token was already used to log in/);
      assert.deepEqual(await sessionKeysOf(userId), [clientKey.publicKey]);
    });

    test("an attested login may name another session key; plain JSON is read like base64url; core's body shape", async () => {
      const { email, userId } = await userWithEmail();
      const { verificationToken, clientKey } = await verified(email);
      const sessionKey = generateP256KeyPair();
      const stamper = attestedStamper(verificationToken, clientKey);
      const plain = {
        async stamp(payload: string) {
          const { stampHeaderName, stampHeaderValue } = await stamper.stamp(payload);
          return { stampHeaderName, stampHeaderValue: Buffer.from(stampHeaderValue, 'base64url').toString('utf8') };
        },
      };
      // The body in @turnkey/core's own shape and key order.
      const coreBody = { parameters: { publicKey: sessionKey.publicKey, expirationSeconds: '900', invalidateExisting: true }, organizationId: org.organizationId, timestampMs: String(Date.now()), generateAppProofs: false, type: 'ACTIVITY_TYPE_STAMP_LOGIN' };
      const login = await attestedRaw(plain, coreBody);
      assert.equal(login.status, 200, JSON.stringify(login.json));
      await checkSession(login.json.activity.result.stampLoginResult.session, userId, sessionKey.publicKey);
      // The token's key is no credential; the session key is.
      const tokenKey = await submitWithKey({ apiPublicKey: clientKey.publicKey, apiPrivateKey: clientKey.privateKey }, { organizationId: org.organizationId }, '/public/v1/query/whoami');
      assert.equal(tokenKey.status, 401);
      assert.equal((await asKey(sessionKey).getWhoami({ organizationId: org.organizationId })).userId, userId);
    });

    test('the identical retry of an attested login whose answer was lost answers the stored activity and its session; only the token key may retry', async () => {
      const { email, userId } = await userWithEmail();
      const { verificationToken, clientKey } = await verified(email);
      const sessionKey = generateP256KeyPair();
      const body = loginBody({ publicKey: sessionKey.publicKey, expirationSeconds: '900' });
      const first = await attestedRaw(attestedStamper(verificationToken, clientKey), body);
      assert.equal(first.status, 200, JSON.stringify(first.json));
      // The answer is lost: the client sends the same body again, stamped again by the token's key.
      const retry = await attestedRaw(attestedStamper(verificationToken, clientKey), body);
      assert.equal(retry.status, 200, JSON.stringify(retry.json));
      assert.equal(retry.json.activity.id, first.json.activity.id);
      assert.equal(retry.json.activity.status, 'ACTIVITY_STATUS_COMPLETED');
      const { session } = retry.json.activity.result.stampLoginResult;
      assert.equal(session, first.json.activity.result.stampLoginResult.session);
      await checkSession(session, userId, sessionKey.publicKey);
      assert.equal((await asKey(sessionKey).getWhoami({ organizationId: org.organizationId })).userId, userId);
      // Through @turnkey/http too, the same body's bytes.
      const client = new TurnkeyClient({ baseUrl: server.baseUrl }, attestedStamper(verificationToken, clientKey) as any);
      const again = (await client.stampLogin(body as any)) as any;
      assert.equal(again.activity.id, first.json.activity.id);

      // The same body stamped by another key is no retry: that key is not the token's.
      const stranger = await attestedRaw(attestedStamper(verificationToken, generateP256KeyPair()), body);
      assert.equal(stranger.status, 401, JSON.stringify(stranger.json));
      assert.match(stranger.json.message, /is not the key the verification token is bound to/);
      // Another body with the used token is still refused.
      const other = await attestedRaw(attestedStamper(verificationToken, clientKey), loginBody({ publicKey: generateP256KeyPair().publicKey }));
      assert.equal(other.status, 401, JSON.stringify(other.json));
      assert.equal(other.json.details[0].turnkeyErrorCode, 'VERIFICATION_TOKEN_USED');
      assert.deepEqual(await sessionKeysOf(userId), [sessionKey.publicKey]);
    });

    test('two logins with one token at once: exactly one session', async () => {
      const { email, userId } = await userWithEmail();
      const { verificationToken, clientKey } = await verified(email);
      const sessionKeys = [generateP256KeyPair(), generateP256KeyPair(), generateP256KeyPair()];
      const answers = await Promise.all(sessionKeys.map((key) => attestedRaw(attestedStamper(verificationToken, clientKey), loginBody({ publicKey: key.publicKey }))));
      assert.deepEqual(answers.map((a) => a.status).sort(), [200, 401, 401], JSON.stringify(answers.map((a) => a.json)));
      for (const refused of answers.filter((a) => a.status === 401)) assert.match(refused.json.message, /already used to log in/);
      assert.equal((await sessionKeysOf(userId)).length, 1);
    });

    test('refused with 401, no session made: a wrong key, a bad signature, an expired token, a forged token, a malformed header', async () => {
      const { email, userId } = await userWithEmail();
      const { verificationToken, clientKey } = await verified(email);
      const body = () => loginBody({ publicKey: clientKey.publicKey });
      const refused = async (stamper: Parameters<typeof attestedRaw>[0], pattern: RegExp, status = 401) => {
        const answer = await attestedRaw(stamper, body());
        assert.equal(answer.status, status, JSON.stringify(answer.json));
        assert.match(answer.json.message, pattern);
      };

      // Another key, signing correctly for itself: not the key the token is bound to.
      await refused(attestedStamper(verificationToken, generateP256KeyPair()), /X-Stamp-Attested publicKey \S+ is not the key the verification token is bound to/);
      // The right key named, signed by another.
      const other = new ApiKeyStamper({ ...(() => { const k = generateP256KeyPair(); return { apiPublicKey: k.publicKey, apiPrivateKey: k.privateKey }; })() });
      await refused(attestedStamper(verificationToken, clientKey, { sign: (p) => other.sign(p, SignatureFormat.Der) }), /X-Stamp-Attested: stamp signature does not verify/);
      // A signature over other bytes than the body.
      const own = new ApiKeyStamper({ apiPublicKey: clientKey.publicKey, apiPrivateKey: clientKey.privateKey });
      await refused(attestedStamper(verificationToken, clientKey, { sign: (p) => own.sign(`${p} `, SignatureFormat.Der) }), /does not verify/);
      // Raw r‖s is not DER.
      await refused(attestedStamper(verificationToken, clientKey, { sign: (p) => own.sign(p, SignatureFormat.Raw) }), /X-Stamp-Attested: stamp signature is not a strict DER/);
      // A token changed after signing.
      const [h, p, sig] = verificationToken.split('.');
      const changed = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), contact: 'root@example.com' })).toString('base64url');
      await refused(attestedStamper(`${h}.${changed}.${sig}`, clientKey), /publicKeyAttestation: the verification token signature does not verify/);
      // Headers that are not a stamp.
      await refused({ stamp: async () => ({ stampHeaderName: 'X-Stamp-Attested', stampHeaderValue: 'not json' }) }, /X-Stamp-Attested is neither a JSON object/);
      const withScheme = (scheme: string) => ({
        stamp: async (payload: string) => {
          const real = JSON.parse(Buffer.from((await attestedStamper(verificationToken, clientKey).stamp(payload)).stampHeaderValue, 'base64url').toString());
          return { stampHeaderName: 'X-Stamp-Attested', stampHeaderValue: JSON.stringify({ ...real, scheme }) };
        },
      });
      await refused(withScheme('STAMP_ATTESTED_SCHEME_P256_OIDC'), /scheme must be "STAMP_ATTESTED_SCHEME_P256_VERIFICATION_TOKEN"/);
      // A stamp key of the right form that is not a point on the curve: 401 STAMP_MALFORMED, never a 500.
      const uncompressed = p256PointHex(clientKey.publicKey)!.uncompressed;
      const flippedY = `${uncompressed.slice(0, 128)}${(parseInt(uncompressed.slice(128), 16) ^ 1).toString(16).padStart(2, '0')}`;
      let x = 1n;
      while (p256PointHex(`02${x.toString(16).padStart(64, '0')}`)) x++;
      const offCurve = [flippedY, `02${x.toString(16).padStart(64, '0')}`, `03${'f'.repeat(64)}`, `04${'f'.repeat(128)}`, `04${'0'.repeat(128)}`];
      for (const publicKey of offCurve) {
        assert.equal(p256PointHex(publicKey), undefined, publicKey);
        const answer = await attestedRaw(attestedStamper(verificationToken, clientKey, { publicKey }), body());
        assert.equal(answer.status, 401, `${publicKey}: ${JSON.stringify(answer.json)}`);
        assert.equal(answer.json.details[0].turnkeyErrorCode, 'STAMP_MALFORMED', publicKey);
        assert.match(answer.json.message, /X-Stamp-Attested publicKey is not a point on the P-256 curve/);
      }
      assert.deepEqual(await sessionKeysOf(userId), []);

      // The token still logs in once, after all that: with its key spelt uncompressed, the same key.
      const spelt = await attestedRaw(attestedStamper(verificationToken, clientKey, { publicKey: uncompressed.toUpperCase() }), body());
      assert.equal(spelt.status, 200, JSON.stringify(spelt.json));

      // An expired token.
      const short = await verified(email, '1');
      server.clock.advance(1100);
      const expired = await attestedRaw(attestedStamper(short.verificationToken, short.clientKey), loginBody({ publicKey: short.clientKey.publicKey }));
      assert.equal(expired.status, 401);
      assert.match(expired.json.message, /X-Stamp-Attested publicKeyAttestation: the verification token has expired/);
    });

    test('an attested stamp is for stamp_login only, of the organization the token was issued in', async () => {
      const { email } = await userWithEmail();
      const { verificationToken, clientKey } = await verified(email);
      const stamper = attestedStamper(verificationToken, clientKey);
      const query = await attestedRaw(stamper, { organizationId: org.organizationId }, '/public/v1/query/whoami');
      assert.equal(query.status, 401);
      assert.match(query.json.message, /X-Stamp-Attested is accepted by stamp_login only/);
      const write = await attestedRaw(
        stamper,
        { type: 'ACTIVITY_TYPE_CREATE_USERS_V4', timestampMs: String(Date.now()), organizationId: org.organizationId, parameters: { users: [] } },
        '/public/v1/submit/create_users',
      );
      assert.equal(write.status, 401);
      assert.match(write.json.message, /accepted by stamp_login only/);
      const both = await stampRaw(
        { 'X-Stamp-Attested': (await stamper.stamp('{}')).stampHeaderValue, 'X-Stamp': (await new ApiKeyStamper(org).stamp('{}')).stampHeaderValue },
        JSON.stringify(loginBody({ publicKey: clientKey.publicKey })),
      );
      assert.equal(both.status, 401);
      assert.match(both.json.message, /two stamps/);

      const elsewhere = await server.createOrganization('Elsewhere');
      const foreign = await attestedRaw(stamper, loginBody({ publicKey: clientKey.publicKey }, elsewhere.organizationId));
      assert.equal(foreign.status, 403, JSON.stringify(foreign.json));
      assert.match(foreign.json.message, /the verification token was issued in organization/);
      // None of these used the token.
      assert.equal((await attestedRaw(stamper, loginBody({ publicKey: clientKey.publicKey }))).status, 200);
    });

    test('an attested user no policy allows is refused with 403, the token kept; a policy allowing its logins lets it in', async () => {
      const { email, userId } = await userWithEmail(true);
      const { verificationToken, clientKey } = await verified(email);
      const refused = await attestedRaw(attestedStamper(verificationToken, clientKey), loginBody({ publicKey: clientKey.publicKey }));
      assert.equal(refused.status, 403, JSON.stringify(refused.json));
      assert.match(refused.json.message, new RegExp(`ACTIVITY_TYPE_STAMP_LOGIN is not allowed for user ${userId}`));
      assert.deepEqual(await sessionKeysOf(userId), []);

      await sdk(org).createPolicy({
        policyName: `OTP logins of ${userId}`,
        effect: 'EFFECT_ALLOW',
        condition: "activity.type == 'ACTIVITY_TYPE_STAMP_LOGIN'",
        consensus: `approvers.any(user, user.id == '${userId}') && credentials.any(c, c.type == 'CREDENTIAL_TYPE_OTP_AUTH_KEY_P256')`,
        notes: '',
      });
      const { activity } = await attestedLogin(attestedStamper(verificationToken, clientKey), { publicKey: clientKey.publicKey });
      await checkSession(activity.result.stampLoginResult.session, userId, clientKey.publicKey);
    });

    test('a login that would need more approvals is refused with 403 and nothing is stored: it never waits', async () => {
      const quorum = await server.createOrganization('Two roots');
      const second = generateP256KeyPair();
      const { userIds } = await new Turnkey({ apiBaseUrl: server.baseUrl, apiPublicKey: quorum.apiPublicKey, apiPrivateKey: quorum.apiPrivateKey, defaultOrganizationId: quorum.organizationId })
        .apiClient()
        .createUsers({ users: [{ userName: 'Second root', apiKeys: [{ apiKeyName: 'k', publicKey: second.publicKey, curveType: 'API_KEY_CURVE_P256' }], authenticators: [], oauthProviders: [], userTags: [] }] });
      await server.admin('PUT', `/organizations/${quorum.organizationId}/root-quorum`, { threshold: 2, userIds: [quorum.userId, userIds[0]] });
      const sessionKey = generateP256KeyPair();
      const refused = await submitWithKey(quorum, loginBody({ publicKey: sessionKey.publicKey }, quorum.organizationId));
      assert.equal(refused.status, 403, JSON.stringify(refused.json));
      assert.match(refused.json.message, /ACTIVITY_TYPE_STAMP_LOGIN needs more approvals, and it cannot wait for them/);
      const stored = await server.db.query("SELECT 1 FROM activities WHERE organization_id = $1 AND type = 'ACTIVITY_TYPE_STAMP_LOGIN'", [quorum.organizationId]);
      assert.equal(stored.length, 0);
    });

    test('a token otp_login used cannot log in again with an attested stamp', async () => {
      const { email, userId } = await userWithEmail();
      const { verificationToken, clientKey } = await verified(email);
      const message = JSON.stringify({ login: { publicKey: clientKey.publicKey }, tokenId: claimsOf(verificationToken).id, type: 'USAGE_TYPE_LOGIN' });
      const signature = await new ApiKeyStamper({ apiPublicKey: clientKey.publicKey, apiPrivateKey: clientKey.privateKey }).sign(message, SignatureFormat.Raw);
      await sdk(org).otpLogin({ verificationToken, publicKey: clientKey.publicKey, clientSignature: { publicKey: clientKey.publicKey, scheme: 'CLIENT_SIGNATURE_SCHEME_API_P256', message, signature } });
      const again = await attestedRaw(attestedStamper(verificationToken, clientKey), loginBody({ publicKey: generateP256KeyPair().publicKey }));
      assert.equal(again.status, 401, JSON.stringify(again.json));
      assert.match(again.json.message, /already used to log in/);
      assert.deepEqual(await sessionKeysOf(userId), [clientKey.publicKey]);
    });
  });
}

describe('X-Stamp-Attested, as parseStamp reads it', () => {
  const key = generateP256KeyPair();
  const valid = { publicKeyAttestation: 'a.b.c', scheme: 'STAMP_ATTESTED_SCHEME_P256_VERIFICATION_TOKEN', publicKey: key.publicKey, signature: '3006020101020101' };
  const header = (value: object) => ({ 'x-stamp-attested': Buffer.from(JSON.stringify(value)).toString('base64url') });
  const refused = (pattern: RegExp) => (error: any) => error.status === 401 && pattern.test(error.message);

  test('read on the routes that take it, as @turnkey/core sends it; refused on the others', () => {
    assert.deepEqual(parseStamp(header(valid), { attested: true }), { kind: 'attested', ...valid });
    assert.throws(() => parseStamp(header(valid)), refused(/^X-Stamp-Attested is accepted by stamp_login only/));
    assert.equal(stampCredential(header(valid)), key.publicKey);
    assert.throws(() => parseStamp({}, { attested: true }), refused(/^missing stamp: send X-Stamp or X-Stamp-WebAuthn \(or X-Stamp-Attested\)$/));
  });

  test('every field checked, each refusal naming it', () => {
    const { signature: _signature, ...missing } = valid;
    assert.throws(() => parseStamp(header(missing), { attested: true }), refused(/X-Stamp-Attested is missing signature/));
    assert.throws(() => parseStamp(header({ ...valid, extra: 1 }), { attested: true }), refused(/unknown field "extra"/));
    assert.throws(() => parseStamp(header({ ...valid, publicKey: '02ab' }), { attested: true }), refused(/X-Stamp-Attested publicKey must be a P-256 public key/));
    assert.throws(() => parseStamp(header({ ...valid, signature: 'xyz' }), { attested: true }), refused(/X-Stamp-Attested signature must be a DER-encoded/));
    assert.throws(() => parseStamp(header({ ...valid, publicKeyAttestation: '' }), { attested: true }), refused(/publicKeyAttestation must be the verificationToken/));
    assert.throws(() => parseStamp(header({ ...valid, scheme: 'SIGNATURE_SCHEME_TK_API_P256' }), { attested: true }), refused(/scheme must be "STAMP_ATTESTED_SCHEME_P256_VERIFICATION_TOKEN"/));
    assert.throws(() => parseStamp(header({ ...valid, publicKey: 1 }), { attested: true }), refused(/publicKey must be a string/));
  });
});
