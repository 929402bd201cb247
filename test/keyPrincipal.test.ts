// One public key names one principal wherever it reaches: a key of an app's organization reaches its
// sub-organizations, and a sub-organization's key reaches its parent for whoami and stamp_login, so
// no path registers a key already registered in the same tree (the app's organization and its
// sub-organizations), and two instances of the server, one with the app's key in its credential
// cache and one without, agree on who signed. Through the real HTTP stack with @turnkey/sdk-server.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { generateP256KeyPair } from '@turnkey/crypto';
import { Turnkey } from '@turnkey/sdk-server';
import { p256PointHex } from '../src/keys/p256.ts';
import { startServer, type RunningServer } from '../src/server.ts';
import { testDatabases } from './support/databases.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';

type KeyPair = ReturnType<typeof generateP256KeyPair>;
type Client = ReturnType<InstanceType<typeof Turnkey>['apiClient']>;

const INVALID_ARGUMENT = 3;
const PERMISSION_DENIED = 7;

/** Awaits a 400 PUBLIC_KEY_TAKEN naming `field`. */
async function keyTaken(promise: Promise<unknown>, field: string): Promise<void> {
  await assert.rejects(promise, (error: any) => {
    assert.equal(error.code, INVALID_ARGUMENT, String(error.message));
    assert.match(String(error.message), /already (registered in|a key of) this organization, its parent or one of their sub-organizations/);
    const details = JSON.stringify(error.details ?? []);
    assert.ok(details.includes('"turnkeyErrorCode":"PUBLIC_KEY_TAKEN"'), details);
    assert.ok(details.includes(`"field":"${field}"`), details);
    return true;
  });
}

