// Export and import of wallets through the real HTTP stack, @turnkey/http's TurnkeyClient and
// @turnkey/crypto's own bundle functions given Signet's enclaveSignerPublicKey: an export_wallet opens
// with decryptExportBundle to the mnemonic whose derivation gives the wallet's address, and marks the
// wallet exported; an export_wallet_account opens to the private key of the account (Ethereum, and
// Solana in its 64-byte form); a targetPublicKey that is not an uncompressed P-256 key is a 400 naming
// it. The BIP-39 vector mnemonic encrypted by encryptWalletToBundle to init_import_wallet's bundle
// imports to its known address, the wallet marked imported; a replayed, expired or foreign bundle is a
// 400 naming encryptedBundle. A user no policy allows cannot export; under a policy asking for its and
// the root user's approvals the export waits, and the approval exports, the bundle read back from the
// activity. No mnemonic is in the logs nor in the store outside the sealed column.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decryptExportBundle, encryptWalletToBundle, generateP256KeyPair } from '@turnkey/crypto';
import { base58 } from '@scure/base';
import type { TurnkeyClient } from '@turnkey/http';
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { deleteExpiredPendingImports } from '../src/store/pendingImports.ts';
import { testDatabases } from './support/databases.ts';
import { envelope } from './support/envelopes.ts';
import { logCapture } from './support/logCapture.ts';
import { refused } from './support/refusals.ts';
import { startTestServer, type Credentials, type TestServer } from './support/server.ts';

