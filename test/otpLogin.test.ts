// The whole OTP login as the ecosystem's unmodified clients drive it (issue 10): init_otp → the
// emailed code → verify_otp V2 with @turnkey/crypto's encryptOtpCodeToBundle → otp_login with a
// client signature → requests stamped with the session key; through @turnkey/sdk-server's
// apiClient() and through @turnkey/http's TurnkeyClient, and everything Signet signs checked by
// @turnkey/crypto's own verifiers given the keys of /.well-known/signet-keys.json.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ApiKeyStamper, SignatureFormat } from '@turnkey/api-key-stamper';
import {
  encryptOtpCodeToBundle,
  generateP256KeyPair,
  verifyAppProofSignature,
  verifyOtpVerificationToken,
  verifySessionJwtSignature,
} from '@turnkey/crypto';
import { TurnkeyClient } from '@turnkey/http';
import { Turnkey } from '@turnkey/sdk-server';
import { appProofProblems } from '../src/activities/lifecycle/appProofs.ts';
import { startServer } from '../src/server.ts';
import { testDatabases } from './support/databases.ts';
import { signet } from './support/processes.ts';
import { ADMIN_TOKEN, startTestServer, type Credentials, type TestServer } from './support/server.ts';
import { startSmtpSink, type SmtpSink } from './support/smtpSink.ts';
import { until } from './support/until.ts';

