// Private keys through the real HTTP stack and @turnkey/http's own TurnkeyClient: create_private_keys
// with a secp256k1 key (Ethereum and compressed addresses) and an ed25519 key (Solana address), the
// answers of get_private_key and list_private_keys; the sealed key, opened here with the KEK of the
// deployment secret, makes the Ethereum address as viem makes it, and it is in clear nowhere: not in
// the store (every table's rows as text), the logs, an answer, a list nor an error; a format the curve
// has not, a tag and a name taken are 400s naming the field; the bound per organization; another
// organization reads none of it; delete_private_keys refuses a key never exported unless
// deleteWithoutExport is true, and an unknown id is a 404 naming it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TurnkeyClient } from '@turnkey/http';
import { base58 } from '@scure/base';
import { toHex } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';
import { MAX_PRIVATE_KEYS, PRIVATE_KEY_MATERIAL } from '../src/activities/handlers/privateKeys/newPrivateKeys.ts';
import { openKeyMaterial } from '../src/keys/custody/sealKeyMaterial.ts';
import { testDatabases } from './support/databases.ts';
import { logCapture } from './support/logCapture.ts';
import { refused } from './support/refusals.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';

const INVALID_ARGUMENT = 3;
const NOT_FOUND = 5;
const PERMISSION_DENIED = 7;

type KeyParams = { privateKeyName: string; curve: string; privateKeyTags: string[]; addressFormats: string[] };
const SECP = { privateKeyName: 'Hot', curve: 'CURVE_SECP256K1', privateKeyTags: [], addressFormats: ['ADDRESS_FORMAT_ETHEREUM', 'ADDRESS_FORMAT_COMPRESSED'] };
const ED = { privateKeyName: 'Sol', curve: 'CURVE_ED25519', privateKeyTags: [], addressFormats: ['ADDRESS_FORMAT_SOLANA'] };

let sequence = 0;
const stamp = (organizationId: string) => ({ timestampMs: String(Date.now() + ++sequence), organizationId });

