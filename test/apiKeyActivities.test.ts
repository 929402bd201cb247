// create_api_keys and delete_api_keys through @turnkey/http's TurnkeyClient, stamped by the
// organization's root key: a new key stamps reads at once, the curve, count and per-user bounds,
// unknown users and keys, public keys already registered, revocation refusing the key's next
// request (the stamping key's own too), a user outside the root quorum refused, and concurrent
// creations holding the per-user bound.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TurnkeyClient } from '@turnkey/http';
import { generateApiKeyPair } from '../src/admin/organizations.ts';
import { testDatabases } from './support/databases.ts';
import { refused } from './support/refusals.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';

const INVALID_ARGUMENT = 3;
const NOT_FOUND = 5;
const PERMISSION_DENIED = 7;
const UNAUTHENTICATED = 16;
const UNKNOWN_ID = '0b6e4f3a-2c1d-4e5f-8a9b-7c6d5e4f3a2b';

type KeyParams = { apiKeyName: string; publicKey: string; curveType: 'API_KEY_CURVE_P256' | 'API_KEY_CURVE_SECP256K1' | 'API_KEY_CURVE_ED25519'; expirationSeconds?: string };

function p256(name: string, extra: Partial<KeyParams> = {}): KeyParams & { pair: { apiPublicKey: string; apiPrivateKey: string } } {
  const pair = generateApiKeyPair();
  return { apiKeyName: name, publicKey: pair.apiPublicKey, curveType: 'API_KEY_CURVE_P256', ...extra, pair };
}

/** The parameters without the test's private halves. */
function sent(keys: Array<KeyParams & { pair?: unknown }>): KeyParams[] {
  return keys.map(({ pair: _pair, ...key }) => key);
}

