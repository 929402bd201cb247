// @turnkey/core, unmodified, in a real headless Chromium with a virtual passkey, its apiBaseUrl
// pointing at Signet and its organizationId the app's: Alice, signed up by the app's backend in her
// own sub-organization with the passkey core made, logs in with it (stamp_login stamped
// X-Stamp-WebAuthn, sent to the app's organization, answered with a session of her sub-organization),
// core stores the session and its key pair, the session key stamps get_user and whoami, and
// refreshSession gets a new session with stamp_login stamped by the session key; loginWithOtp logs in
// with a verification token the app's backend got from Signet (X-Stamp-Attested). The calls that
// need the hosted auth proxy, or an OIDC attestation, are shown failing as they do. The page is on
// another origin than Signet, so every call goes through the browser's CORS checks.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { encryptOtpCodeToBundle, verifySessionJwtSignature } from '@turnkey/crypto';
import { Turnkey } from '@turnkey/sdk-server';
import type { Browser, Page } from 'playwright-core';
import { bundleForPage, chromiumMissing, launchChromium, pageWithPasskey, servePage } from './support/chromium.ts';
import type { CoreApp, CoreSetup, Outcome, SentRequest } from './support/coreApp.ts';
import { testDatabases } from './support/databases.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';
import { startSmtpSink, type SmtpSink } from './support/smtpSink.ts';

/** The app and @turnkey/core, as one script for the page; bundled once for every store. */
let bundled: Promise<string> | undefined;
const bundle = (): Promise<string> => (bundled ??= bundleForPage('coreApp.ts'));

/** Runs one of the app's functions in the page. */
function inPage<K extends keyof CoreApp>(page: Page, name: K, ...args: Parameters<CoreApp[K]>): Promise<Awaited<ReturnType<CoreApp[K]>>> {
  return page.evaluate(
    ([name, args]) => ((globalThis as any).coreApp[name] as (...a: unknown[]) => Promise<any>)(...args),
    [name, args] as const,
  );
}

/** The value of a call that must have succeeded; else fails with what core threw. */
function succeeded<T>(outcome: Outcome<T>, what: string): T {
  if (!outcome.ok) assert.fail(`${what} failed in the page: ${JSON.stringify(outcome)}`);
  return outcome.value;
}

/** A JWT's payload, decoded as the clients decode it. */
function claimsOf(jwt: string): Record<string, any> {
  return JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8'));
}

/** The requests to Signet's public API, as path and stamp headers. */
function calls(sent: SentRequest[], signetUrl: string): string[] {
  return sent.map((request) => `${request.url.replace(signetUrl, '')} ${request.stampHeaders.join(',')}`);
}

