// OAuth (OpenID Connect) login as the ecosystem's clients drive it, with a real provider on loopback
// over https (test/support/oidcProvider.ts) whose id tokens carry the nonce the clients compute
// (SHA-256 hex of the session public key), through @turnkey/http's TurnkeyClient: an identity bound
// with create_oauth_providers (and shown by get_user) logs its user in with oauth_login, and the
// session key stamps as the user; a token for another key, another audience, of an issuer not
// configured, of an identity bound to nobody, or expired by the server's clock is refused, naming the
// check; an identity is bound to one user; unbound (or its user removed), it logs in no more; a sub-organization's root user
// bound at creation is found by list_suborgs' OIDC_TOKEN filter and logs in there. Both stores.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { generateP256KeyPair } from '@turnkey/crypto';
import { TurnkeyClient } from '@turnkey/http';
import { decodeJwt } from 'jose';
import type { ClientMetadata } from 'oidc-provider';
import { testDatabases } from './support/databases.ts';
import { oidcProviderSkip, sessionNonce, signingKey, startOidcProvider, type LoopbackOidcProvider } from './support/oidcProvider.ts';
import { refused } from './support/refusals.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';

const INVALID_ARGUMENT = 3;
const NOT_FOUND = 5;

type KeyPair = ReturnType<typeof generateP256KeyPair>;


/** A JWT's claims, as the clients read a session. */
const claimsOf = (jwt: string): Record<string, any> => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8'));