for (const tdb of testDatabases) {
  describe(`API key activities (${tdb.name})`, () => {
    let server: TestServer;
    let org: Credentials;
    let root: TurnkeyClient;

    const create = (client: TurnkeyClient, userId: string, apiKeys: Array<KeyParams & { pair?: unknown }>) =>
      client.createApiKeys({
        type: 'ACTIVITY_TYPE_CREATE_API_KEYS_V2',
        timestampMs: String(Date.now()),
        organizationId: org.organizationId,
        parameters: { userId, apiKeys: sent(apiKeys) },
      });
    const remove = (client: TurnkeyClient, userId: string, apiKeyIds: string[], organizationId = org.organizationId) =>
      client.deleteApiKeys({ type: 'ACTIVITY_TYPE_DELETE_API_KEYS', timestampMs: String(Date.now()), organizationId, parameters: { userId, apiKeyIds } });
    const newUser = async (userName: string) => (await server.admin('POST', `/organizations/${org.organizationId}/users`, { userName })).userId as string;
    const liveKeyCount = async (userId: string) => {
      const [row] = await server.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL`, [userId]);
      return row!.n;
    };

    before(async () => {
      server = await startTestServer(tdb);
      org = await server.createOrganization('Keys');
      root = server.client(org);
    });

    after(() => server.close());

    test('a new key of a user stamps at once: whoami names the user, get_api_keys lists the key', async () => {
      const bob = await newUser('bob');
      const laptop = p256('laptop');
      const ci = p256('ci', { expirationSeconds: '3600' });
      const answer = await create(root, bob, [laptop, ci]);
      assert.equal(answer.activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.equal(answer.activity.type, 'ACTIVITY_TYPE_CREATE_API_KEYS_V2');
      const ids = answer.activity.result.createApiKeysResult!.apiKeyIds;
      assert.equal(ids.length, 2);
      assert.deepEqual(answer.activity.intent.createApiKeysIntentV2, { userId: bob, apiKeys: sent([laptop, ci]) });

      const asBob = server.client(laptop.pair);
      assert.equal((await asBob.getWhoami({ organizationId: org.organizationId })).userId, bob);
      const { apiKeys } = await server.client(ci.pair).getApiKeys({ organizationId: org.organizationId, userId: bob });
      assert.deepEqual(apiKeys.map((k) => k.apiKeyId).sort(), [...ids].sort());
      assert.equal(apiKeys.find((k) => k.apiKeyId === ids[0])!.apiKeyName, 'laptop');
      assert.equal(apiKeys.find((k) => k.apiKeyId === ids[0])!.credential.publicKey, laptop.publicKey);

      // bob is not in the root quorum: his own request to add a key is refused by authorization.
      await refused(create(asBob, bob, [p256('mine')]), PERMISSION_DENIED, /./);
      assert.equal(await liveKeyCount(bob), 2);
    });

    test('refusals: another curve, no key or too many, the same key twice, a key the organization has (400); an unknown or removed user (404); nothing written', async () => {
      const carol = await newUser('carol');
      await refused(create(root, carol, [p256('k', { curveType: 'API_KEY_CURVE_SECP256K1' })]), INVALID_ARGUMENT, /API_KEY_CURVE_SECP256K1/, 'parameters.apiKeys[0].curveType');
      await refused(create(root, carol, [p256('k'), p256('k', { curveType: 'API_KEY_CURVE_ED25519' })]), INVALID_ARGUMENT, /ED25519/, 'parameters.apiKeys[1].curveType');
      await refused(create(root, carol, []), INVALID_ARGUMENT, /at least one/, 'parameters.apiKeys');
      await refused(create(root, carol, Array.from({ length: 11 }, (_, i) => p256(`k${i}`))), INVALID_ARGUMENT, /at most 10/, 'parameters.apiKeys');
      await refused(create(root, carol, [p256('k', { publicKey: 'not a key' })]), INVALID_ARGUMENT, /P-256/, 'parameters.apiKeys[0].publicKey');
      await refused(create(root, carol, [p256('k', { expirationSeconds: '0' })]), INVALID_ARGUMENT, /whole number/, 'parameters.apiKeys[0].expirationSeconds');
      const twice = p256('a');
      await refused(create(root, carol, [twice, { ...twice, apiKeyName: 'b' }]), INVALID_ARGUMENT, /same public key/, 'parameters.apiKeys[1].publicKey');
      // The root's own key, and one revoked since (revoked keys stay registered).
      await refused(create(root, carol, [p256('fresh'), p256('root', { publicKey: org.apiPublicKey })]), INVALID_ARGUMENT, /already registered/, 'parameters.apiKeys[1].publicKey');
      const old = await server.admin('POST', `/organizations/${org.organizationId}/api-keys`, { userId: carol });
      await server.admin('DELETE', `/organizations/${org.organizationId}/api-keys/${old.apiKeyId}`);
      await refused(create(root, carol, [p256('again', { publicKey: old.apiPublicKey })]), INVALID_ARGUMENT, /already registered/, 'parameters.apiKeys[0].publicKey');
      await refused(create(root, UNKNOWN_ID, [p256('k')]), NOT_FOUND, /parameters\.userId: no user/);
      const gone = await newUser('gone');
      await server.admin('DELETE', `/organizations/${org.organizationId}/users/${gone}`);
      await refused(create(root, gone, [p256('k')]), NOT_FOUND, /parameters\.userId: no user/);
      // Another organization's user is not this one's.
      const elsewhere = await server.createOrganization('Elsewhere');
      await refused(create(root, elsewhere.userId, [p256('k')]), NOT_FOUND, /parameters\.userId: no user/);
      assert.equal(await liveKeyCount(carol), 0);
      assert.equal(await liveKeyCount(gone), 0);
    });

    test('a user has at most 10 live keys that do not expire and 10 that do; revoked and expired ones do not count', async () => {
      const dave = await newUser('dave');
      const long = await create(root, dave, Array.from({ length: 9 }, (_, i) => p256(`long${i}`)));
      await refused(create(root, dave, [p256('x'), p256('y')]), INVALID_ARGUMENT, /more than 10 live API keys that do not expire/, 'parameters.apiKeys[0]');
      assert.equal(await liveKeyCount(dave), 9);
      await create(root, dave, [p256('tenth')]);
      // Expiring keys have their own bound; a long-lived one in the same request is still refused.
      await create(root, dave, Array.from({ length: 10 }, (_, i) => p256(`short${i}`, { expirationSeconds: '600' })));
      await refused(create(root, dave, [p256('eleventh', { expirationSeconds: '600' })]), INVALID_ARGUMENT, /that expire/, 'parameters.apiKeys[0]');
      await refused(create(root, dave, [p256('short', { expirationSeconds: '600' }), p256('long')]), INVALID_ARGUMENT, /do not expire/, 'parameters.apiKeys[1]');
      assert.equal(await liveKeyCount(dave), 20);
      // An expired key and a revoked one free their places.
      await server.db.query(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE user_id = $1 AND name = 'short0'`, [dave]);
      await create(root, dave, [p256('short10', { expirationSeconds: '600' })]);
      await remove(root, dave, [long.activity.result.createApiKeysResult!.apiKeyIds[0]!]);
      await create(root, dave, [p256('long10')]);
      // Session keys are not API keys: they do not count.
      await server.db.query(
        `INSERT INTO api_keys (id, organization_id, user_id, name, public_key, kind, expires_at) VALUES (gen_random_uuid(), $1, $2, 'session', $3, 'session', now() + interval '900 seconds')`,
        [org.organizationId, dave, generateApiKeyPair().apiPublicKey],
      );
      await refused(create(root, dave, [p256('past')]), INVALID_ARGUMENT, /do not expire/, 'parameters.apiKeys[0]');
    });

    test('delete_api_keys revokes at once: the key\'s next request is refused; unknown, revoked or another user\'s key is a 404 and nothing is revoked', async () => {
      const erin = await newUser('erin');
      const frank = await newUser('frank');
      const first = p256('first');
      const second = p256('second');
      const [firstId, secondId] = (await create(root, erin, [first, second])).activity.result.createApiKeysResult!.apiKeyIds as [string, string];
      const [frankKey] = (await create(root, frank, [p256('frank')])).activity.result.createApiKeysResult!.apiKeyIds as [string];

      await refused(remove(root, erin, [firstId, UNKNOWN_ID]), NOT_FOUND, /parameters\.apiKeyIds\[1\]/);
      await refused(remove(root, erin, [firstId, frankKey]), NOT_FOUND, /parameters\.apiKeyIds\[1\]/);
      await refused(remove(root, frank, [firstId]), NOT_FOUND, /parameters\.apiKeyIds\[0\]/);
      await refused(remove(root, erin, [firstId, firstId.toUpperCase()]), INVALID_ARGUMENT, /twice/, 'parameters.apiKeyIds');
      await refused(remove(root, erin, []), INVALID_ARGUMENT, /at least one/, 'parameters.apiKeyIds');
      assert.equal(await liveKeyCount(erin), 2);
      assert.equal((await server.client(first.pair).getWhoami({ organizationId: org.organizationId })).userId, erin);

      const deleted = await remove(root, erin, [firstId]);
      assert.equal(deleted.activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.deepEqual(deleted.activity.result.deleteApiKeysResult!.apiKeyIds, [firstId]);
      await refused(server.client(first.pair).getWhoami({ organizationId: org.organizationId }), UNAUTHENTICATED, /: API key revoked: /);
      assert.equal((await server.client(second.pair).getWhoami({ organizationId: org.organizationId })).userId, erin);
      // Kept, revoked: listed with the user's keys no more, its row still there.
      const { apiKeys } = await root.getApiKeys({ organizationId: org.organizationId, userId: erin });
      assert.deepEqual(apiKeys.map((k) => k.apiKeyId), [secondId]);
      const [row] = await server.db.query<{ revoked: boolean }>('SELECT revoked_at IS NOT NULL AS revoked FROM api_keys WHERE id = $1', [firstId]);
      assert.equal(row!.revoked, true);
      // Revoked already: a 404.
      await refused(remove(root, erin, [firstId]), NOT_FOUND, /parameters\.apiKeyIds\[0\]/);
    });

    test('the key stamping the request may revoke itself: the activity completes, the key\'s next request is refused', async () => {
      const self = await server.createOrganization('Self');
      const client = server.client(self);
      const answer = await remove(client, self.userId, [self.apiKeyId], self.organizationId);
      assert.equal(answer.activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.deepEqual(answer.activity.result.deleteApiKeysResult!.apiKeyIds, [self.apiKeyId]);
      await refused(client.getWhoami({ organizationId: self.organizationId }), UNAUTHENTICATED, /: API key revoked: /);
    });

    test('concurrent creations for one user hold the bound', { skip: tdb.name === 'postgres' ? false : 'the embedded store has one connection: requests never overlap in it' }, async () => {
      const grace = await newUser('grace');
      const outcomes = await Promise.allSettled(Array.from({ length: 16 }, (_, i) => create(root, grace, [p256(`k${i}`)])));
      assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 10);
      for (const o of outcomes) {
        if (o.status === 'rejected') assert.match(String((o.reason as Error).message), /more than 10 live API keys/);
      }
      assert.equal(await liveKeyCount(grace), 10);
    });
  });
}