for (const tdb of testDatabases) {
  describe(`private keys (${tdb.name})`, () => {
    const log = logCapture();
    let server: TestServer;
    let org: Credentials;
    let client: TurnkeyClient;
    let created: Array<{ privateKeyId: string; addresses: Array<{ format: string; address: string }> }>;
    /** Every answer and error this test received, as text: no key material may be in them. */
    const answers: string[] = [];
    const seen = async <T,>(promise: Promise<T>): Promise<T> => {
      try {
        const answer = await promise;
        answers.push(JSON.stringify(answer));
        return answer;
      } catch (error: any) {
        answers.push(JSON.stringify({ message: error.message, details: error.details }));
        throw error;
      }
    };

    const create = (keys: readonly KeyParams[], credentials = org) =>
      seen(server.client(credentials).createPrivateKeys({ type: 'ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2', ...stamp(credentials.organizationId), parameters: { privateKeys: keys as any } }) as Promise<any>);
    const remove = (privateKeyIds: string[], deleteWithoutExport?: boolean) =>
      seen(
        client.deletePrivateKeys({
          type: 'ACTIVITY_TYPE_DELETE_PRIVATE_KEYS',
          ...stamp(org.organizationId),
          parameters: { privateKeyIds, ...(deleteWithoutExport === undefined ? {} : { deleteWithoutExport }) },
        }) as Promise<any>,
      );

    before(async () => {
      server = await startTestServer(tdb, { SIGNET_OUTBOX_WORKER: 'false' }, { logger: { level: 'debug', stream: log.stream } });
      org = await server.createOrganization('Keys');
      client = server.client(org);
      const answer = await create([SECP, ED]);
      assert.equal(answer.activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.equal(answer.activity.type, 'ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2');
      created = answer.activity.result.createPrivateKeysResultV2.privateKeys;
    });
    after(() => server.close());

    test('create_private_keys answers each key’s id and one address per format, in order', () => {
      assert.equal(created.length, 2);
      assert.match(created[0]!.privateKeyId, /^[0-9a-f-]{36}$/);
      assert.deepEqual(created[0]!.addresses.map((a) => a.format), SECP.addressFormats);
      assert.match(created[0]!.addresses[0]!.address, /^0x[0-9a-fA-F]{40}$/);
      assert.match(created[0]!.addresses[1]!.address, /^0[23][0-9a-f]{64}$/);
      assert.deepEqual(created[1]!.addresses.map((a) => a.format), ['ADDRESS_FORMAT_SOLANA']);
      assert.match(created[1]!.addresses[0]!.address, /^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    });

    test('get_private_key and list_private_keys answer what was created; another organization reads none of it', async () => {
      const { privateKey } = await seen(client.getPrivateKey({ organizationId: org.organizationId, privateKeyId: created[0]!.privateKeyId }) as Promise<any>);
      assert.deepEqual(
        { ...privateKey, createdAt: undefined, updatedAt: undefined },
        {
          privateKeyId: created[0]!.privateKeyId,
          publicKey: created[0]!.addresses[1]!.address,
          privateKeyName: 'Hot',
          curve: 'CURVE_SECP256K1',
          addresses: created[0]!.addresses,
          privateKeyTags: [],
          exported: false,
          imported: false,
          createdAt: undefined,
          updatedAt: undefined,
        },
      );
      assert.equal(privateKey.createdAt, privateKey.updatedAt);
      const { privateKeys } = await seen(client.getPrivateKeys({ organizationId: org.organizationId }) as Promise<any>);
      assert.deepEqual(
        privateKeys.map((k: any) => k.privateKeyId).sort(),
        created.map((k) => k.privateKeyId).sort(),
      );
      assert.deepEqual(privateKeys.find((k: any) => k.privateKeyId === created[0]!.privateKeyId), privateKey);
      const ed = privateKeys.find((k: any) => k.privateKeyId === created[1]!.privateKeyId);
      assert.equal(ed.curve, 'CURVE_ED25519');
      assert.equal(base58.encode(Buffer.from(ed.publicKey, 'hex')), created[1]!.addresses[0]!.address);

      const other = await server.createOrganization('Other');
      const otherClient = server.client(other);
      await refused(seen(otherClient.getPrivateKey({ organizationId: other.organizationId, privateKeyId: created[0]!.privateKeyId })), NOT_FOUND, /no private key/);
      assert.deepEqual(((await otherClient.getPrivateKeys({ organizationId: other.organizationId })) as any).privateKeys, []);
      // Nor can it sign with it, by id or address.
      await refused(
        otherClient.signRawPayload({
          type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
          ...stamp(other.organizationId),
          parameters: { signWith: created[0]!.privateKeyId, payload: '0x00', encoding: 'PAYLOAD_ENCODING_HEXADECIMAL', hashFunction: 'HASH_FUNCTION_KECCAK256' },
        }),
        NOT_FOUND,
        /could not find any resource to sign with/,
      );
    });

    test('a format the curve has not, a tag, a name taken and a bad curve are 400s naming the field; nothing is stored', async () => {
      const count = async () => (await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM private_keys WHERE organization_id = $1', [org.organizationId]))[0]!.n;
      const before = await count();
      await refused(create([{ ...SECP, privateKeyName: 'x', addressFormats: ['ADDRESS_FORMAT_SOLANA'] }]), INVALID_ARGUMENT, /not an address of a CURVE_SECP256K1 key/, 'parameters.privateKeys[0].addressFormats[0]');
      await refused(create([{ ...ED, privateKeyName: 'x', privateKeyTags: ['5b0c2f4e-8d7a-4c3b-9e1f-2a6d8c4b7e90'] }]), INVALID_ARGUMENT, /private key tags/, 'parameters.privateKeys[0].privateKeyTags');
      await refused(create([{ ...ED, curve: 'CURVE_P256' }]), INVALID_ARGUMENT, /must be one of/, 'parameters.privateKeys[0].curve');
      await refused(create([{ ...ED, privateKeyName: 'Other' }, { ...ED, privateKeyName: ' Hot ' }]), INVALID_ARGUMENT, /already has a private key named "Hot"/, 'parameters.privateKeys[1].privateKeyName');
      assert.equal(await count(), before);
    });

    test(`an organization holds at most ${MAX_PRIVATE_KEYS} private keys; one more is a 400`, async () => {
      const bounded = await server.createOrganization('Bounded');
      const many = Array.from({ length: MAX_PRIVATE_KEYS }, (_, i) => ({ ...ED, privateKeyName: `k${i}` }));
      const answer = await create(many, bounded);
      assert.equal(answer.activity.result.createPrivateKeysResultV2.privateKeys.length, MAX_PRIVATE_KEYS);
      await refused(create([{ ...ED, privateKeyName: 'one more' }], bounded), INVALID_ARGUMENT, new RegExp(`at most ${MAX_PRIVATE_KEYS} private keys`));
    });

    test("the sealed key, opened with the server's KEK, makes the address viem makes; it is nowhere in clear: store, logs, answers, errors", async () => {
      const rows = await server.db.query<{ id: string; sealed_private_key: string }>('SELECT id, sealed_private_key FROM private_keys WHERE organization_id = $1', [org.organizationId]);
      const kek = server.server.kek;
      const secrets: string[] = [];
      for (const { id, sealed_private_key } of rows) {
        const opened = await openKeyMaterial(kek, { organizationId: org.organizationId, rowId: id, kind: PRIVATE_KEY_MATERIAL }, sealed_private_key);
        secrets.push(opened.toString('hex'), opened.toString('base64'), base58.encode(opened));
        if (id === created[0]!.privateKeyId) assert.equal(privateKeyToAddress(toHex(opened)), created[0]!.addresses[0]!.address);
        opened.fill(0);
      }
      assert.equal(rows.length, 2);
      // Sign with one so the logs hold a signing too.
      await seen(
        client.signRawPayload({
          type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
          ...stamp(org.organizationId),
          parameters: { signWith: created[0]!.privateKeyId, payload: 'hello', encoding: 'PAYLOAD_ENCODING_TEXT_UTF8', hashFunction: 'HASH_FUNCTION_KECCAK256' },
        }) as Promise<any>,
      );
      const tables = await server.db.query<{ table_name: string }>(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name",
      );
      let dump = '';
      for (const { table_name } of tables) {
        const all = await server.db.query<{ row: string }>(`SELECT t::text AS row FROM "${table_name}" t`);
        dump += all.map((r) => r.row).join('\n');
      }
      assert.ok(dump.includes(created[0]!.privateKeyId), 'the dump holds the key');
      const logs = log.text();
      assert.ok(logs.includes('create_private_keys'), 'the logs hold the request');
      const said = answers.join('\n');
      assert.ok(said.includes(created[0]!.addresses[0]!.address), 'the answers were recorded');
      for (const secret of secrets) {
        for (const [where, text] of Object.entries({ store: dump, logs, answers: said })) {
          assert.ok(!text.toLowerCase().includes(secret.toLowerCase()), `a private key is in the ${where}`);
        }
      }
    });

    test('a user no policy allows is refused (403); under a policy asking for the root user too, create_private_keys waits and the approval creates the key once', async () => {
      const { userId } = await server.admin('POST', `/organizations/${org.organizationId}/users`, { userName: 'member' });
      const key = await server.admin('POST', `/organizations/${org.organizationId}/api-keys`, { userId });
      const member = { ...org, userId, apiPublicKey: key.apiPublicKey, apiPrivateKey: key.apiPrivateKey };
      await refused(create([{ ...ED, privateKeyName: 'Member key' }], member), PERMISSION_DENIED, /./);

      const { activity: policy } = (await client.createPolicy({
        type: 'ACTIVITY_TYPE_CREATE_POLICY_V3',
        ...stamp(org.organizationId),
        parameters: {
          policyName: 'private keys need the member and the root user',
          effect: 'EFFECT_ALLOW',
          condition: "activity.resource == 'PRIVATE_KEY' && activity.action == 'CREATE'",
          consensus: `approvers.filter(user, user.id == '${userId}' || user.id == '${org.userId}').count() >= 2`,
          notes: '',
        },
      })) as any;
      assert.equal(policy.status, 'ACTIVITY_STATUS_COMPLETED');
      const { activity: waiting } = await create([{ ...ED, privateKeyName: 'Member key' }], member);
      assert.equal(waiting.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
      const count = async () => (await server.db.query('SELECT 1 FROM private_keys WHERE organization_id = $1 AND name = $2', [org.organizationId, 'Member key'])).length;
      assert.equal(await count(), 0);
      const approval = { type: 'ACTIVITY_TYPE_APPROVE_ACTIVITY' as const, ...stamp(org.organizationId), parameters: { fingerprint: waiting.fingerprint } };
      const { activity: approved } = (await seen(client.approveActivity(approval) as Promise<any>)) as any;
      assert.equal(approved.status, 'ACTIVITY_STATUS_COMPLETED');
      const [made] = approved.result.createPrivateKeysResultV2.privateKeys;
      assert.equal(await count(), 1);
      const { activity: again } = (await client.approveActivity(approval)) as any;
      assert.deepEqual(again.result.createPrivateKeysResultV2.privateKeys, [made]);
      assert.equal(await count(), 1);
    });

    test('delete_private_keys: an unknown id is a 404 naming it; a key never exported is a 400 unless deleteWithoutExport; then it is gone', async () => {
      const [{ privateKeyId: doomed }] = (await create([{ ...ED, privateKeyName: 'Doomed' }])).activity.result.createPrivateKeysResultV2.privateKeys;
      const unknown = '0b5e2d7c-4a1f-4c8e-9d3b-6f2a8e1c5d70';
      await refused(remove([doomed, unknown], true), NOT_FOUND, new RegExp(`parameters.privateKeyIds\\[1\\]: no private key ${unknown}`));
      await refused(remove([doomed]), INVALID_ARGUMENT, /has not been exported/, 'parameters.deleteWithoutExport');
      await refused(remove([doomed], false), INVALID_ARGUMENT, /set deleteWithoutExport to true/, 'parameters.deleteWithoutExport');
      assert.equal(((await client.getPrivateKey({ organizationId: org.organizationId, privateKeyId: doomed })) as any).privateKey.privateKeyId, doomed);

      const answer = await remove([doomed.toUpperCase()], true);
      assert.equal(answer.activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.deepEqual(answer.activity.result.deletePrivateKeysResult, { privateKeyIds: [doomed] });
      await refused(client.getPrivateKey({ organizationId: org.organizationId, privateKeyId: doomed }), NOT_FOUND, /no private key/);
      const left = await server.db.query('SELECT 1 FROM private_key_addresses WHERE private_key_id = $1', [doomed]);
      assert.equal(left.length, 0);
      // The name is free again.
      await create([{ ...ED, privateKeyName: 'Doomed' }]);
    });
  });
}