for (const tdb of testDatabases) {
  describe(`OAuth login with a real OpenID Connect provider (${tdb.name})`, { skip: oidcProviderSkip }, () => {
    let provider: LoopbackOidcProvider;
    let unconfigured: LoopbackOidcProvider;
    let server: TestServer;
    let org: Credentials;
    let client: TurnkeyClient;

    before(async () => {
      const clients: ClientMetadata[] = [
        { client_id: 'app', id_token_signed_response_alg: 'ES256' },
        { client_id: 'other-app', id_token_signed_response_alg: 'ES256' },
      ];
      provider = await startOidcProvider({ keys: [await signingKey('ES256', 'ec-1')], clients });
      unconfigured = await startOidcProvider({ keys: [await signingKey('ES256', 'ec-1')], clients });
      server = await startTestServer(tdb, { SIGNET_OIDC_ISSUERS: provider.issuer }, { oidcAgent: provider.agent });
      org = await server.createOrganization('Acme');
      client = server.client(org);
    });
    after(async () => {
      await server?.close();
      await provider?.close();
      await unconfigured?.close();
    });

    /** A request body as the clients make it, its timestampMs read from the server's clock (which a test moves forward). */
    const body = <P extends object, T extends string>(type: T, parameters: P, organizationId = org.organizationId) => ({
      type,
      timestampMs: String(server.clock.now().getTime()),
      organizationId,
      parameters,
    });
    const asKey = (key: KeyPair) => new TurnkeyClient({ baseUrl: server.baseUrl }, new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey }));

    async function newUser(userName: string): Promise<string> {
      const { activity } = await client.createUsers(
        body('ACTIVITY_TYPE_CREATE_USERS_V4', { users: [{ userName, userEmail: `${userName.toLowerCase()}@example.com`, apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] }] }),
      );
      return activity.result.createUsersResult!.userIds[0]!;
    }

    const bind = (userId: string, oidcToken: string, providerName = 'Loopback') =>
      client.createOauthProviders(body('ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2', { userId, oauthProviders: [{ providerName, oidcToken }] }));

    const login = (oidcToken: string, sessionKey: KeyPair, organizationId = org.organizationId, by = client) =>
      by.oauthLogin(body('ACTIVITY_TYPE_OAUTH_LOGIN', { oidcToken, publicKey: sessionKey.publicKey }, organizationId));

    test('a bound identity logs its user in: the session names the user and its key stamps as the user; get_user shows the binding', async () => {
      const userId = await newUser('Alice');
      const bindToken = await provider.idToken('app', sessionNonce(generateP256KeyPair().publicKey), 'alice');
      const { activity: bound } = await bind(userId, bindToken, 'Google');
      assert.equal(bound.status, 'ACTIVITY_STATUS_COMPLETED');
      const [providerId] = bound.result.createOauthProvidersResult!.providerIds;

      const { user } = await client.getUser({ organizationId: org.organizationId, userId });
      assert.deepEqual(
        user.oauthProviders.map(({ createdAt, updatedAt, ...rest }) => {
          assert.equal(createdAt, updatedAt);
          return rest;
        }),
        [{ providerId, providerName: 'Google', issuer: provider.issuer, audience: 'app', subject: 'alice' }],
      );

      const sessionKey = generateP256KeyPair();
      const token = await provider.idToken('app', sessionNonce(sessionKey.publicKey), 'alice');
      const { activity } = await login(token, sessionKey);
      assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
      const { session } = activity.result.oauthLoginResult!;
      const claims = claimsOf(session);
      assert.equal(claims.user_id, userId);
      assert.equal(claims.organization_id, org.organizationId);
      assert.equal(claims.public_key, sessionKey.publicKey);
      const whoami = await asKey(sessionKey).getWhoami({ organizationId: org.organizationId });
      assert.equal(whoami.userId, userId);
      assert.equal(whoami.username, 'Alice');
    });

    test('refused: a token for another session key, another audience, an issuer not configured, an identity bound to nobody', async () => {
      const userId = await newUser('Dora');
      await bind(userId, await provider.idToken('app', sessionNonce(generateP256KeyPair().publicKey), 'dora'));
      const sessionKey = generateP256KeyPair();
      const otherKey = generateP256KeyPair();

      const forOtherKey = await provider.idToken('app', sessionNonce(otherKey.publicKey), 'dora');
      await refused(login(forOtherKey, sessionKey), INVALID_ARGUMENT, /OIDC token refused \(nonce\).*requested for another key/, 'parameters.oidcToken');

      const otherAudience = await provider.idToken('other-app', sessionNonce(sessionKey.publicKey), 'dora');
      await refused(login(otherAudience, sessionKey), INVALID_ARGUMENT, /\(audience\).*issued to "other-app", not to "app"/, 'parameters.oidcToken');

      const unknownIssuer = await unconfigured.idToken('app', sessionNonce(sessionKey.publicKey), 'dora');
      await refused(login(unknownIssuer, sessionKey), INVALID_ARGUMENT, /\(issuer\).*is not one of SIGNET_OIDC_ISSUERS/, 'parameters.oidcToken');

      const unbound = await provider.idToken('app', sessionNonce(sessionKey.publicKey), 'nobody');
      await refused(login(unbound, sessionKey), NOT_FOUND, /no user of this organization is bound to its identity .*subject nobody/);

      // Nothing was registered by the refusals: the session key is unknown.
      const sessions = await server.db.query('SELECT 1 FROM api_keys WHERE user_id = $1', [userId]);
      assert.equal(sessions.length, 0);
    });

    test('one identity belongs to one user of the organization; unbound, it logs in no more and may be bound again', async () => {
      const erin = await newUser('Erin');
      const frank = await newUser('Frank');
      const { activity } = await bind(erin, await provider.idToken('app', sessionNonce(generateP256KeyPair().publicKey), 'erin'));
      const [providerId] = activity.result.createOauthProvidersResult!.providerIds;

      const again = await provider.idToken('app', sessionNonce(generateP256KeyPair().publicKey), 'erin');
      await refused(bind(frank, again), INVALID_ARGUMENT, /already bound to a user of this organization/, 'parameters.oauthProviders[0].oidcToken');
      // Two tokens of one identity in one request.
      await refused(
        client.createOauthProviders(body('ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS_V2', { userId: frank, oauthProviders: [{ providerName: 'a', oidcToken: again }, { providerName: 'b', oidcToken: again }] })),
        INVALID_ARGUMENT,
        /proves the same identity/,
        'parameters.oauthProviders[1].oidcToken',
      );
      // A token the provider did not sign: refused before anything is bound.
      const [head, claims] = again.split('.');
      await refused(bind(frank, `${head}.${claims}.${'A'.repeat(86)}`), INVALID_ARGUMENT, /\(signature\)/, 'parameters.oauthProviders[0].oidcToken');

      const sessionKey = generateP256KeyPair();
      await login(await provider.idToken('app', sessionNonce(sessionKey.publicKey), 'erin'), sessionKey);

      const { activity: deleted } = await client.deleteOauthProviders(body('ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS', { userId: erin, providerIds: [providerId!] }));
      assert.deepEqual(deleted.result.deleteOauthProvidersResult!.providerIds, [providerId]);
      assert.deepEqual((await client.getUser({ organizationId: org.organizationId, userId: erin })).user.oauthProviders, []);
      const later = generateP256KeyPair();
      await refused(login(await provider.idToken('app', sessionNonce(later.publicKey), 'erin'), later), NOT_FOUND, /no user of this organization is bound/);
      await refused(
        client.deleteOauthProviders(body('ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS', { userId: erin, providerIds: [providerId!] })),
        NOT_FOUND,
        /not every one is an OAuth provider of user/,
      );

      // Free again: bound to Frank, it logs Frank in.
      await bind(frank, again);
      const frankKey = generateP256KeyPair();
      const { activity: frankLogin } = await login(await provider.idToken('app', sessionNonce(frankKey.publicKey), 'erin'), frankKey);
      assert.equal(claimsOf(frankLogin.result.oauthLoginResult!.session).user_id, frank);

      // Removing Frank unbinds the identity: it logs nobody in, and is free for Erin again.
      await client.deleteUsers(body('ACTIVITY_TYPE_DELETE_USERS', { userIds: [frank] }));
      const afterRemoval = generateP256KeyPair();
      await refused(login(await provider.idToken('app', sessionNonce(afterRemoval.publicKey), 'erin'), afterRemoval), NOT_FOUND, /no user of this organization is bound/);
      await bind(erin, again);
      const { activity: erinLogin } = await login(await provider.idToken('app', sessionNonce(afterRemoval.publicKey), 'erin'), afterRemoval);
      assert.equal(claimsOf(erinLogin.result.oauthLoginResult!.session).user_id, erin);
    });

    test("a sub-organization's root user bound at creation: list_suborgs finds it by an id token, and the parent logs the user in there", async () => {
      const signupToken = await provider.idToken('app', sessionNonce(generateP256KeyPair().publicKey), 'carol');
      const { activity } = await client.createSubOrganization(
        body('ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8', {
          subOrganizationName: 'Carol',
          rootUsers: [{ userName: 'Carol', apiKeys: [], authenticators: [], oauthProviders: [{ providerName: 'Google', oidcToken: signupToken }] }],
          rootQuorumThreshold: 1,
        }),
      );
      const { subOrganizationId, rootUserIds = [] } = activity.result.createSubOrganizationResultV8!;

      const lookup = await provider.idToken('app', sessionNonce(generateP256KeyPair().publicKey), 'carol');
      const { organizationIds } = await client.getSubOrgIds({ organizationId: org.organizationId, filterType: 'OIDC_TOKEN', filterValue: lookup });
      assert.deepEqual(organizationIds, [subOrganizationId]);
      const nobody = await provider.idToken('app', sessionNonce(generateP256KeyPair().publicKey), 'nobody');
      assert.deepEqual((await client.getSubOrgIds({ organizationId: org.organizationId, filterType: 'OIDC_TOKEN', filterValue: nobody })).organizationIds, []);
      await refused(
        client.getSubOrgIds({ organizationId: org.organizationId, filterType: 'OIDC_TOKEN', filterValue: 'not.a.token' }),
        INVALID_ARGUMENT,
        /\(token\)/,
        'filterValue',
      );

      // The parent's API key submits the login in the sub-organization (as an app's backend does).
      const sessionKey = generateP256KeyPair();
      const { activity: loggedIn } = await login(await provider.idToken('app', sessionNonce(sessionKey.publicKey), 'carol'), sessionKey, subOrganizationId);
      const claims = claimsOf(loggedIn.result.oauthLoginResult!.session);
      assert.deepEqual([claims.user_id, claims.organization_id], [rootUserIds[0], subOrganizationId]);
      const { user } = await asKey(sessionKey).getUser({ organizationId: subOrganizationId, userId: rootUserIds[0]! });
      assert.equal(user.oauthProviders[0]!.subject, 'carol');
      // The identity is bound per organization: in the parent it logs nobody in.
      const inParent = generateP256KeyPair();
      await refused(login(await provider.idToken('app', sessionNonce(inParent.publicKey), 'carol'), inParent), NOT_FOUND, /no user of this organization is bound .*subject carol/);
    });

    // Last: it moves the server's clock an hour forward.
    test("an expired token is refused by the server's clock", async () => {
      const userId = await newUser('Gus');
      const sessionKey = generateP256KeyPair();
      const token = await provider.idToken('app', sessionNonce(sessionKey.publicKey), 'gus');
      await bind(userId, token);
      const { exp } = decodeJwt(token) as { exp: number };
      server.clock.advance(exp * 1000 - server.clock.now().getTime() + 120_000);
      await refused(login(token, sessionKey), INVALID_ARGUMENT, /OIDC token refused \(expiry\): it expired at/, 'parameters.oidcToken');
    });
  });
}
