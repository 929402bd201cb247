// Export and import of private keys through the real HTTP stack, @turnkey/http's TurnkeyClient and
// @turnkey/crypto's own bundle functions given Signet's enclaveSignerPublicKey: an export_private_key
// opens with decryptExportBundle to the key of the private key's address (a secp256k1 key as hex,
// viem making its Ethereum address; an Ed25519 key in Solana's 64-byte form, @solana/web3.js making its
// address), and marks the key exported, so it deletes without deleteWithoutExport. A known key (the
// first of Hardhat's development accounts) encrypted by encryptPrivateKeyToBundle to
// init_import_private_key's bundle imports to its known address, marked imported, and signs; the same
// bundle again, a key that is no secp256k1 key and another organization's key are refused. Neither key
// is in the logs nor in the store outside the sealed column.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Keypair } from '@solana/web3.js';
import { base58 } from '@scure/base';
import { decryptExportBundle, encryptPrivateKeyToBundle, generateP256KeyPair } from '@turnkey/crypto';
import type { TurnkeyClient } from '@turnkey/http';
import { keccak256, recoverAddress, toHex, type Hex } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';
import { testDatabases } from './support/databases.ts';
import { envelope } from './support/envelopes.ts';
import { logCapture } from './support/logCapture.ts';
import { refused } from './support/refusals.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';

/** Hardhat's first development account: a key everyone knows, and its address. */
const KNOWN_KEY = 'ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const KNOWN_ADDRESS = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const INVALID_ARGUMENT = 3;
const NOT_FOUND = 5;

