// OAuth through the auth proxy, as @turnkey/core speaks it (its proxy calls, authProxyUrl pointed at
// Signet), with a real OpenID Connect provider on loopback: a sign-up binds the id token's identity
// to the new sub-organization's root user (with the configuration's default wallet); /v1/account
// finds it by an id token; /v1/oauth_login answers a session Signet signed for the key whose SHA-256
// is the token's nonce, and that key then stamps as the user. Refused: a token for another key
// (nonce), another audience, an issuer not configured, an expired token (the server's clock), an
// identity bound to nobody; OAuth not enabled in a configuration.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { TurnkeyClient } from '@turnkey/core';
import { generateP256KeyPair, verifySessionJwtSignature } from '@turnkey/crypto';
import { TurnkeyClient as HttpClient } from '@turnkey/http';
import { Turnkey } from '@turnkey/sdk-server';
import type { ClientMetadata } from 'oidc-provider';
import { testDatabases } from './support/databases.ts';
import { oidcProviderSkip, sessionNonce, signingKey, startOidcProvider, type LoopbackOidcProvider } from './support/oidcProvider.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';


interface CreatedConfig {
  configId: string;
  policy: { policyName: string; effect: string; condition: string; consensus: string };
}

for (const tdb of testDatabases) {
  describe(`OAuth through the auth proxy, with a real OpenID Connect provider (${tdb.name})`, { skip: oidcProviderSkip }, () => {
    let provider: LoopbackOidcProvider;
    let unconfigured: LoopbackOidcProvider;
    let server: TestServer;
    let org: Credentials;
    let signerKeys: { sessionSignerPublicKey: string };

    before(async () => {
      const clients: ClientMetadata[] = [
        { client_id: 'app', id_token_signed_response_alg: 'ES256' },
        { client_id: 'other-app', id_token_signed_response_alg: 'ES256' },
      ];
      provider = await startOidcProvider({ keys: [await signingKey('ES256', 'ec-1')], clients });
      unconfigured = await startOidcProvider({ keys: [await signingKey('ES256', 'ec-1')], clients });
      server = await startTestServer(tdb, { SIGNET_OIDC_ISSUERS: provider.issuer }, { oidcAgent: provider.agent });
      org = await server.createOrganization('App');
      signerKeys = (await (await fetch(`${server.baseUrl}/.well-known/signet-keys.json`)).json()) as typeof signerKeys;
    });
    after(async () => {
      await server?.close();
      await provider?.close();
      await unconfigured?.close();
    });

    /** A configuration with these methods, allowed to act by the policy its answer names. */
    async function allowedConfig(methods: string): Promise<CreatedConfig> {
      const config = await server.admin<CreatedConfig>('POST', `/organizations/${org.organizationId}/auth-proxy-configs`, {
        allowedOrigins: ['https://app.example'],
        methods,
        walletName: 'Default',
        walletAccounts: ['ADDRESS_FORMAT_ETHEREUM'],
      });
      const root = new Turnkey({ apiBaseUrl: server.baseUrl, apiPublicKey: org.apiPublicKey, apiPrivateKey: org.apiPrivateKey, defaultOrganizationId: org.organizationId }).apiClient();
      await root.createPolicy({ ...config.policy, effect: 'EFFECT_ALLOW', notes: 'the auth proxy' });
      return config;
    }

    /** @turnkey/core's client as a page makes it, its proxy calls going to the test server. */
    function coreClient(configId: string): TurnkeyClient {
      const client = new TurnkeyClient({ apiBaseUrl: server.baseUrl, authProxyUrl: server.baseUrl, authProxyConfigId: configId, organizationId: org.organizationId });
      client.httpClient = client.createHttpClient();
      return client;
    }

    async function proxy(path: string, configId: string, body: unknown) {
      const response = await fetch(`${server.baseUrl}/v1/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-Auth-Proxy-Config-ID': configId },
        body: JSON.stringify(body),
      });
      return { status: response.status, json: (await response.json()) as any };
    }

    test('a sign-up binds the identity; /v1/account finds it; /v1/oauth_login answers a session whose key stamps as the user', async () => {
      const config = await allowedConfig('oauth');
      const core = coreClient(config.configId);
      const kit = await proxy('wallet_kit_config', config.configId, {});
      assert.deepEqual(kit.json.enabledProviders, ['oauth']);

      const bindToken = await provider.idToken('app', sessionNonce(generateP256KeyPair().publicKey), 'olivia');
      assert.deepEqual(await core.httpClient.proxyGetAccount({ filterType: 'OIDC_TOKEN', filterValue: bindToken }), {});
      const signed = await core.httpClient.proxySignupV2({
        userName: 'olivia',
        organizationName: 'Olivia',
        apiKeys: [],
        authenticators: [],
        oauthProviders: [{ providerName: 'Loopback', oidcToken: bindToken }],
      });
      assert.match(signed.organizationId, /^[0-9a-f-]{36}$/);
      assert.equal(signed.wallet?.addresses.length, 1, 'the configuration\'s default wallet');
      const found = await core.httpClient.proxyGetAccount({ filterType: 'OIDC_TOKEN', filterValue: await provider.idToken('app', sessionNonce(generateP256KeyPair().publicKey), 'olivia') });
      assert.deepEqual(found, { organizationId: signed.organizationId });

      const sessionKey = generateP256KeyPair();
      const { session } = await core.httpClient.proxyOAuthLogin({ oidcToken: await provider.idToken('app', sessionNonce(sessionKey.publicKey), 'olivia'), publicKey: sessionKey.publicKey });
      assert.equal(await verifySessionJwtSignature(session, signerKeys.sessionSignerPublicKey), true);
      const claims = JSON.parse(Buffer.from(session.split('.')[1]!, 'base64url').toString('utf8'));
      assert.equal(claims.organization_id, signed.organizationId);
      assert.equal(claims.user_id, signed.userId);
      assert.equal(claims.public_key, sessionKey.publicKey);
      // The session's key stamps as the user, in its sub-organization.
      const asUser = new HttpClient({ baseUrl: server.baseUrl }, new ApiKeyStamper({ apiPublicKey: sessionKey.publicKey, apiPrivateKey: sessionKey.privateKey }));
      const whoami = await asUser.getWhoami({ organizationId: signed.organizationId });
      assert.equal(whoami.userId, signed.userId);
      const wallets = await asUser.getWallets({ organizationId: signed.organizationId });
      assert.equal(wallets.wallets.length, 1);
    });

    test('refused: a token for another key, another audience, an issuer not configured, an identity bound to nobody, OAuth not enabled, an expired token', async () => {
      const config = await allowedConfig('oauth');
      const core = coreClient(config.configId);
      const signed = await core.httpClient.proxySignupV2({
        userName: 'pat',
        apiKeys: [],
        authenticators: [],
        oauthProviders: [{ providerName: 'Loopback', oidcToken: await provider.idToken('app', sessionNonce(generateP256KeyPair().publicKey), 'pat') }],
      });
      const sessionKey = generateP256KeyPair();
      const login = (oidcToken: string) => proxy('oauth_login', config.configId, { oidcToken, publicKey: sessionKey.publicKey, organizationId: signed.organizationId });
      const refusedAs = async (answer: { status: number; json: any }, status: number, pattern: RegExp) => {
        assert.equal(answer.status, status, JSON.stringify(answer.json));
        assert.match(answer.json.message, pattern);
      };
      await refusedAs(await login(await provider.idToken('app', sessionNonce(generateP256KeyPair().publicKey), 'pat')), 400, /OIDC token refused \(nonce\)/);
      await refusedAs(await login(await provider.idToken('other-app', sessionNonce(sessionKey.publicKey), 'pat')), 400, /OIDC token refused \(audience\)/);
      await refusedAs(await login(await unconfigured.idToken('app', sessionNonce(sessionKey.publicKey), 'pat')), 400, /OIDC token refused \(issuer\)/);
      const nobody = await proxy('oauth_login', config.configId, { oidcToken: await provider.idToken('app', sessionNonce(sessionKey.publicKey), 'nobody'), publicKey: sessionKey.publicKey });
      await refusedAs(nobody, 404, /has a user bound to this identity; sign up first/);

      const otpOnly = await allowedConfig('otp');
      const disabled = await proxy('oauth_login', otpOnly.configId, { oidcToken: await provider.idToken('app', sessionNonce(sessionKey.publicKey), 'pat'), publicKey: sessionKey.publicKey });
      assert.equal(disabled.status, 403);
      assert.equal(disabled.json.details[0].turnkeyErrorCode, 'AUTH_PROXY_METHOD_DISABLED');

      // Last: it moves the server's clock past the token's expiry.
      const token = await provider.idToken('app', sessionNonce(sessionKey.publicKey), 'pat');
      const { exp } = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as { exp: number };
      server.clock.advance(exp * 1000 - server.clock.now().getTime() + 120_000);
      await refusedAs(await login(token), 400, /OIDC token refused \(expiry\)/);
    });
  });
}