for (const tdb of testDatabases) {
  describe(`@turnkey/core, in a browser, logs in to Signet (${tdb.name}, headless Chromium)`, { skip: chromiumMissing }, () => {
    let signet: TestServer;
    let app: Awaited<ReturnType<typeof servePage>>;
    let browser: Browser;
    let page: Page;
    let org: Credentials;
    let aliceId: string;
    /** Alice's own sub-organization of the app's organization. */
    let aliceOrg: string;
    let setup: CoreSetup;
    let smtp: SmtpSink;
    let signerKeys: { sessionSignerPublicKey: string; otpEncryptionBundleSignerPublicKey: string };
    let sessionSigner: string;
    let credentialId: string;
    let firstSession: string;
    const pageErrors: string[] = [];

    /** Alice's sub-organization's stamp_login activities, oldest first, as the app's API key reads them. */
    async function stampLogins() {
      const { activities } = (await signet.client(org).getActivities({ organizationId: aliceOrg })) as any;
      return (activities as any[]).filter((a) => a.type === 'ACTIVITY_TYPE_STAMP_LOGIN').reverse();
    }

    before(async () => {
      const built = bundle();
      built.catch(() => {}); // awaited below
      app = await servePage(bundle(), 'A @turnkey/core app');
      // localhost is a secure context, as WebAuthn needs; Signet is at 127.0.0.1, another origin.
      const appOrigin = `http://localhost:${app.port}`;
      smtp = await startSmtpSink();
      // All settle before a failure is thrown, so after() closes whatever did start.
      const started = await Promise.allSettled([
        startTestServer(tdb, {
          SIGNET_SMTP_URL: smtp.url,
          SIGNET_EMAIL_FROM: 'otp@signet.test',
          SIGNET_CORS_ORIGINS: appOrigin,
          SIGNET_WEBAUTHN_RP_ID: 'localhost',
          SIGNET_WEBAUTHN_ORIGINS: appOrigin,
        }).then((server) => (signet = server)),
        launchChromium().then((launched) => (browser = launched)),
        built,
      ]);
      for (const outcome of started) if (outcome.status === 'rejected') throw outcome.reason;
      org = await signet.createOrganization('Core app');
      signerKeys = (await (await fetch(`${signet.baseUrl}/.well-known/signet-keys.json`)).json()) as typeof signerKeys;
      sessionSigner = signerKeys.sessionSignerPublicKey;
      setup = { signetUrl: signet.baseUrl, organizationId: org.organizationId, rpId: 'localhost' };

      page = await pageWithPasskey(browser, pageErrors, 60_000); // a fresh profile: empty localStorage and IndexedDB
      await page.goto(`${appOrigin}/`);
      await page.waitForFunction(() => 'coreApp' in globalThis);
      await inPage(page, 'init', setup);
    });

    after(async () => {
      await browser?.close();
      await app?.close();
      await signet?.close();
      await smtp?.close();
    });

    test("core's createPasskey makes Alice's passkey; the app's backend signs her up in her own sub-organization with it", async () => {
      const { encodedChallenge, attestation } = await inPage(page, 'createPasskey', 'Alice on Chromium');
      assert.deepEqual(await inPage(page, 'takeSent'), []); // creating a passkey is local
      const backend = new Turnkey({
        apiBaseUrl: signet.baseUrl,
        apiPublicKey: org.apiPublicKey,
        apiPrivateKey: org.apiPrivateKey,
        defaultOrganizationId: org.organizationId,
      }).apiClient();
      const created = await backend.createSubOrganization({
        subOrganizationName: 'Alice',
        rootUsers: [
          {
            userName: 'Alice',
            userEmail: 'alice@example.com',
            apiKeys: [],
            authenticators: [{ authenticatorName: 'Alice on Chromium', challenge: encodedChallenge, attestation }],
            oauthProviders: [],
          },
        ],
        rootQuorumThreshold: 1,
      });
      aliceOrg = created.subOrganizationId;
      aliceId = created.rootUserIds![0]!;
      credentialId = attestation.credentialId;
      const { authenticators } = (await backend.getAuthenticators({ organizationId: aliceOrg, userId: aliceId })) as any;
      assert.deepEqual(authenticators.map((a: { credentialId: string }) => a.credentialId), [credentialId]);
    });

    test('loginWithPasskey: stamp_login stamped by the passkey; core stores the session Signet signed for Alice', async () => {
      const attempt = await inPage(page, 'loginWithPasskey', '600');
      const sent = await inPage(page, 'takeSent');
      const login = succeeded(attempt, 'loginWithPasskey');
      assert.equal(calls(sent, signet.baseUrl)[0], '/public/v1/submit/stamp_login x-stamp-webauthn');
      assert.ok(calls(sent, signet.baseUrl).every((call) => call.startsWith('/public/v1/')), JSON.stringify(sent));
      assert.equal(login.credentialId, credentialId);

      // The session JWT is Signet's, names Alice and her organization, and is the one core stored.
      firstSession = login.sessionToken;
      assert.equal(await verifySessionJwtSignature(firstSession, sessionSigner), true);
      assert.equal(await verifySessionJwtSignature(firstSession), false); // not the hosted service's key
      const claims = claimsOf(firstSession);
      assert.equal(claims.user_id, aliceId);
      // Sent to the app's organization, the login is of the passkey's own sub-organization.
      assert.equal(claims.organization_id, aliceOrg);
      assert.equal(claims.session_type, 'SESSION_TYPE_READ_WRITE');
      const nowSeconds = Date.now() / 1000;
      assert.ok(claims.exp > nowSeconds + 590 && claims.exp <= nowSeconds + 601, `exp ${claims.exp} is 600 s from now`);
      const { session, keyPairPublicKeys } = await inPage(page, 'stored');
      assert.equal(session?.token, firstSession);
      assert.equal(session?.userId, aliceId);
      assert.equal(session?.publicKey, claims.public_key);
      // The session key pair is in IndexedDB, and it is the only one core kept.
      assert.deepEqual(keyPairPublicKeys, [claims.public_key]);

      // Signet holds the session key as Alice's, and recorded the login as her activity, her passkey's vote.
      const { apiKeys } = (await signet.client(org).getApiKeys({ organizationId: aliceOrg, userId: aliceId })) as any;
      assert.deepEqual(
        apiKeys.map((key: any) => [key.credential.type, key.credential.publicKey]),
        [['CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256', claims.public_key]],
      );
      const [activity] = await stampLogins();
      assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.equal(activity.votes.length, 1);
      assert.equal(activity.votes[0].userId, aliceId);
      assert.equal(activity.votes[0].scheme, 'SIGNATURE_SCHEME_WEBAUTHN');
      assert.equal(activity.result.stampLoginResult.session, firstSession);
    });

    test('the session key stamps get_user (fetchUser) and whoami', async () => {
      const fetched = await inPage(page, 'fetchUser');
      const me = await inPage(page, 'whoami');
      assert.deepEqual(calls(await inPage(page, 'takeSent'), signet.baseUrl), ['/public/v1/query/get_user x-stamp', '/public/v1/query/whoami x-stamp']);
      const user = succeeded(fetched, 'fetchUser');
      assert.equal(user.userId, aliceId);
      assert.equal(user.userName, 'Alice');
      assert.equal(user.userEmail, 'alice@example.com');
      assert.deepEqual(
        user.authenticators.map((a: { credentialId: string }) => a.credentialId),
        [credentialId],
      );
      const whoami = succeeded(me, 'whoami');
      assert.equal(whoami.userId, aliceId);
      assert.equal(whoami.organizationId, aliceOrg);
    });

    test('refreshSession: stamp_login stamped by the session key gives a new session that ends later', async () => {
      const attempt = await inPage(page, 'refreshSession');
      const sent = await inPage(page, 'takeSent');
      const refreshed = succeeded(attempt, 'refreshSession');
      assert.ok(refreshed, 'refreshSession answered nothing');
      assert.equal(calls(sent, signet.baseUrl)[0], '/public/v1/submit/stamp_login x-stamp');
      assert.equal(await verifySessionJwtSignature(refreshed.session, sessionSigner), true);
      const before = claimsOf(firstSession);
      const after = claimsOf(refreshed.session);
      assert.equal(after.user_id, aliceId);
      assert.equal(after.organization_id, before.organization_id);
      assert.notEqual(after.public_key, before.public_key);
      assert.ok(after.exp > before.exp, `the refreshed session ends later (${after.exp} > ${before.exp})`);

      // core now holds the new session and only its key pair; the new key stamps get_user.
      const { session, keyPairPublicKeys } = await inPage(page, 'stored');
      assert.equal(session?.token, refreshed.session);
      assert.deepEqual(keyPairPublicKeys, [after.public_key]);
      const user = succeeded(await inPage(page, 'fetchUser'), 'fetchUser after refreshSession');
      assert.equal(user.userId, aliceId);
      assert.deepEqual(calls(await inPage(page, 'takeSent'), signet.baseUrl), ['/public/v1/query/get_user x-stamp']);

      // Signet recorded the refresh as Alice's activity, voted by her first session key.
      const logins = await stampLogins();
      assert.equal(logins.length, 2);
      assert.equal(logins[1].status, 'ACTIVITY_STATUS_COMPLETED');
      assert.equal(logins[1].votes[0].userId, aliceId);
      assert.equal(logins[1].votes[0].scheme, 'SIGNATURE_SCHEME_TK_API_P256');
      assert.equal(logins[1].result.stampLoginResult.session, refreshed.session);
    });

    test("sign-up and OTP calls go to the hosted auth proxy: without one configured, core refuses before sending anything", async () => {
      await inPage(page, 'takeSent'); // whatever an earlier failure left
      const signUp = await inPage(page, 'signUpWithPasskey');
      assert.equal(signUp.ok, false);
      assert.match(JSON.stringify(signUp), /Auth Proxy URL or ID is not configured/);
      const otp = await inPage(page, 'initOtp', 'alice@example.com');
      assert.equal(otp.ok, false);
      assert.match(JSON.stringify(otp), /Auth Proxy URL or ID is not configured/);
      assert.deepEqual(await inPage(page, 'takeSent'), []);
      // The failed sign-up left the session as it was.
      const user = succeeded(await inPage(page, 'fetchUser'), 'fetchUser after the failed sign-up');
      assert.equal(user.userId, aliceId);
      assert.deepEqual(pageErrors, []);
    });

    test("loginWithOtp: a verification token the app's backend got (init_otp, verify_otp) logs in with X-Stamp-Attested", async () => {
      await inPage(page, 'takeSent');
      // The app's backend starts the OTP with Signet (core's initOtp would ask the hosted auth proxy).
      const backend = new Turnkey({
        apiBaseUrl: signet.baseUrl,
        apiPublicKey: org.apiPublicKey,
        apiPrivateKey: org.apiPrivateKey,
        defaultOrganizationId: org.organizationId,
      }).apiClient();
      const { otpId, otpEncryptionTargetBundle } = await backend.initOtp({ otpType: 'OTP_TYPE_EMAIL', contact: 'alice@example.com', appName: 'Core app' });
      const mail = await smtp.waitForMailTo('alice@example.com', 10_000);
      const code = /\b([0-9A-HJKMNP-TV-Z]{9})\b/.exec(mail.text ?? '')?.[1];
      assert.ok(code, `a code in ${JSON.stringify(mail.text)}`);

      // core's own verifyOtp checks the bundle against the hosted service's key, so it stops there.
      const ownVerify = await inPage(page, 'verifyOtp', otpId, code, otpEncryptionTargetBundle);
      assert.equal(ownVerify.ok, false);
      assert.match(JSON.stringify(ownVerify), new RegExp(`does not match signer key from bundle: ${signerKeys.otpEncryptionBundleSignerPublicKey}`));
      assert.deepEqual(await inPage(page, 'takeSent'), []);

      // The page makes the key pair the token is bound to; the backend verifies the code for it.
      const tokenKey = await inPage(page, 'createApiKeyPair');
      const encryptedOtpBundle = await encryptOtpCodeToBundle(code, otpEncryptionTargetBundle, tokenKey, signerKeys.otpEncryptionBundleSignerPublicKey);
      const { verificationToken } = await backend.verifyOtp({ otpId, encryptedOtpBundle });

      const attempt = await inPage(page, 'loginWithOtp', verificationToken);
      const sent = await inPage(page, 'takeSent');
      assert.equal(calls(sent, signet.baseUrl)[0], '/public/v1/submit/stamp_login x-stamp-attested');
      const { sessionToken } = succeeded(attempt, 'loginWithOtp');
      assert.equal(await verifySessionJwtSignature(sessionToken, sessionSigner), true);
      const claims = claimsOf(sessionToken);
      assert.equal(claims.user_id, aliceId);
      assert.equal(claims.public_key, tokenKey); // core keeps the token's key as the session key
      const { session } = await inPage(page, 'stored');
      assert.equal(session?.token, sessionToken);
      const user = succeeded(await inPage(page, 'fetchUser'), 'fetchUser after loginWithOtp');
      assert.equal(user.userId, aliceId);
      assert.deepEqual(calls(await inPage(page, 'takeSent'), signet.baseUrl), ['/public/v1/query/get_user x-stamp']);

      const logins = await stampLogins();
      const last = logins[logins.length - 1];
      assert.equal(last.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.equal(last.votes[0].userId, aliceId);
      assert.equal(last.result.stampLoginResult.session, sessionToken);
      assert.equal(last.votes[0].scheme, 'STAMP_ATTESTED_SCHEME_P256_VERIFICATION_TOKEN');
    });

    test('loginWithOauth (an OIDC token as the attestation) is refused by Signet; logout is local', async () => {
      // A well-formed but unsigned OIDC token: Signet reads only its own verification tokens.
      const segment = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const oidcToken = `${segment({ alg: 'RS256', typ: 'JWT' })}.${segment({ iss: 'https://accounts.google.com', sub: '1', aud: 'app', nonce: 'n' })}.c2ln`;
      const oauth = await inPage(page, 'loginWithOauth', oidcToken);
      assert.deepEqual(calls(await inPage(page, 'takeSent'), signet.baseUrl), ['/public/v1/submit/stamp_login x-stamp-attested']);
      assert.equal(oauth.ok, false);
      assert.match(JSON.stringify(oauth), /X-Stamp-Attested scheme must be .*STAMP_ATTESTED_SCHEME_P256_VERIFICATION_TOKEN.*got .*STAMP_ATTESTED_SCHEME_P256_OIDC/);
      const sessionKey = (await inPage(page, 'stored')).session?.publicKey; // the OTP session is still there
      assert.ok(sessionKey);

      succeeded(await inPage(page, 'logout'), 'logout');
      assert.deepEqual(await inPage(page, 'takeSent'), []); // core tells Signet nothing
      const after = await inPage(page, 'stored');
      assert.equal(after.session, undefined);
      assert.ok(!after.keyPairPublicKeys.includes(sessionKey), 'the session key pair is deleted');
      assert.deepEqual(pageErrors, []);
    });
  });
}
