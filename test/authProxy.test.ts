// The auth proxy protocol as @turnkey/core speaks it (its authProxyUrl and authProxyConfigId pointed at
// Signet): a configuration made by the admin API, allowed to act by a policy of the organization's root
// quorum; initOtp through the library sends the code by email (a real SMTP sink); the code verified on
// /v1/otp_verify_v2 (the library's own verifyOtp encrypts to the hosted service's fixed key, a known
// limit checked here); the sign-up creating the sub-organization with the configuration's default
// wallet; /v1/account finding the person; the login answering a session Signet signed; and the
// refusals: a missing or wrong configuration id, a disallowed origin (no CORS headers), a method not
// enabled, rate limits (429), OAuth 2.0 code exchange (501; OAuth with OpenID Connect: authProxyOauth.test.ts).
//
// In Node, TurnkeyClient.init() cannot run (its storage manager wants a browser or React Native), so
// the client is made with its public createHttpClient() and the proxy calls go through its own code.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ApiKeyStamper, SignatureFormat } from '@turnkey/api-key-stamper';
import {
  getAuthProxyConfig,
  getClientParams,
  getClientSignatureMessageForLogin,
  getClientSignatureMessageForSignup,
  OtpType,
  TurnkeyClient,
} from '@turnkey/core';
import { encryptOtpCodeToBundle, generateP256KeyPair, verifySessionJwtSignature } from '@turnkey/crypto';
import { Turnkey } from '@turnkey/sdk-server';
import { testDatabases } from './support/databases.ts';
import { signet } from './support/processes.ts';
import { ADMIN_TOKEN, startTestServer, type Credentials, type TestServer } from './support/server.ts';
import { startSmtpSink, type SmtpSink } from './support/smtpSink.ts';

const APP = 'https://app.example';

type KeyPair = ReturnType<typeof generateP256KeyPair>;

interface CreatedConfig {
  configId: string;
  organizationId: string;
  userId: string;
  methods: string[];
  policy: { policyName: string; effect: string; condition: string; consensus: string };
}