for (const tdb of testDatabases) {
  describe(`one public key, one principal (${tdb.name})`, () => {
    let server: TestServer;
    /** A second instance of the server on the same store, with a credential cache of its own. */
    let other: RunningServer;
    let app: Credentials;

    before(async () => {
      server = await startTestServer(tdb);
      other = await startServer({ ...server.config, outboxWorker: false }, { db: server.db, clock: server.clock.now });
      app = await server.createOrganization('App');
    });
    after(async () => {
      await other.close();
      await server.close();
    });

    const clientOf = (baseUrl: string, key: { apiPublicKey: string; apiPrivateKey: string }, organizationId: string): Client =>
      new Turnkey({ apiBaseUrl: baseUrl, ...key, defaultOrganizationId: organizationId }).apiClient();
    const asKey = (pair: KeyPair) => ({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey });
    const appAt = (baseUrl: string) => clientOf(baseUrl, app, app.organizationId);

    /** An end user's sign-up by the app: a sub-organization whose root user holds `key`. */
    async function signUp(key: { publicKey: string }): Promise<{ subOrganizationId: string; userId: string }> {
      const { subOrganizationId, rootUserIds } = await appAt(server.baseUrl).createSubOrganization({
        subOrganizationName: `user ${randomUUID().slice(0, 8)}`,
        rootUsers: [
          {
            userName: 'end user',
            apiKeys: [{ apiKeyName: 'device', publicKey: key.publicKey, curveType: 'API_KEY_CURVE_P256' }],
            authenticators: [],
            oauthProviders: [],
          },
        ],
        rootQuorumThreshold: 1,
      });
      return { subOrganizationId, userId: rootUserIds![0]! };
    }

    test("the end user cannot register the app's key in its sub-organization; the app's requests there are the app's in both instances", async () => {
      const endKey = generateP256KeyPair();
      const { subOrganizationId, userId } = await signUp(endKey);
      const endUser = clientOf(server.baseUrl, asKey(endKey), subOrganizationId);
      // The app's key in the first instance's cache: it just served it, in the sub-organization.
      assert.equal((await clientOf(server.baseUrl, app, subOrganizationId).getWhoami({ organizationId: subOrganizationId })).userId, app.userId);

      // The end user registers the app's public key, copied from the app's activities, in either spelling.
      const uncompressed = p256PointHex(app.apiPublicKey)!.uncompressed;
      for (const publicKey of [app.apiPublicKey, uncompressed, uncompressed.toUpperCase()]) {
        await keyTaken(
          endUser.createApiKeys({ userId, apiKeys: [{ apiKeyName: 'copied', publicKey, curveType: 'API_KEY_CURVE_P256' }] }),
          'parameters.apiKeys[0].publicKey',
        );
        // As a session key: stamp_login needs no proof of the key it names.
        await keyTaken(endUser.stampLogin({ organizationId: subOrganizationId, publicKey }), 'parameters.publicKey');
      }
      // Nor may the operator, in the sub-organization.
      const admin = await fetch(`${server.baseUrl}/admin/v1/organizations/${subOrganizationId}/api-keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.config.adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ userId, publicKey: app.apiPublicKey }),
      });
      assert.equal(admin.status, 400);
      const refusal = (await admin.json()) as any;
      assert.equal(refusal.details.find((d: any) => d.turnkeyErrorCode)?.turnkeyErrorCode, 'PUBLIC_KEY_TAKEN');
      const registered = await server.db.query<{ organization_id: string }>('SELECT organization_id FROM api_keys WHERE public_key = $1', [app.apiPublicKey]);
      assert.deepEqual(registered.map((r) => r.organization_id), [app.organizationId]);

      // The app's request in the sub-organization: the app's, with the key cached (first instance)
      // and without (the second has not seen it); a write only the end user may do is the app's 403 in both.
      for (const baseUrl of [other.url, server.baseUrl]) {
        const asApp = clientOf(baseUrl, app, subOrganizationId);
        const me = await asApp.getWhoami({ organizationId: subOrganizationId });
        assert.equal(me.userId, app.userId, baseUrl);
        await assert.rejects(
          asApp.createUsers({
            organizationId: subOrganizationId,
            users: [{ userName: 'intruder', apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] }],
          }),
          (error: any) => error.code === PERMISSION_DENIED && /PARENT_MAY_NOT_SUBMIT/.test(JSON.stringify(error.details)),
        );
      }
    });

    test("no key twice in one tree: a root user's key of another sub-organization or of the app, the app's new key equal to an end user's", async () => {
      const endKey = generateP256KeyPair();
      const { subOrganizationId } = await signUp(endKey);
      const field = 'parameters.rootUsers[0].apiKeys[0].publicKey';
      // A sibling sub-organization whose root user holds the first end user's key: both would reach the app's organization (whoami, stamp_login).
      await keyTaken(signUp(endKey), field);
      await keyTaken(signUp({ publicKey: app.apiPublicKey }), field);
      // The app registering later a key equal to an end user's: the app's key would reach the sub-organization too.
      await keyTaken(
        appAt(server.baseUrl).createApiKeys({ userId: app.userId, apiKeys: [{ apiKeyName: 'same', publicKey: endKey.publicKey, curveType: 'API_KEY_CURVE_P256' }] }),
        'parameters.apiKeys[0].publicKey',
      );
      await keyTaken(appAt(server.baseUrl).stampLogin({ publicKey: endKey.publicKey }), 'parameters.publicKey');
      // The end user's key is still its own, in both instances.
      for (const baseUrl of [server.baseUrl, other.url]) {
        const me = await clientOf(baseUrl, asKey(endKey), subOrganizationId).getWhoami({ organizationId: subOrganizationId });
        assert.equal(me.organizationId, subOrganizationId);
      }
      // Another app's tree is another tree: the same key may be registered there.
      const elsewhere = await server.createOrganization('Another app');
      const { apiKeyIds } = await clientOf(server.baseUrl, elsewhere, elsewhere.organizationId).createApiKeys({
        userId: elsewhere.userId,
        apiKeys: [{ apiKeyName: 'same', publicKey: endKey.publicKey, curveType: 'API_KEY_CURVE_P256' }],
      });
      assert.equal(apiKeyIds.length, 1);
    });

    test('two sub-organizations registering one new key at once: one succeeds, the other is refused', async () => {
      const first = generateP256KeyPair();
      const second = generateP256KeyPair();
      const [a, b] = [await signUp(first), await signUp(second)];
      const shared = generateP256KeyPair();
      const register = (baseUrl: string, key: KeyPair, user: { subOrganizationId: string; userId: string }) =>
        clientOf(baseUrl, asKey(key), user.subOrganizationId).createApiKeys({
          userId: user.userId,
          apiKeys: [{ apiKeyName: 'shared', publicKey: shared.publicKey, curveType: 'API_KEY_CURVE_P256' }],
        });
      const outcomes = await Promise.allSettled([register(server.baseUrl, first, a), register(other.url, second, b)]);
      assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 1, JSON.stringify(outcomes));
      const failure = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected')!;
      assert.equal(failure.reason.code, INVALID_ARGUMENT, String(failure.reason.message));
      assert.match(JSON.stringify(failure.reason.details), /PUBLIC_KEY_TAKEN|CONCURRENT_CHANGE/);
      const registered = await server.db.query('SELECT id FROM api_keys WHERE public_key = $1', [shared.publicKey]);
      assert.equal(registered.length, 1);
    });
  });
}