const ETHEREUM = { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' } as const;
const SOLANA = { curve: 'CURVE_ED25519', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/501'/0'/0'", addressFormat: 'ADDRESS_FORMAT_SOLANA' } as const;
/** The BIP-39 test vector's mnemonic and the address every wallet derives from it at m/44'/60'/0'/0/0. */
const VECTOR_MNEMONIC = `${'abandon '.repeat(11)}about`;
const VECTOR_ADDRESS = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';

/** Who imports: a user of an organization. */
type Importer = Pick<Credentials, 'organizationId' | 'userId'>;

const INVALID_ARGUMENT = 3;
const NOT_FOUND = 5;
const PERMISSION_DENIED = 7;

for (const tdb of testDatabases) {
  describe(`wallet export and import (${tdb.name})`, () => {
    const log = logCapture();
    let server: TestServer;
    let org: Credentials;
    let client: TurnkeyClient;
    let signerKey: string;
    let walletId: string;
    let ethereumAddress: string;
    let solanaAddress: string;
    /** Every mnemonic a test saw in clear: none may be in the logs or the store. */
    const mnemonics: string[] = [VECTOR_MNEMONIC];

    const submit = <T extends string, P extends object>(type: T, parameters: P, organizationId = org.organizationId) =>
      // The server's clock, which a test may move forward: the activity is live at the server's now.
      ({ ...envelope(type, organizationId, parameters), timestampMs: String(server.clock.now().getTime()) }) as any;

    /** The import bundle for `as.userId`, asked for by `as`'s organization's root user (`by`, the root user of `org` by default). */
    const importBundleFor = async (as: Importer, by: Credentials = as.organizationId === org.organizationId ? org : (as as Credentials)) =>
      ((await server.client(by).initImportWallet(submit('ACTIVITY_TYPE_INIT_IMPORT_WALLET', { userId: as.userId }, as.organizationId))) as any).activity.result
        .initImportWalletResult.importBundle as string;

    const encrypt = (importBundle: string, as: Importer, mnemonic = VECTOR_MNEMONIC) =>
      encryptWalletToBundle({ mnemonic, importBundle, userId: as.userId, organizationId: as.organizationId, dangerouslyOverrideSignerPublicKey: signerKey });

    const importWith = (as: Importer, walletName: string, encryptedBundle: string, by: Credentials = as.organizationId === org.organizationId ? org : (as as Credentials)) =>
      server.client(by).importWallet(submit('ACTIVITY_TYPE_IMPORT_WALLET', { userId: as.userId, walletName, encryptedBundle, accounts: [ETHEREUM] }, as.organizationId)) as Promise<any>;

    before(async () => {
      server = await startTestServer(tdb, { SIGNET_OUTBOX_WORKER: 'false' }, { logger: { level: 'debug', stream: log.stream } });
      org = await server.createOrganization('Export');
      client = server.client(org);
      const keys = (await (await fetch(`${server.baseUrl}/.well-known/signet-keys.json`)).json()) as Record<string, string>;
      signerKey = keys.enclaveSignerPublicKey!;
      const answer = (await client.createWallet(submit('ACTIVITY_TYPE_CREATE_WALLET', { walletName: 'Exported', accounts: [ETHEREUM, SOLANA] }))) as any;
      ({ walletId } = answer.activity.result.createWalletResult);
      [ethereumAddress, solanaAddress] = answer.activity.result.createWalletResult.addresses;
    });
    after(() => server.close());

    test('signet-keys.json publishes enclaveSignerPublicKey, an uncompressed P-256 key of its own', async () => {
      const keys = (await (await fetch(`${server.baseUrl}/.well-known/signet-keys.json`)).json()) as Record<string, string>;
      assert.match(signerKey, /^04[0-9a-f]{128}$/);
      assert.equal(keys.enclaveSignerPublicKey, signerKey);
      assert.equal(new Set(Object.values(keys)).size, Object.keys(keys).length, 'no other key of the document is the signer key');
    });

    test("export_wallet opens with decryptExportBundle to the mnemonic of the wallet's address, and marks the wallet exported", async () => {
      assert.equal(((await client.getWallet({ organizationId: org.organizationId, walletId })) as any).wallet.exported, false);
      const target = generateP256KeyPair();
      const { activity } = (await client.exportWallet(submit('ACTIVITY_TYPE_EXPORT_WALLET', { walletId, targetPublicKey: target.publicKeyUncompressed }))) as any;
      assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
      const { exportBundle, walletId: exported } = activity.result.exportWalletResult;
      assert.equal(exported, walletId);
      assert.equal(JSON.parse(exportBundle).enclaveQuorumPublic, signerKey);
      const mnemonic = await decryptExportBundle({
        exportBundle,
        embeddedKey: target.privateKey,
        organizationId: org.organizationId,
        dangerouslyOverrideSignerPublicKey: signerKey,
        returnMnemonic: true,
      });
      mnemonics.push(mnemonic);
      assert.equal(mnemonic.split(' ').length, 12);
      assert.equal(mnemonicToAccount(mnemonic).address, ethereumAddress);
      assert.equal(((await client.getWallet({ organizationId: org.organizationId, walletId })) as any).wallet.exported, true);

      // Another key cannot open it, and a verifier trusting another signer refuses it.
      await assert.rejects(
        decryptExportBundle({ exportBundle, embeddedKey: generateP256KeyPair().privateKey, organizationId: org.organizationId, dangerouslyOverrideSignerPublicKey: signerKey, returnMnemonic: true }),
      );
      await assert.rejects(decryptExportBundle({ exportBundle, embeddedKey: target.privateKey, organizationId: org.organizationId, returnMnemonic: true }), /signer key/);
    });

    test('export_wallet_account opens to the private key of the address: Ethereum, and Solana in its 64-byte form', async () => {
      const target = generateP256KeyPair();
      const exportOf = async (address: string) =>
        ((await client.exportWalletAccount(submit('ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT', { address, targetPublicKey: target.publicKeyUncompressed }))) as any).activity.result
          .exportWalletAccountResult;
      const ethereum = await exportOf(ethereumAddress.toLowerCase());
      assert.equal(ethereum.address, ethereumAddress.toLowerCase());
      const hex = await decryptExportBundle({ exportBundle: ethereum.exportBundle, embeddedKey: target.privateKey, organizationId: org.organizationId, dangerouslyOverrideSignerPublicKey: signerKey, returnMnemonic: false });
      assert.match(hex, /^[0-9a-f]{64}$/);
      assert.equal(privateKeyToAccount(`0x${hex}`).address, ethereumAddress);

      const solana = await exportOf(solanaAddress);
      const keypair = base58.decode(
        await decryptExportBundle({ exportBundle: solana.exportBundle, embeddedKey: target.privateKey, organizationId: org.organizationId, dangerouslyOverrideSignerPublicKey: signerKey, keyFormat: 'SOLANA', returnMnemonic: false }),
      );
      assert.equal(keypair.length, 64);
      assert.equal(base58.encode(keypair.subarray(32)), solanaAddress);
    });

    test('a targetPublicKey that is not an uncompressed P-256 key, an unknown wallet or address, a language other than English: refused, nothing exported', async () => {
      const { publicKey: compressed, publicKeyUncompressed } = generateP256KeyPair();
      for (const targetPublicKey of [compressed, `${publicKeyUncompressed.slice(0, -2)}00`, 'not hex', `0x${publicKeyUncompressed}`]) {
        await refused(
          client.exportWallet(submit('ACTIVITY_TYPE_EXPORT_WALLET', { walletId, targetPublicKey })),
          INVALID_ARGUMENT,
          /targetPublicKey/,
          'parameters.targetPublicKey',
        );
        await refused(
          client.exportWalletAccount(submit('ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT', { address: ethereumAddress, targetPublicKey })),
          INVALID_ARGUMENT,
          /targetPublicKey/,
          'parameters.targetPublicKey',
        );
      }
      await refused(
        client.exportWallet(submit('ACTIVITY_TYPE_EXPORT_WALLET', { walletId: '00000000-0000-4000-8000-000000000000', targetPublicKey: publicKeyUncompressed })),
        NOT_FOUND,
        /no wallet/,
      );
      await refused(
        client.exportWalletAccount(submit('ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT', { address: '0x0000000000000000000000000000000000000001', targetPublicKey: publicKeyUncompressed })),
        NOT_FOUND,
        /parameters\.address/,
      );
      await refused(
        client.exportWallet(submit('ACTIVITY_TYPE_EXPORT_WALLET', { walletId, targetPublicKey: publicKeyUncompressed, language: 'MNEMONIC_LANGUAGE_FRENCH' })),
        INVALID_ARGUMENT,
        /ENGLISH/,
        'parameters.language',
      );
    });

    test('the BIP-39 vector mnemonic, encrypted by encryptWalletToBundle to init_import_wallet\'s bundle, imports to its address, marked imported', async () => {
      const importBundle = await importBundleFor(org);
      const signed = JSON.parse(Buffer.from(JSON.parse(importBundle).data, 'hex').toString('utf8'));
      assert.equal(signed.organizationId, org.organizationId);
      assert.equal(signed.userId, org.userId);
      assert.match(signed.targetPublic, /^04[0-9a-f]{128}$/);
      const encryptedBundle = await encrypt(importBundle, org);
      const { activity } = await importWith(org, 'Vector', encryptedBundle);
      assert.equal(activity.status, 'ACTIVITY_STATUS_COMPLETED');
      const { walletId: imported, addresses } = activity.result.importWalletResult;
      assert.deepEqual(addresses, [VECTOR_ADDRESS]);
      const { wallet } = (await client.getWallet({ organizationId: org.organizationId, walletId: imported })) as any;
      assert.equal(wallet.walletName, 'Vector');
      assert.equal(wallet.imported, true);
      assert.equal(wallet.exported, false);

      // The imported wallet signs as its address, and exports back to the same words.
      const target = generateP256KeyPair();
      const exported = ((await client.exportWallet(submit('ACTIVITY_TYPE_EXPORT_WALLET', { walletId: imported, targetPublicKey: target.publicKeyUncompressed }))) as any).activity.result
        .exportWalletResult.exportBundle;
      assert.equal(
        await decryptExportBundle({ exportBundle: exported, embeddedKey: target.privateKey, organizationId: org.organizationId, dangerouslyOverrideSignerPublicKey: signerKey, returnMnemonic: true }),
        VECTOR_MNEMONIC,
      );

      // Replayed: the import bundle's key was used once, and is gone.
      await refused(importWith(org, 'Vector again', encryptedBundle), INVALID_ARGUMENT, /no pending import|does not open/, 'parameters.encryptedBundle');
      const [row] = await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM pending_imports WHERE organization_id = $1', [org.organizationId]);
      assert.equal(row!.n, 0);
    });

    test('a bundle for another user, another organization or an earlier init, an expired one, or one that holds no mnemonic: 400 naming encryptedBundle', async () => {
      const other = await server.createOrganization('Other');
      // A user outside the root quorum: the root user asks for its import bundle and imports for it.
      const { userId: memberId } = await server.admin('POST', `/organizations/${org.organizationId}/users`, { userName: 'importer' });
      const member: Importer = { organizationId: org.organizationId, userId: memberId };

      // Another organization's import bundle: encryptWalletToBundle itself refuses it for this organization,
      // and what it encrypts for that organization does not open here.
      const foreign = await importBundleFor(other);
      await assert.rejects(encrypt(foreign, org), /organization id does not match/);
      await importBundleFor(org);
      await refused(importWith(org, 'Foreign', await encrypt(foreign, other)), INVALID_ARGUMENT, /does not open/, 'parameters.encryptedBundle');

      // Another user's bundle of this organization does not open this user's import.
      const members = await importBundleFor(member);
      await refused(importWith(org, 'Member', await encrypt(members, member)), INVALID_ARGUMENT, /does not open/, 'parameters.encryptedBundle');

      // An earlier init's bundle: the next init replaced it.
      const earlier = await importBundleFor(org);
      await importBundleFor(org);
      await refused(importWith(org, 'Earlier', await encrypt(earlier, org)), INVALID_ARGUMENT, /does not open/, 'parameters.encryptedBundle');

      // Bytes that are no BIP-39 mnemonic, and a bundle that is not what the library writes.
      const latest = await importBundleFor(org);
      await refused(importWith(org, 'Words', await encrypt(latest, org, 'abandon abandon abandon')), INVALID_ARGUMENT, /has 3 words/, 'parameters.encryptedBundle');
      await refused(importWith(org, 'Junk', '{"encappedPublic":"04","ciphertext":"00"}'), INVALID_ARGUMENT, /encappedPublic/, 'parameters.encryptedBundle');

      // Expired: an hour later the pending import is refused, and a new init works.
      const expiring = await encrypt(await importBundleFor(member), member);
      server.clock.advance(60 * 60 * 1000 + 1000);
      await refused(importWith(member, 'Late', expiring), INVALID_ARGUMENT, /expired/, 'parameters.encryptedBundle');
      const { activity } = await importWith(member, 'In time', await encrypt(await importBundleFor(member), member));
      assert.deepEqual(activity.result.importWalletResult.addresses, [VECTOR_ADDRESS]);

      // The housekeeping deletes pending imports past their expiry, sealed keys and all.
      await importBundleFor(member);
      await server.db.query("UPDATE pending_imports SET expires_at = now() - interval '1 second' WHERE user_id = $1", [memberId]);
      assert.equal(await deleteExpiredPendingImports(server.db), 1);
      const [left] = await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM pending_imports WHERE user_id = $1', [memberId]);
      assert.equal(left!.n, 0);

      // A user the organization does not have gets no import bundle.
      await refused(
        client.initImportWallet(submit('ACTIVITY_TYPE_INIT_IMPORT_WALLET', { userId: '00000000-0000-4000-8000-000000000000' })),
        NOT_FOUND,
        /no user/,
      );
    });

    test('a user no policy allows is refused (403); under a policy asking for it and the root user, the export waits and the approval exports once', async () => {
      const { userId } = await server.admin('POST', `/organizations/${org.organizationId}/users`, { userName: 'exporter' });
      const key = await server.admin('POST', `/organizations/${org.organizationId}/api-keys`, { userId });
      const member: Credentials = { ...org, userId, apiPublicKey: key.apiPublicKey, apiPrivateKey: key.apiPrivateKey };
      const target = generateP256KeyPair();
      const body = () => submit('ACTIVITY_TYPE_EXPORT_WALLET', { walletId, targetPublicKey: target.publicKeyUncompressed });
      await refused(server.client(member).exportWallet(body()), PERMISSION_DENIED, /not allowed/);

      const { activity: policy } = (await client.createPolicy(
        submit('ACTIVITY_TYPE_CREATE_POLICY_V3', {
          policyName: 'exports need the member and the root user',
          effect: 'EFFECT_ALLOW',
          condition: "activity.resource == 'WALLET' && activity.action == 'EXPORT'",
          consensus: `approvers.filter(user, user.id == '${userId}' || user.id == '${org.userId}').count() >= 2`,
          notes: '',
        }),
      )) as any;
      assert.equal(policy.status, 'ACTIVITY_STATUS_COMPLETED');
      const { activity: waiting } = (await server.client(member).exportWallet(body())) as any;
      assert.equal(waiting.status, 'ACTIVITY_STATUS_CONSENSUS_NEEDED');
      const { activity: approved } = (await client.approveActivity(submit('ACTIVITY_TYPE_APPROVE_ACTIVITY', { fingerprint: waiting.fingerprint }))) as any;
      assert.equal(approved.status, 'ACTIVITY_STATUS_COMPLETED');
      // The client that waited reads the bundle from the activity, as the ecosystem's clients poll it.
      const { activity: read } = (await client.getActivity({ organizationId: org.organizationId, activityId: waiting.id })) as any;
      assert.equal(read.result.exportWalletResult.exportBundle, approved.result.exportWalletResult.exportBundle);
      const mnemonic = await decryptExportBundle({
        exportBundle: read.result.exportWalletResult.exportBundle,
        embeddedKey: target.privateKey,
        organizationId: org.organizationId,
        dangerouslyOverrideSignerPublicKey: signerKey,
        returnMnemonic: true,
      });
      assert.equal(mnemonicToAccount(mnemonic).address, ethereumAddress);
    });

    test('no mnemonic is in the logs, nor in the store outside the sealed mnemonic column', async () => {
      assert.ok(mnemonics.length >= 2, 'the export test saw the exported mnemonic');
      const tables = await server.db.query<{ table_name: string }>(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
      );
      let dump = '';
      for (const { table_name } of tables) {
        const columns = table_name === 'wallets' ? "t.id, t.organization_id, t.name, t.exported, t.imported" : 't';
        const rows = await server.db.query<{ row: string }>(`SELECT (${columns})::text AS row FROM "${table_name}" t`);
        dump += `${rows.map((r) => r.row).join('\n')}\n`;
      }
      assert.ok(dump.includes('ACTIVITY_TYPE_EXPORT_WALLET') && dump.includes('ACTIVITY_TYPE_IMPORT_WALLET'), 'the dump holds the activities');
      const logs = log.text();
      assert.ok(logs.includes('import_wallet'), 'the logs hold the requests');
      for (const mnemonic of mnemonics) {
        // Two words in a row are enough to tell: the vector's "abandon abandon" too.
        const words = mnemonic.split(' ').slice(0, 2).join(' ');
        assert.ok(!dump.includes(words), 'a mnemonic is in the store');
        assert.ok(!logs.includes(words), 'a mnemonic is in the logs');
      }
    });
  });
}