for (const tdb of testDatabases) {
  describe(`auth proxy through @turnkey/core (${tdb.name})`, () => {
    let smtp: SmtpSink;
    let server: TestServer;
    let org: Credentials;
    let signerKeys: { otpEncryptionBundleSignerPublicKey: string; sessionSignerPublicKey: string };

    before(async () => {
      smtp = await startSmtpSink();
      server = await startTestServer(tdb, { SIGNET_SMTP_URL: smtp.url, SIGNET_EMAIL_FROM: 'otp@signet.test' });
      org = await server.createOrganization('App');
      signerKeys = (await (await fetch(`${server.baseUrl}/.well-known/signet-keys.json`)).json()) as typeof signerKeys;
    });
    after(async () => {
      await server.close();
      await smtp.close();
    });

    /** A configuration of the organization (codes of 9 letters and digits, as the SMTP sink reads them). */
    async function newConfig(body: Record<string, unknown> = {}): Promise<CreatedConfig> {
      return server.admin<CreatedConfig>('POST', `/organizations/${org.organizationId}/auth-proxy-configs`, {
        allowedOrigins: [APP],
        methods: 'otp,passkey',
        otpLength: 9,
        otpAlphabet: 'alphanumeric',
        walletName: 'Default',
        walletAccounts: ['ADDRESS_FORMAT_ETHEREUM'],
        ...body,
      });
    }

    /** The root quorum lets the configuration's user act: the policy the configuration's answer names. */
    async function allow(config: CreatedConfig): Promise<void> {
      const root = new Turnkey({ apiBaseUrl: server.baseUrl, apiPublicKey: org.apiPublicKey, apiPrivateKey: org.apiPrivateKey, defaultOrganizationId: org.organizationId }).apiClient();
      await root.createPolicy({ ...config.policy, effect: 'EFFECT_ALLOW', notes: 'the auth proxy' });
    }

    /** @turnkey/core's client as a page makes it, its proxy calls going to the test server. */
    function coreClient(configId: string): TurnkeyClient {
      const client = new TurnkeyClient({ apiBaseUrl: server.baseUrl, authProxyUrl: server.baseUrl, authProxyConfigId: configId, organizationId: org.organizationId });
      client.httpClient = client.createHttpClient();
      return client;
    }

    async function proxy(path: string, configId: string | undefined, body: unknown, headers: Record<string, string> = {}) {
      const response = await fetch(`${server.baseUrl}/v1/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(configId ? { 'X-Auth-Proxy-Config-ID': configId } : {}), ...headers },
        body: JSON.stringify(body),
      });
      return { status: response.status, headers: response.headers, json: (await response.json()) as any };
    }

    /** The code of the email initOtp sent, encrypted as a page does with Signet's published key, and verified through the proxy. */
    async function verifiedToken(core: TurnkeyClient, email: string): Promise<{ verificationToken: string; clientKey: KeyPair }> {
      const { otpId, otpEncryptionTargetBundle } = await core.initOtp({ otpType: OtpType.Email, contact: email });
      const code = await smtp.nextCodeTo(email);
      const clientKey = generateP256KeyPair();
      const encryptedOtpBundle = await encryptOtpCodeToBundle(code, otpEncryptionTargetBundle, clientKey.publicKey, signerKeys.otpEncryptionBundleSignerPublicKey);
      const { verificationToken } = await core.httpClient.proxyVerifyOtpV2({ otpId, encryptedOtpBundle });
      return { verificationToken, clientKey };
    }

    const sign = (key: KeyPair, message: string) => new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey }).sign(message, SignatureFormat.Raw);

    test('without a policy allowing its user, the proxy is refused by the organization; `signet authproxy` lists and deletes it', async () => {
      const config = await newConfig();
      assert.match(config.policy.consensus, new RegExp(config.userId));
      const refused = await proxy('otp_init_v2', config.configId, { otpType: 'OTP_TYPE_EMAIL', contact: 'nobody@example.com' });
      assert.equal(refused.status, 403);
      assert.equal(refused.json.details[0].turnkeyErrorCode, 'REQUEST_NOT_AUTHORIZED');

      const env = { SIGNET_URL: server.baseUrl, SIGNET_ADMIN_TOKEN: ADMIN_TOKEN };
      const listed = await signet(['authproxy', 'list', '--organization', org.organizationId, '--json'], env);
      assert.equal(listed.code, 0, listed.stderr);
      assert.ok((JSON.parse(listed.stdout) as Array<{ configId: string }>).some((c) => c.configId === config.configId));
      const deleted = await signet(['authproxy', 'delete', '--id', config.configId, '--json'], env);
      assert.equal(deleted.code, 0, deleted.stderr);
      assert.equal(JSON.parse(deleted.stdout).removedUserId, config.userId);
      const gone = await proxy('wallet_kit_config', config.configId, {});
      assert.equal(gone.status, 404);
      assert.equal(gone.json.details[0].turnkeyErrorCode, 'AUTH_PROXY_CONFIG_NOT_FOUND');
    });

    test('initOtp, verify, account, signup with the default wallet, account again, then an OTP login: a session Signet signed', async () => {
      const config = await newConfig();
      await allow(config);
      const core = coreClient(config.configId);
      const email = `person-${randomUUID().slice(0, 8)}@example.com`;

      const kit = await getAuthProxyConfig(config.configId, server.baseUrl);
      assert.deepEqual(kit, { enabledProviders: ['email', 'sms', 'passkey'], sessionExpirationSeconds: '900', organizationId: org.organizationId, otpAlphanumeric: true, otpLength: '9' });
      assert.deepEqual(await getClientParams(config.configId, server.baseUrl), {});

      // The library's own verifyOtp encrypts the code to the hosted service's signer, whose key
      // signed no bundle of Signet's: it refuses the bundle before anything is sent.
      const { otpId, otpEncryptionTargetBundle } = await core.initOtp({ otpType: OtpType.Email, contact: email });
      const firstCode = await smtp.nextCodeTo(email);
      await assert.rejects(core.verifyOtp({ otpId, otpCode: firstCode, otpEncryptionTargetBundle, publicKey: generateP256KeyPair().publicKey }));

      const { verificationToken, clientKey } = await verifiedToken(core, email);
      assert.deepEqual(await core.httpClient.proxyGetAccount({ filterType: 'EMAIL', filterValue: email, verificationToken }), {});

      const signUp = { userName: email, userEmail: email, apiKeys: [], authenticators: [], oauthProviders: [], organizationName: 'Person', verificationToken };
      const { message } = getClientSignatureMessageForSignup({ verificationToken, email, apiKeys: [], authenticators: [], oauthProviders: [] });
      const signed = await core.httpClient.proxySignupV2({
        ...signUp,
        clientSignature: { publicKey: clientKey.publicKey, scheme: 'CLIENT_SIGNATURE_SCHEME_API_P256', message, signature: await sign(clientKey, message) },
      });
      assert.match(signed.organizationId, /^[0-9a-f-]{36}$/);
      assert.match(signed.userId, /^[0-9a-f-]{36}$/);
      assert.equal(signed.wallet?.addresses.length, 1);
      assert.match(signed.wallet!.addresses[0]!, /^0x[0-9a-fA-F]{40}$/);
      assert.ok((signed.appProofs?.length ?? 0) >= 1);

      const [subOrg] = await server.db.query<{ parent: string }>('SELECT parent_id::text AS parent FROM organizations WHERE id = $1', [signed.organizationId]);
      assert.equal(subOrg?.parent, org.organizationId);

      // The person is found now, by the contact a new code proves, and logs in.
      const second = await verifiedToken(core, email);
      assert.deepEqual(await core.httpClient.proxyGetAccount({ filterType: 'EMAIL', filterValue: email, verificationToken: second.verificationToken }), {
        organizationId: signed.organizationId,
      });
      const sessionKey = generateP256KeyPair();
      const login = getClientSignatureMessageForLogin({ verificationToken: second.verificationToken, sessionPublicKey: sessionKey.publicKey });
      const { session } = await core.httpClient.proxyOtpLoginV2({
        verificationToken: second.verificationToken,
        publicKey: sessionKey.publicKey,
        clientSignature: { publicKey: login.publicKey, scheme: 'CLIENT_SIGNATURE_SCHEME_API_P256', message: login.message, signature: await sign(second.clientKey, login.message) },
      });
      assert.equal(await verifySessionJwtSignature(session, signerKeys.sessionSignerPublicKey), true);
      const claims = JSON.parse(Buffer.from(session.split('.')[1]!, 'base64url').toString('utf8'));
      assert.equal(claims.organization_id, signed.organizationId);
      assert.equal(claims.user_id, signed.userId);
      assert.equal(claims.public_key, sessionKey.publicKey);

      // An email address is found only by whoever proved it.
      const unproven = await proxy('account', config.configId, { filterType: 'EMAIL', filterValue: email });
      assert.equal(unproven.status, 400);
      assert.match(unproven.json.message, /verificationToken/);
    });

    test('a wrong or missing configuration id, a disallowed origin, a method not enabled and OAuth are refused', async () => {
      const config = await newConfig({ methods: 'email' });
      const missing = await proxy('wallet_kit_config', undefined, {});
      assert.equal(missing.status, 400);
      assert.match(missing.json.message, /X-Auth-Proxy-Config-ID/);
      const unknown = await proxy('wallet_kit_config', randomUUID(), {});
      assert.equal(unknown.status, 404);
      assert.equal(unknown.json.details[0].turnkeyErrorCode, 'AUTH_PROXY_CONFIG_NOT_FOUND');

      const allowed = await proxy('wallet_kit_config', config.configId, {}, { origin: APP });
      assert.equal(allowed.status, 200);
      assert.equal(allowed.headers.get('access-control-allow-origin'), APP);
      const other = await proxy('wallet_kit_config', config.configId, {}, { origin: 'https://evil.example' });
      assert.equal(other.status, 403);
      assert.equal(other.json.details[0].turnkeyErrorCode, 'AUTH_PROXY_ORIGIN_NOT_ALLOWED');
      assert.equal(other.headers.get('access-control-allow-origin'), null);

      const preflight = (origin: string) =>
        fetch(`${server.baseUrl}/v1/otp_init_v2`, {
          method: 'OPTIONS',
          headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-auth-proxy-config-id' },
        });
      const yes = await preflight(APP);
      assert.equal(yes.status, 204);
      assert.equal(yes.headers.get('access-control-allow-origin'), APP);
      assert.match(yes.headers.get('access-control-allow-headers') ?? '', /X-Auth-Proxy-Config-ID/);
      const no = await preflight('https://evil.example');
      assert.equal(no.status, 403);
      assert.equal(no.headers.get('access-control-allow-origin'), null);
      // The public API's CORS is SIGNET_CORS_ORIGINS' alone (none here): the configuration adds nothing to it.
      const publicPreflight = await fetch(`${server.baseUrl}/public/v1/query/whoami`, { method: 'OPTIONS', headers: { origin: APP, 'access-control-request-method': 'POST' } });
      assert.equal(publicPreflight.headers.get('access-control-allow-origin'), null);

      const sms = await proxy('otp_init_v2', config.configId, { otpType: 'OTP_TYPE_SMS', contact: '+14155552671' });
      assert.equal(sms.status, 403);
      assert.equal(sms.json.details[0].turnkeyErrorCode, 'AUTH_PROXY_METHOD_DISABLED');
      // A sign-up proves a contact or registers a passkey: API keys alone make no sub-organization.
      const keysOnly = await proxy('signup_v2', config.configId, {
        apiKeys: [{ apiKeyName: 'wallet', publicKey: generateP256KeyPair().publicKey, curveType: 'API_KEY_CURVE_P256' }],
        authenticators: [],
        oauthProviders: [],
      });
      assert.equal(keysOnly.status, 403);
      assert.equal(keysOnly.json.details[0].turnkeyErrorCode, 'AUTH_PROXY_METHOD_DISABLED');
      const unproven = await proxy('signup_v2', config.configId, { userEmail: 'someone@example.com', apiKeys: [], authenticators: [], oauthProviders: [] });
      assert.equal(unproven.status, 400);
      assert.match(unproven.json.message, /verificationToken/);
      // OAuth: not enabled in this configuration; OAuth 2.0 code exchange is not served at all.
      const oauth = await proxy('oauth_login', config.configId, { oidcToken: 'a.b.c', publicKey: generateP256KeyPair().publicKey });
      assert.equal(oauth.status, 403);
      assert.equal(oauth.json.details[0].turnkeyErrorCode, 'AUTH_PROXY_METHOD_DISABLED');
      const oauth2 = await proxy('oauth2_authenticate', config.configId, {});
      assert.equal(oauth2.status, 501);
      assert.match(oauth2.json.message, /log in with an OpenID Connect provider's id token \(\/v1\/oauth_login\)/);
    });

    test('rate limits: per client address and per contact, 429 with Retry-After', async () => {
      const config = await newConfig();
      await allow(config);
      const email = `limited-${randomUUID().slice(0, 8)}@example.com`;
      for (let sent = 0; sent < 5; sent++) {
        const ok = await proxy('otp_init_v2', config.configId, { otpType: 'OTP_TYPE_EMAIL', contact: email });
        assert.equal(ok.status, 200, JSON.stringify(ok.json));
      }
      const contact = await proxy('otp_init_v2', config.configId, { otpType: 'OTP_TYPE_EMAIL', contact: email.toUpperCase() });
      assert.equal(contact.status, 429);
      assert.equal(contact.json.details[0].turnkeyErrorCode, 'AUTH_PROXY_RATE_LIMITED');
      assert.ok(Number(contact.headers.get('retry-after')) > 0);

      let last;
      for (let request = 6; request <= 31; request++) last = await proxy('wallet_kit_config', config.configId, {});
      assert.equal(last!.status, 429);
      assert.match(last!.json.message, /client address/);
      assert.ok(Number(last!.headers.get('retry-after')) > 0);
    });
  });
}