/** The default SMS shows the code in two groups (`30FM-DAGXE`); it is encrypted as it reads. */
const SMS_CODE = /^([0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{5}) is your /;

interface SignerKeys {
  otpEncryptionBundleSignerPublicKey: string;
  verificationTokenSignerPublicKey: string;
  sessionSignerPublicKey: string;
  appProofSignerPublicKey: string;
  enclaveSignerPublicKey: string;
}

type KeyPair = ReturnType<typeof generateP256KeyPair>;

/** A JWT's payload, decoded as the clients decode it. */
function claimsOf(jwt: string): Record<string, any> {
  return JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8'));
}

/**
 * What @turnkey/core's getClientSignatureMessageForLogin builds: the session key, the
 * token's id and the usage, in this key order; signed by the key the token is bound to.
 */
async function clientSignature(verificationToken: string, tokenKey: KeyPair, sessionPublicKey: string, format = SignatureFormat.Raw) {
  const message = JSON.stringify({ login: { publicKey: sessionPublicKey }, tokenId: claimsOf(verificationToken).id, type: 'USAGE_TYPE_LOGIN' });
  const signature = await new ApiKeyStamper({ apiPublicKey: tokenKey.publicKey, apiPrivateKey: tokenKey.privateKey }).sign(message, format);
  return { publicKey: tokenKey.publicKey, scheme: 'CLIENT_SIGNATURE_SCHEME_API_P256' as const, message, signature };
}

for (const tdb of testDatabases) {
  describe(`OTP login with the ecosystem's clients (${tdb.name})`, () => {
    let smtp: SmtpSink;
    let server: TestServer;
    let org: Credentials;
    let keys: SignerKeys;
    let contacts = 0;

    before(async () => {
      smtp = await startSmtpSink();
      server = await startTestServer(tdb, { SIGNET_SMTP_URL: smtp.url, SIGNET_EMAIL_FROM: 'otp@signet.test' });
      org = await server.createOrganization('Acme');
      keys = (await (await fetch(`${server.baseUrl}/.well-known/signet-keys.json`)).json()) as SignerKeys;
    });
    after(async () => {
      await server.close();
      await smtp.close();
    });

    /** The server-side SDK as an app's backend holds it: the organization's API key. */
    function sdkServer(credentials: Pick<Credentials, 'apiPublicKey' | 'apiPrivateKey' | 'organizationId'> = org) {
      return new Turnkey({
        apiBaseUrl: server.baseUrl,
        apiPublicKey: credentials.apiPublicKey,
        apiPrivateKey: credentials.apiPrivateKey,
        defaultOrganizationId: credentials.organizationId,
      }).apiClient();
    }

    async function newUserEmail(): Promise<{ email: string; userId: string }> {
      const email = `person${++contacts}-${randomUUID().slice(0, 8)}@example.com`;
      const { userIds } = await sdkServer().createUsers({
        users: [{ userName: `Person ${contacts}`, userEmail: email, apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] }],
      });
      assert.equal(userIds.length, 1);
      return { email, userId: userIds[0]! };
    }


    /** init_otp and verify_otp V2 through sdk-server, the client encrypting the code: the token and the client's key. */
    async function verified(email: string, expirationSeconds?: string): Promise<{ verificationToken: string; clientKey: KeyPair; otpId: string }> {
      const client = sdkServer();
      const { otpId, otpEncryptionTargetBundle } = await client.initOtp({ otpType: 'OTP_TYPE_EMAIL', contact: email, appName: 'Acme Wallet' });
      const clientKey = generateP256KeyPair();
      const encryptedOtpBundle = await encryptOtpCodeToBundle(await smtp.nextCodeTo(email), otpEncryptionTargetBundle, clientKey.publicKey, keys.otpEncryptionBundleSignerPublicKey);
      const { verificationToken } = await client.verifyOtp({ otpId, encryptedOtpBundle, ...(expirationSeconds ? { expirationSeconds } : {}) });
      return { verificationToken, clientKey, otpId };
    }

    async function submitRaw(path: string, body: object, credentials: { apiPublicKey: string; apiPrivateKey: string } = org) {
      const text = JSON.stringify(body);
      const stamp = await new ApiKeyStamper(credentials).stamp(text);
      const response = await fetch(`${server.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [stamp.stampHeaderName]: stamp.stampHeaderValue },
        body: text,
      });
      return { status: response.status, retryAfter: response.headers.get('retry-after'), json: (await response.json()) as any };
    }

    function loginBody(parameters: object, type = 'ACTIVITY_TYPE_OTP_LOGIN_V2') {
      return { type, timestampMs: String(Date.now()), organizationId: org.organizationId, parameters };
    }

    test('signet-keys.json publishes five distinct uncompressed P-256 keys, the same on every read', async () => {
      assert.deepEqual(Object.keys(keys).sort(), [
        'appProofSignerPublicKey',
        'enclaveSignerPublicKey',
        'otpEncryptionBundleSignerPublicKey',
        'sessionSignerPublicKey',
        'verificationTokenSignerPublicKey',
      ]);
      for (const key of Object.values(keys)) assert.match(key, /^04[0-9a-f]{128}$/);
      assert.equal(new Set(Object.values(keys)).size, 5);
      assert.deepEqual(await (await fetch(`${server.baseUrl}/.well-known/signet-keys.json`)).json(), keys);
      // Another process on the same store publishes, and signs with, the same keys.
      const second = await startServer({ ...server.config, outboxWorker: false }, { db: server.db });
      try {
        assert.deepEqual(await (await fetch(`${second.url}/.well-known/signet-keys.json`)).json(), keys);
      } finally {
        await second.close();
      }
    });

    test('@turnkey/sdk-server: initOtp, the emailed code, verifyOtp, otpLogin, then the session key stamps requests', async () => {
      const startedAt = server.clock.now().getTime();
      const { email, userId } = await newUserEmail();
      const { verificationToken, clientKey } = await verified(email);

      const claims = await verifyOtpVerificationToken(verificationToken, keys.verificationTokenSignerPublicKey);
      assert.equal(claims.contact, email);
      assert.equal(claims.verification_type, 'OTP_TYPE_EMAIL');
      assert.equal(claims.organization_id, org.organizationId);
      assert.equal(claims.public_key, clientKey.publicKey);
      // Signed by Signet, not the hosted service: without Signet's key the library refuses it.
      await assert.rejects(verifyOtpVerificationToken(verificationToken));

      const { session } = await sdkServer().otpLogin({
        verificationToken,
        publicKey: clientKey.publicKey,
        clientSignature: await clientSignature(verificationToken, clientKey, clientKey.publicKey),
      });
      assert.equal(await verifySessionJwtSignature(session, keys.sessionSignerPublicKey), true);
      assert.equal(await verifySessionJwtSignature(session), false);
      const sessionClaims = claimsOf(session);
      assert.equal(sessionClaims.user_id, userId);
      assert.equal(sessionClaims.organization_id, org.organizationId);
      assert.equal(sessionClaims.public_key, clientKey.publicKey);
      assert.equal(sessionClaims.session_type, 'SESSION_TYPE_READ_WRITE');
      assert.ok(sessionClaims.exp >= Math.floor(startedAt / 1000) + 900 && sessionClaims.exp <= Math.ceil(server.clock.now().getTime() / 1000) + 900, `exp ${sessionClaims.exp}`);

      // The client now stamps with the session key, as an API key of the user.
      const asUser = sdkServer({ apiPublicKey: clientKey.publicKey, apiPrivateKey: clientKey.privateKey, organizationId: org.organizationId });
      const { activities } = await asUser.getActivities({ filterByType: ['ACTIVITY_TYPE_OTP_LOGIN_V2'] });
      assert.equal(activities.length >= 1, true);
      // It writes as the user: a user outside the root quorum, with no policy allowing the write,
      // is refused (the refusal names the session's user), and nothing is stored.
      await assert.rejects(
        asUser.createSmartContractInterface({
          smartContractAddress: '0x0000000000000000000000000000000000000001',
          smartContractInterface: JSON.stringify([{ type: 'function', name: 'ping', inputs: [], outputs: [], stateMutability: 'view' }]),
          type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
          label: 'made in a session',
        }),
        (error: any) => {
          assert.equal(error.code, 7);
          assert.match(error.message, new RegExp(`ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE is not allowed for user ${userId}: .*\\(implicit deny\\)`));
          assert.deepEqual(error.details, [{ '@type': 'type.googleapis.com/errors.v1.TurnkeyErrorDetail', turnkeyErrorCode: 'REQUEST_NOT_AUTHORIZED' }]);
          return true;
        },
      );
      const { smartContractInterfaces } = await asUser.getSmartContractInterfaces({ organizationId: org.organizationId });
      assert.deepEqual(smartContractInterfaces.filter((made: any) => made.label === 'made in a session'), []);

      // An operator sees the session among the user's API keys, as a session key ending with it.
      const listed = await signet(['apikey', 'list', '--org', org.organizationId, '--user', userId, '--json'], {
        SIGNET_URL: server.baseUrl,
        SIGNET_ADMIN_TOKEN: ADMIN_TOKEN,
      });
      assert.equal(listed.code, 0, listed.stderr);
      const [sessionKey, ...others] = JSON.parse(listed.stdout);
      assert.deepEqual(others, []);
      assert.equal(sessionKey.kind, 'session');
      assert.equal(sessionKey.revokedAt, null);
      assert.equal(Math.floor(Date.parse(sessionKey.expiresAt) / 1000), sessionClaims.exp);
      const text = await signet(['apikey', 'list', '--org', org.organizationId, '--user', userId], { SIGNET_URL: server.baseUrl, SIGNET_ADMIN_TOKEN: ADMIN_TOKEN });
      assert.match(text.stdout, new RegExp(`^API KEY ID +CREATED +KIND +STATE +USER ID +PUBLIC KEY +NAME\\n${sessionKey.apiKeyId}  \\S+  session  active  ${userId}  ${sessionKey.publicKey}  `));

      // The token logs in once.
      await assert.rejects(
        sdkServer().otpLogin({ verificationToken, publicKey: clientKey.publicKey, clientSignature: await clientSignature(verificationToken, clientKey, clientKey.publicKey) }),
        /already used to log in/,
      );
    });

    test('@turnkey/http: the same flow with TurnkeyClient, App Proofs verified by verifyAppProofSignature', async () => {
      const startedAt = server.clock.now().getTime();
      const { email, userId } = await newUserEmail();
      const client = server.client(org);
      const envelope = (type: string, parameters: object, generateAppProofs = false) => ({
        type,
        timestampMs: String(Date.now()),
        organizationId: org.organizationId,
        parameters,
        ...(generateAppProofs ? { generateAppProofs } : {}),
      });
      const init = (await client.initOtp(envelope('ACTIVITY_TYPE_INIT_OTP_V3', { otpType: 'OTP_TYPE_EMAIL', contact: email, appName: 'Acme Wallet' }, true) as any)) as any;
      const { otpId, otpEncryptionTargetBundle } = init.activity.result.initOtpResultV2;
      assert.equal(init.activity.type, 'ACTIVITY_TYPE_INIT_OTP_V3');
      assert.equal(init.activity.appProofs.length, 1);
      const [proof] = init.activity.appProofs;
      verifyAppProofSignature(proof);
      assert.equal(proof.publicKey.slice(130), keys.appProofSignerPublicKey);
      const bundleData = JSON.parse(Buffer.from(JSON.parse(otpEncryptionTargetBundle).data, 'hex').toString('utf8'));
      assert.equal(bundleData.otpId, otpId);
      assert.match(bundleData.targetPublic, /^04[0-9a-f]{128}$/);

      // sdk-browser's indexed-db client signs in DER; the session key here differs from the token's key.
      const clientKey = generateP256KeyPair();
      const sessionKey = generateP256KeyPair();
      const encryptedOtpBundle = await encryptOtpCodeToBundle(await smtp.nextCodeTo(email), otpEncryptionTargetBundle, clientKey.publicKey, keys.otpEncryptionBundleSignerPublicKey);
      const verify = (await client.verifyOtp(envelope('ACTIVITY_TYPE_VERIFY_OTP_V2', { otpId, encryptedOtpBundle, expirationSeconds: '600' }) as any)) as any;
      assert.deepEqual(verify.activity.intent.verifyOtpIntentV2, { otpId, encryptedOtpBundle, expirationSeconds: '600' });
      const { verificationToken } = verify.activity.result.verifyOtpResult;
      const claims = await verifyOtpVerificationToken(verificationToken, keys.verificationTokenSignerPublicKey);
      assert.ok(Number(claims.exp) >= startedAt - 1000 + 600_000 && Number(claims.exp) <= server.clock.now().getTime() + 1000 + 600_000, `exp ${claims.exp}`);

      const login = (await client.otpLogin(
        envelope('ACTIVITY_TYPE_OTP_LOGIN_V2', {
          verificationToken,
          publicKey: sessionKey.publicKey,
          clientSignature: await clientSignature(verificationToken, clientKey, sessionKey.publicKey, SignatureFormat.Der),
          expirationSeconds: '3600',
        }) as any,
      )) as any;
      const { session } = login.activity.result.otpLoginResult;
      assert.equal(await verifySessionJwtSignature(session, keys.sessionSignerPublicKey), true);
      assert.equal(claimsOf(session).public_key, sessionKey.publicKey);
      assert.equal(claimsOf(session).user_id, userId);

      // The token's own key is no credential; the session key is.
      await assert.rejects(server.client({ apiPublicKey: clientKey.publicKey, apiPrivateKey: clientKey.privateKey }).getActivities({ organizationId: org.organizationId }), /could not find public key/);
      const sessionClient = new TurnkeyClient({ baseUrl: server.baseUrl }, new ApiKeyStamper({ apiPublicKey: sessionKey.publicKey, apiPrivateKey: sessionKey.privateKey }));
      const mine = (await sessionClient.getActivity({ organizationId: org.organizationId, activityId: login.activity.id })) as any;
      assert.equal(mine.activity.id, login.activity.id);
    });

    test("@turnkey/core's type strings with V2 parameters (ACTIVITY_TYPE_VERIFY_OTP, ACTIVITY_TYPE_OTP_LOGIN) work too", async () => {
      const { email } = await newUserEmail();
      const { otpId, otpEncryptionTargetBundle } = await sdkServer().initOtp({ otpType: 'OTP_TYPE_EMAIL', contact: email, appName: 'Acme Wallet' });
      const clientKey = generateP256KeyPair();
      const encryptedOtpBundle = await encryptOtpCodeToBundle(await smtp.nextCodeTo(email), otpEncryptionTargetBundle, clientKey.publicKey, keys.otpEncryptionBundleSignerPublicKey);
      const verify = await submitRaw('/public/v1/submit/verify_otp', loginBody({ otpId, encryptedOtpBundle }, 'ACTIVITY_TYPE_VERIFY_OTP'));
      assert.equal(verify.status, 200, JSON.stringify(verify.json));
      assert.equal(verify.json.activity.type, 'ACTIVITY_TYPE_VERIFY_OTP');
      assert.ok(verify.json.activity.intent.verifyOtpIntentV2);
      const { verificationToken } = verify.json.activity.result.verifyOtpResult;
      const login = await submitRaw(
        '/public/v1/submit/otp_login',
        loginBody({ verificationToken, publicKey: clientKey.publicKey, clientSignature: await clientSignature(verificationToken, clientKey, clientKey.publicKey) }, 'ACTIVITY_TYPE_OTP_LOGIN'),
      );
      assert.equal(login.status, 200, JSON.stringify(login.json));
      assert.ok(login.json.activity.intent.otpLoginIntent);
      assert.equal(await verifySessionJwtSignature(login.json.activity.result.otpLoginResult.session, keys.sessionSignerPublicKey), true);
    });

    test('a phone number logs in its user: init_otp by SMS, the code from the SMS, the user whose phone number matches', async () => {
      const phone = `+1415555${String(1000 + contacts++).slice(-4)}`;
      const { userIds } = await sdkServer().createUsers({
        users: [{ userName: 'Phone person', userPhoneNumber: phone, apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] }],
      });
      // Written as people type it; normalised to E.164 like the user's.
      const typed = `(${phone.slice(2, 5)}) ${phone.slice(5, 8)}-${phone.slice(8)}`;
      const { otpId, otpEncryptionTargetBundle } = await sdkServer().initOtp({ otpType: 'OTP_TYPE_SMS', contact: `+1 ${typed}`, appName: 'Acme Wallet' });
      const smsLog = path.join(server.dataDir, 'sms.log');
      const code: string = await until(`an SMS to ${phone}`, () => {
        const lines = fs.existsSync(smsLog) ? fs.readFileSync(smsLog, 'utf8').trim().split('\n') : [];
        return lines.map((line) => JSON.parse(line)).filter((sms) => sms.to === phone).map((sms) => SMS_CODE.exec(sms.text)?.[1]).pop();
      });
      const clientKey = generateP256KeyPair();
      const encryptedOtpBundle = await encryptOtpCodeToBundle(code, otpEncryptionTargetBundle, clientKey.publicKey, keys.otpEncryptionBundleSignerPublicKey);
      const { verificationToken } = await sdkServer().verifyOtp({ otpId, encryptedOtpBundle });
      assert.equal((await verifyOtpVerificationToken(verificationToken, keys.verificationTokenSignerPublicKey)).contact, phone);
      const { session } = await sdkServer().otpLogin({ verificationToken, publicKey: clientKey.publicKey, clientSignature: await clientSignature(verificationToken, clientKey, clientKey.publicKey) });
      assert.equal(claimsOf(session).user_id, userIds[0]);
    });

    test('sessions end: at their expiry and when a later login invalidates them, each with a 401; a new login with the same key revives it', async () => {
      const { email } = await newUserEmail();
      const login = async (clientKey: KeyPair, verificationToken: string, extra: object = {}) => {
        const result = await submitRaw(
          '/public/v1/submit/otp_login',
          loginBody({ verificationToken, publicKey: clientKey.publicKey, clientSignature: await clientSignature(verificationToken, clientKey, clientKey.publicKey), ...extra }),
        );
        assert.equal(result.status, 200, JSON.stringify(result.json));
      };
      const query = (key: KeyPair) =>
        submitRaw('/public/v1/query/list_activities', { organizationId: org.organizationId }, { apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey });

      const first = await verified(email);
      await login(first.clientKey, first.verificationToken, { expirationSeconds: '1' });
      assert.equal((await query(first.clientKey)).status, 200);
      server.clock.advance(1100);
      const expired = await query(first.clientKey);
      assert.equal(expired.status, 401);
      // The words @turnkey/core matches to show "session expired".
      assert.match(expired.json.message, /session expired: .*Unauthenticated desc = expired api key publicKey/);

      // The same key pair logs in again (sdk-browser keeps its key): the session lives again.
      const again = await verified(email);
      const token = again.verificationToken;
      const message = JSON.stringify({ login: { publicKey: first.clientKey.publicKey }, tokenId: claimsOf(token).id, type: 'USAGE_TYPE_LOGIN' });
      const signature = await new ApiKeyStamper({ apiPublicKey: again.clientKey.publicKey, apiPrivateKey: again.clientKey.privateKey }).sign(message, SignatureFormat.Raw);
      const revived = await submitRaw(
        '/public/v1/submit/otp_login',
        loginBody({ verificationToken: token, publicKey: first.clientKey.publicKey, clientSignature: { publicKey: again.clientKey.publicKey, scheme: 'CLIENT_SIGNATURE_SCHEME_API_P256', message, signature } }),
      );
      assert.equal(revived.status, 200, JSON.stringify(revived.json));
      assert.equal((await query(first.clientKey)).status, 200);

      // A login with invalidateExisting ends the user's other sessions at once.
      const third = await verified(email);
      await login(third.clientKey, third.verificationToken, { invalidateExisting: true });
      const revoked = await query(first.clientKey);
      assert.equal(revoked.status, 401);
      assert.match(revoked.json.message, /session ended: .*revoked/);
      assert.equal((await query(third.clientKey)).status, 200);
    });

    test("a token bound to no key is in verify_otp's answer only: another user's session cannot read it from the activities and log in with it", async () => {
      const victim = await newUserEmail();
      const other = await newUserEmail();
      // Another user of the organization, with a session of their own.
      const x = await verified(other.email);
      const xLogin = await submitRaw(
        '/public/v1/submit/otp_login',
        loginBody({ verificationToken: x.verificationToken, publicKey: x.clientKey.publicKey, clientSignature: await clientSignature(x.verificationToken, x.clientKey, x.clientKey.publicKey) }),
      );
      assert.equal(xLogin.status, 200, JSON.stringify(xLogin.json));
      const xSession = { apiPublicKey: x.clientKey.publicKey, apiPrivateKey: x.clientKey.privateKey };

      // The victim's code verified with V1 and no publicKey (by the app's backend), with App Proofs.
      const { otpId } = await sdkServer().initOtp({ otpType: 'OTP_TYPE_EMAIL', contact: victim.email, appName: 'Acme Wallet' });
      const verifyBody = {
        type: 'ACTIVITY_TYPE_VERIFY_OTP',
        timestampMs: String(Date.now()),
        organizationId: org.organizationId,
        parameters: { otpId, otpCode: await smtp.nextCodeTo(victim.email) },
        generateAppProofs: true,
      };
      const first = await submitRaw('/public/v1/submit/verify_otp', verifyBody);
      assert.equal(first.status, 200, JSON.stringify(first.json));
      const activityId: string = first.json.activity.id;
      const token: string = first.json.activity.result.verifyOtpResult.verificationToken;
      assert.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
      assert.equal('public_key' in claimsOf(token), false);
      assert.equal(first.json.activity.result.activity.result.verifyOtpResult.verificationToken, token);
      const proven = (activity: any) =>
        appProofProblems(
          { id: activity.id, type: activity.type, organizationId: activity.organizationId, fingerprint: activity.fingerprint, timestampMs: activity.timestampMs, result: activity.result.verifyOtpResult },
          activity.appProofs,
          [keys.appProofSignerPublicKey],
        );
      assert.deepEqual(proven(first.json.activity), []);

      // Never written: no column of any stored activity or of its votes holds it.
      const [stored] = await server.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM activities
          WHERE strpos(result::text || intent || raw_body || coalesce(app_proofs::text, '') ||
                       coalesce((SELECT string_agg(v.message, '') FROM votes v WHERE v.activity_id = activities.id), ''), $1) > 0`,
        [token],
      );
      assert.equal(stored!.n, 0);

      // What every later read shows: the field, empty; the stored App Proof binds that result.
      const withoutToken = (activity: any) => {
        assert.equal(activity.id, activityId);
        assert.equal(activity.result.verifyOtpResult.verificationToken, '');
        assert.equal(activity.result.activity.result.verifyOtpResult.verificationToken, '');
        assert.deepEqual(proven(activity), []);
      };
      const listed = await submitRaw('/public/v1/query/list_activities', { organizationId: org.organizationId, filterByType: ['ACTIVITY_TYPE_VERIFY_OTP'] }, xSession);
      assert.equal(listed.status, 200, JSON.stringify(listed.json));
      assert.equal(JSON.stringify(listed.json).includes(token), false);
      withoutToken(listed.json.activities.find((activity: any) => activity.id === activityId));
      const got = await submitRaw('/public/v1/query/get_activity', { organizationId: org.organizationId, activityId }, xSession);
      assert.equal(got.status, 200, JSON.stringify(got.json));
      withoutToken(got.json.activity);
      // The same body again (a client retrying) is answered with the stored activity: no token either.
      const again = await submitRaw('/public/v1/submit/verify_otp', verifyBody);
      assert.equal(again.status, 200, JSON.stringify(again.json));
      assert.equal(JSON.stringify(again.json).includes(token), false);
      withoutToken(again.json.activity);

      // What the other session could read logs nobody in.
      const thief = generateP256KeyPair();
      const stolen = await submitRaw(
        '/public/v1/submit/otp_login',
        loginBody({ verificationToken: got.json.activity.result.verifyOtpResult.verificationToken, publicKey: thief.publicKey }, 'ACTIVITY_TYPE_OTP_LOGIN'),
        xSession,
      );
      assert.equal(stolen.status, 400);
      assert.match(stolen.json.message, /parameters\.verificationToken/);
      // The token of the first answer does, once, as the victim.
      const victimKey = generateP256KeyPair();
      const login = await submitRaw('/public/v1/submit/otp_login', loginBody({ verificationToken: token, publicKey: victimKey.publicKey }, 'ACTIVITY_TYPE_OTP_LOGIN'));
      assert.equal(login.status, 200, JSON.stringify(login.json));
      assert.equal(claimsOf(login.json.activity.result.otpLoginResult.session).user_id, victim.userId);
    });

    test('ten logins of one user at once, each with invalidateExisting and its own token, leave exactly one live session', async () => {
      const { email, userId } = await newUserEmail();
      const tokens = [];
      for (let i = 0; i < 10; i++) tokens.push(await verified(email));
      const logins = await Promise.all(
        tokens.map(async ({ verificationToken, clientKey }) =>
          submitRaw(
            '/public/v1/submit/otp_login',
            loginBody({ verificationToken, publicKey: clientKey.publicKey, clientSignature: await clientSignature(verificationToken, clientKey, clientKey.publicKey), invalidateExisting: true }),
          ),
        ),
      );
      assert.deepEqual(logins.map((login) => login.status), tokens.map(() => 200), JSON.stringify(logins.map((login) => login.json.message)));
      const [live] = await server.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM api_keys WHERE user_id = $1 AND kind = 'session' AND revoked_at IS NULL",
        [userId],
      );
      assert.equal(live!.n, 1, 'live sessions after ten concurrent logins that each end the others');
      // And as the clients see it: one session key stamps, the nine others are told their session ended.
      const queries = await Promise.all(
        tokens.map(({ clientKey }) =>
          submitRaw('/public/v1/query/list_activities', { organizationId: org.organizationId }, { apiPublicKey: clientKey.publicKey, apiPrivateKey: clientKey.privateKey }),
        ),
      );
      assert.deepEqual(queries.map((query) => query.status).sort(), [200, ...Array(9).fill(401)]);
      for (const ended of queries.filter((query) => query.status === 401)) assert.match(ended.json.message, /session ended/);
    });

    test('refusals name the problem: wrong code, another OTP\'s bundle, a wrong client signature, an unknown contact, a token used twice at once', async () => {
      const { email } = await newUserEmail();
      const client = sdkServer();

      // A wrong code is an attempt, told the way @turnkey/core recognises.
      const first = await client.initOtp({ otpType: 'OTP_TYPE_EMAIL', contact: email, appName: 'Acme Wallet' });
      const code = await smtp.nextCodeTo(email);
      const wrong = code.slice(0, 8) + (code[8] === 'A' ? 'B' : 'A');
      const clientKey = generateP256KeyPair();
      const wrongBundle = await encryptOtpCodeToBundle(wrong, first.otpEncryptionTargetBundle, clientKey.publicKey, keys.otpEncryptionBundleSignerPublicKey);
      await assert.rejects(client.verifyOtp({ otpId: first.otpId, encryptedOtpBundle: wrongBundle }), /Invalid OTP code: it is not the code that was sent; 4 attempts left/);

      // A bundle made for another OTP's target key cannot be opened with this one's.
      const otherEmail = `other-${randomUUID().slice(0, 8)}@example.com`;
      const second = await client.initOtp({ otpType: 'OTP_TYPE_EMAIL', contact: otherEmail, appName: 'Acme Wallet' });
      const foreignBundle = await encryptOtpCodeToBundle(code, second.otpEncryptionTargetBundle, clientKey.publicKey, keys.otpEncryptionBundleSignerPublicKey);
      await assert.rejects(client.verifyOtp({ otpId: first.otpId, encryptedOtpBundle: foreignBundle }), /cannot be decrypted with this OTP's key/);

      // The right code: the OTP's target key is then forgotten.
      const bundle = await encryptOtpCodeToBundle(code, first.otpEncryptionTargetBundle, clientKey.publicKey, keys.otpEncryptionBundleSignerPublicKey);
      const { verificationToken } = await client.verifyOtp({ otpId: first.otpId, encryptedOtpBundle: bundle });
      const [row] = await server.db.query<{ target_private_key: string | null; used_at: Date | null }>('SELECT target_private_key, used_at FROM otps WHERE id = $1', [first.otpId]);
      assert.equal(row!.target_private_key, null);
      assert.ok(row!.used_at);

      // Signed by a key other than the token's.
      const stranger = generateP256KeyPair();
      const forged = await submitRaw('/public/v1/submit/otp_login', loginBody({ verificationToken, publicKey: stranger.publicKey, clientSignature: await clientSignature(verificationToken, stranger, stranger.publicKey) }));
      assert.equal(forged.status, 400);
      assert.match(forged.json.message, /parameters\.clientSignature: clientSignature\.publicKey must be the key the verification token is bound to/);
      const missing = await submitRaw('/public/v1/submit/otp_login', loginBody({ verificationToken, publicKey: clientKey.publicKey }));
      assert.equal(missing.status, 400);
      assert.match(missing.json.message, /parameters\.clientSignature/);
      const tampered = `${verificationToken.slice(0, -4)}AAAA`;
      const bad = await submitRaw('/public/v1/submit/otp_login', loginBody({ verificationToken: tampered, publicKey: clientKey.publicKey, clientSignature: await clientSignature(verificationToken, clientKey, clientKey.publicKey) }));
      assert.equal(bad.status, 400);
      assert.match(bad.json.message, /parameters\.verificationToken: the verification token signature does not verify/);

      // Two logins with one token at the same moment: one session.
      const signatures = await Promise.all([0, 1].map(() => clientSignature(verificationToken, clientKey, clientKey.publicKey)));
      const raced = await Promise.all(signatures.map((signature, i) =>
        submitRaw('/public/v1/submit/otp_login', loginBody({ verificationToken, publicKey: clientKey.publicKey, clientSignature: signature, expirationSeconds: String(900 + i) })),
      ));
      assert.deepEqual(raced.map((r) => r.status).sort(), [200, 400], JSON.stringify(raced.map((r) => r.json)));
      assert.match(raced.find((r) => r.status === 400)!.json.message, /already used to log in/);

      // A verified contact that no user of the organization has.
      const nobody = `nobody-${randomUUID().slice(0, 8)}@example.com`;
      const unknown = await verified(nobody);
      const orphan = await submitRaw(
        '/public/v1/submit/otp_login',
        loginBody({ verificationToken: unknown.verificationToken, publicKey: unknown.clientKey.publicKey, clientSignature: await clientSignature(unknown.verificationToken, unknown.clientKey, unknown.clientKey.publicKey) }),
      );
      assert.equal(orphan.status, 404);
      assert.match(orphan.json.message, /no user of this organization has the email address/);

      // A token of another organization does not log in here.
      const other = await server.createOrganization('Other');
      const elsewhere = await submitRaw(
        '/public/v1/submit/otp_login',
        { ...loginBody({ verificationToken: unknown.verificationToken, publicKey: unknown.clientKey.publicKey, clientSignature: await clientSignature(unknown.verificationToken, unknown.clientKey, unknown.clientKey.publicKey) }), organizationId: other.organizationId },
        other,
      );
      assert.equal(elsewhere.status, 400);
      assert.match(elsewhere.json.message, /was issued in organization/);
    });

    test('every spelling of one mailbox is one contact: one user, one budget of 10 codes an hour, then 429 for each spelling', async () => {
      const mailbox = `victim-${randomUUID().slice(0, 8)}@example.com`;
      const [local, domain] = mailbox.split('@') as [string, string];
      const spellings = [mailbox, `V${mailbox.slice(1)}`, `${local}@${domain.toUpperCase()}`, mailbox.toUpperCase()];
      const { userIds } = await sdkServer().createUsers({
        users: [{ userName: 'Victim', userEmail: spellings[1]!, apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] }],
      });
      // Another spelling is the same address: taken.
      await assert.rejects(
        sdkServer().createUsers({ users: [{ userName: 'Twin', userEmail: spellings[3]!, apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] }] }),
        /is already the email address of another user/,
      );

      // A code asked for in capitals goes to the mailbox, and its token names the mailbox and logs in its user.
      const client = sdkServer();
      const { otpId, otpEncryptionTargetBundle } = await client.initOtp({ otpType: 'OTP_TYPE_EMAIL', contact: spellings[3]!, appName: 'Acme Wallet' });
      const clientKey = generateP256KeyPair();
      const encryptedOtpBundle = await encryptOtpCodeToBundle(await smtp.nextCodeTo(mailbox), otpEncryptionTargetBundle, clientKey.publicKey, keys.otpEncryptionBundleSignerPublicKey);
      const { verificationToken } = await client.verifyOtp({ otpId, encryptedOtpBundle });
      assert.equal((await verifyOtpVerificationToken(verificationToken, keys.verificationTokenSignerPublicKey)).contact, mailbox);
      const { session } = await client.otpLogin({ verificationToken, publicKey: clientKey.publicKey, clientSignature: await clientSignature(verificationToken, clientKey, clientKey.publicKey) });
      assert.equal(claimsOf(session).user_id, userIds[0]);

      // Nine more codes in any spelling fill the mailbox's budget (SIGNET_RATE_LIMIT_EMAIL_PER_CONTACT, 10 an hour).
      const initOtp = (contact: string, organizationId = org.organizationId) =>
        submitRaw('/public/v1/submit/init_otp', {
          type: 'ACTIVITY_TYPE_INIT_OTP_V3',
          timestampMs: String(Date.now()),
          organizationId,
          parameters: { otpType: 'OTP_TYPE_EMAIL', contact, appName: 'Acme Wallet' },
        });
      for (let i = 1; i < 10; i++) {
        const sent = await initOtp(spellings[i % spellings.length]!);
        assert.equal(sent.status, 200, JSON.stringify(sent.json));
        assert.equal(sent.json.activity.intent.initOtpIntentV3.contact, mailbox, 'the intent echoes the address in lowercase');
      }
      // The organization's id in capitals names the same organization, and the same budget.
      for (const [contact, organizationId] of [...spellings.map((s) => [s, org.organizationId]), [mailbox, org.organizationId.toUpperCase()]] as const) {
        const refused = await initOtp(contact, organizationId);
        assert.equal(refused.status, 429, `${contact} in organization ${organizationId}: ${refused.json.message ?? 'a new OTP'}`);
        assert.match(refused.json.message, /too many email codes for this email address: at most 10 every 3600 seconds/);
        const retryAfter = Number(refused.retryAfter);
        assert.ok(retryAfter >= 1 && retryAfter <= 3600, `Retry-After ${refused.retryAfter}`);
      }
      const [{ n }] = (await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM otps WHERE lower(contact) = $1', [mailbox])) as [{ n: number }];
      assert.equal(n, 10, 'no OTP was created past the limit');
    });

    test('a token naming the email in another spelling (signed before emails were kept in lowercase) logs in its user', async () => {
      const { email, userId } = await newUserEmail();
      const client = sdkServer();
      const { otpId, otpEncryptionTargetBundle } = await client.initOtp({ otpType: 'OTP_TYPE_EMAIL', contact: email, appName: 'Acme Wallet' });
      // An OTP as an earlier version stored it: the address as the client wrote it.
      await server.db.query('UPDATE otps SET contact = $2 WHERE id = $1', [otpId, email.toUpperCase()]);
      const clientKey = generateP256KeyPair();
      const encryptedOtpBundle = await encryptOtpCodeToBundle(await smtp.nextCodeTo(email), otpEncryptionTargetBundle, clientKey.publicKey, keys.otpEncryptionBundleSignerPublicKey);
      const { verificationToken } = await client.verifyOtp({ otpId, encryptedOtpBundle });
      assert.equal(claimsOf(verificationToken).contact, email.toUpperCase());
      const { session } = await client.otpLogin({ verificationToken, publicKey: clientKey.publicKey, clientSignature: await clientSignature(verificationToken, clientKey, clientKey.publicKey) });
      assert.equal(claimsOf(session).user_id, userId);
    });
  });
}