for (const tdb of testDatabases) {
  describe(`private key export and import (${tdb.name})`, () => {
    const log = logCapture();
    let server: TestServer;
    let org: Credentials;
    let client: TurnkeyClient;
    let signerKey: string;
    /** Every private key a test saw in clear (hex): none may be in the logs or the store. */
    const secrets: string[] = [KNOWN_KEY];

    const submit = (type: string, parameters: object, organizationId = org.organizationId) => envelope(type as any, organizationId, parameters as any) as any;
    const createKey = async (privateKeyName: string, curve: string, addressFormats: string[]) => {
      const { activity } = (await client.createPrivateKeys(
        submit('ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2', { privateKeys: [{ privateKeyName, curve, privateKeyTags: [], addressFormats }] }),
      )) as any;
      return activity.result.createPrivateKeysResultV2.privateKeys[0] as { privateKeyId: string; addresses: Array<{ format: string; address: string }> };
    };
    const exportKey = async (privateKeyId: string, targetPublicKey: string) =>
      (await client.exportPrivateKey(submit('ACTIVITY_TYPE_EXPORT_PRIVATE_KEY', { privateKeyId, targetPublicKey }))) as any;
    const importBundleFor = async (as: Credentials = org) =>
      ((await server.client(as).initImportPrivateKey(submit('ACTIVITY_TYPE_INIT_IMPORT_PRIVATE_KEY', { userId: as.userId }, as.organizationId))) as any).activity.result
        .initImportPrivateKeyResult.importBundle as string;
    const importKey = (encryptedBundle: string, privateKeyName: string, as: Credentials = org) =>
      server
        .client(as)
        .importPrivateKey(
          submit('ACTIVITY_TYPE_IMPORT_PRIVATE_KEY', { userId: as.userId, privateKeyName, encryptedBundle, curve: 'CURVE_SECP256K1', addressFormats: ['ADDRESS_FORMAT_ETHEREUM'] }, as.organizationId),
        ) as Promise<any>;
    const encrypt = (importBundle: string, privateKey: string, as: Credentials = org) =>
      encryptPrivateKeyToBundle({ privateKey, keyFormat: 'HEXADECIMAL', importBundle, userId: as.userId, organizationId: as.organizationId, dangerouslyOverrideSignerPublicKey: signerKey });

    before(async () => {
      server = await startTestServer(tdb, { SIGNET_OUTBOX_WORKER: 'false' }, { logger: { level: 'debug', stream: log.stream } });
      org = await server.createOrganization('Key export');
      client = server.client(org);
      signerKey = ((await (await fetch(`${server.baseUrl}/.well-known/signet-keys.json`)).json()) as Record<string, string>).enclaveSignerPublicKey!;
    });
    after(() => server.close());

    test('export_private_key opens with decryptExportBundle to the key of its Ethereum address; the key is marked exported and deletes without deleteWithoutExport', async () => {
      const { privateKeyId, addresses } = await createKey('Exported', 'CURVE_SECP256K1', ['ADDRESS_FORMAT_ETHEREUM']);
      const target = generateP256KeyPair();
      const { activity } = await exportKey(privateKeyId, target.publicKeyUncompressed);
      assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
      assert.equal(activity.type, 'ACTIVITY_TYPE_EXPORT_PRIVATE_KEY');
      const { exportBundle, privateKeyId: exported } = activity.result.exportPrivateKeyResult;
      assert.equal(exported, privateKeyId);
      const key = await decryptExportBundle({ exportBundle, embeddedKey: target.privateKey, organizationId: org.organizationId, dangerouslyOverrideSignerPublicKey: signerKey, returnMnemonic: false });
      secrets.push(key.replace(/^0x/, ''));
      assert.equal(privateKeyToAddress(`0x${key.replace(/^0x/, '')}` as Hex), addresses[0]!.address);
      assert.equal(((await client.getPrivateKey({ organizationId: org.organizationId, privateKeyId })) as any).privateKey.exported, true);
      // Another key cannot open it.
      await assert.rejects(
        decryptExportBundle({ exportBundle, embeddedKey: generateP256KeyPair().privateKey, organizationId: org.organizationId, dangerouslyOverrideSignerPublicKey: signerKey, returnMnemonic: false }),
      );
      const { activity: deleted } = (await client.deletePrivateKeys(submit('ACTIVITY_TYPE_DELETE_PRIVATE_KEYS', { privateKeyIds: [privateKeyId] }))) as any;
      assert.equal(deleted.status, 'ACTIVITY_STATUS_COMPLETED');
    });

    test('an Ed25519 key exports in Solana\'s 64-byte form, which @solana/web3.js opens to its address', async () => {
      const { privateKeyId, addresses } = await createKey('Solana', 'CURVE_ED25519', ['ADDRESS_FORMAT_SOLANA']);
      const target = generateP256KeyPair();
      const { exportBundle } = (await exportKey(privateKeyId, target.publicKeyUncompressed)).activity.result.exportPrivateKeyResult;
      const secret = await decryptExportBundle({
        exportBundle,
        embeddedKey: target.privateKey,
        organizationId: org.organizationId,
        dangerouslyOverrideSignerPublicKey: signerKey,
        returnMnemonic: false,
        keyFormat: 'SOLANA',
      });
      const bytes = base58.decode(secret);
      assert.equal(bytes.length, 64);
      secrets.push(Buffer.from(bytes.subarray(0, 32)).toString('hex'));
      assert.equal(Keypair.fromSecretKey(bytes).publicKey.toBase58(), addresses[0]!.address);
    });

    test('a bad targetPublicKey is a 400 naming it; a key the organization does not have a 404', async () => {
      const { privateKeyId } = await createKey('Target', 'CURVE_SECP256K1', []);
      await refused(exportKey(privateKeyId, '02'.padEnd(66, '1')), INVALID_ARGUMENT, /uncompressed|P-256/, 'parameters.targetPublicKey');
      await refused(exportKey('00000000-0000-4000-8000-000000000000', generateP256KeyPair().publicKeyUncompressed), NOT_FOUND, /no private key/);
    });

    test('a known key imported through encryptPrivateKeyToBundle has its known address, is marked imported and signs; the bundle works once', async () => {
      const encryptedBundle = await encrypt(await importBundleFor(), `0x${KNOWN_KEY}`);
      const { activity } = await importKey(encryptedBundle, 'Known');
      assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
      const { privateKeyId, addresses } = activity.result.importPrivateKeyResult;
      assert.deepEqual(addresses, [{ format: 'ADDRESS_FORMAT_ETHEREUM', address: KNOWN_ADDRESS }]);
      const { privateKey } = (await client.getPrivateKey({ organizationId: org.organizationId, privateKeyId })) as any;
      assert.equal(privateKey.imported, true);
      assert.equal(privateKey.exported, false);

      const payload = toHex('imported, and it signs');
      const signed = (await client.signRawPayload(
        submit('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', { signWith: KNOWN_ADDRESS, payload, encoding: 'PAYLOAD_ENCODING_HEXADECIMAL', hashFunction: 'HASH_FUNCTION_KECCAK256' }),
      )) as any;
      const { r, s, v } = signed.activity.result.signRawPayloadResult;
      assert.equal(await recoverAddress({ hash: keccak256(payload), signature: { r: `0x${r}`, s: `0x${s}`, yParity: Number(v) } }), KNOWN_ADDRESS);

      await refused(importKey(encryptedBundle, 'Again'), INVALID_ARGUMENT, /no pending import|used already|does not open/, 'parameters.encryptedBundle');
    });

    test('a bundle holding no secp256k1 key, or made for another organization, is a 400 naming encryptedBundle; nothing is stored', async () => {
      const count = async () => (await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM private_keys WHERE organization_id = $1', [org.organizationId]))[0]!.n;
      const before = await count();
      // The group order itself is no private key.
      const order = 'fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141';
      await refused(importKey(await encrypt(await importBundleFor(), order), 'Order'), INVALID_ARGUMENT, /no secp256k1 private key/, 'parameters.encryptedBundle');
      const other = await server.createOrganization('Elsewhere');
      const theirs = await encrypt(await importBundleFor(other), KNOWN_KEY.replace(/^a/, 'b'), other);
      await importBundleFor();
      await refused(importKey(theirs, 'Theirs'), INVALID_ARGUMENT, /does not open/, 'parameters.encryptedBundle');
      assert.equal(await count(), before);
    });

    test('no private key seen in clear is in the logs or in the store', async () => {
      const tables = await server.db.query<{ table_name: string }>(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name",
      );
      let dump = '';
      for (const { table_name } of tables) dump += (await server.db.query<{ row: string }>(`SELECT t::text AS row FROM "${table_name}" t`)).map((r) => r.row).join('\n');
      assert.ok(dump.includes('ACTIVITY_TYPE_IMPORT_PRIVATE_KEY'));
      const logs = log.text().toLowerCase();
      assert.ok(logs.includes('export_private_key'));
      for (const secret of secrets) {
        assert.ok(!dump.toLowerCase().includes(secret.toLowerCase()), 'a private key is in the store');
        assert.ok(!logs.includes(secret.toLowerCase()), 'a private key is in the logs');
      }
    });
  });
}
