// The rules of export and import on plain data, without a store: keys/bundles.ts' formats against
// @turnkey/crypto's own functions (an export bundle opens with decryptExportBundle, an import bundle
// is what encryptWalletToBundle and encryptPrivateKeyToBundle accept, what they encrypt opens to the
// bytes given, and a malformed or foreign bundle is refused naming the field); init_import_wallet's
// plan (the user checked, the target key sealed for its pending import's row alone, the row
// replacing the user's earlier one, good for an hour); the export activities' parameters.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, test } from 'node:test';
import { decryptExportBundle, encryptPrivateKeyToBundle, encryptWalletToBundle, generateP256KeyPair } from '@turnkey/crypto';
import { exportWallet } from '../src/activities/handlers/wallets/exportWallet.ts';
import { exportWalletAccount } from '../src/activities/handlers/wallets/exportWalletAccount.ts';
import { initImportWallet } from '../src/activities/handlers/wallets/initImportWallet.ts';
import { importWallet } from '../src/activities/handlers/wallets/importWallet.ts';
import { IMPORT_BUNDLE_LIFETIME_MS, IMPORT_TARGET_KEY } from '../src/activities/handlers/wallets/keyBundles.ts';
import type { ServiceKeys } from '../src/activities/lifecycle/serviceKeys.ts';
import { BundleDoesNotOpen, importBundle, newImportTarget, openImportBundle, parseTargetPublicKey, sealExportBundle, type BundleSigner } from '../src/keys/bundles.ts';
import { openKeyMaterial } from '../src/keys/custody/sealKeyMaterial.ts';
import { ParameterRejected } from '../src/keys/parameterRejected.ts';
import { uncompressedPublicKeyHex } from '../src/keys/p256.ts';
import { checksOf, effectsOf, NOW, ORGANIZATION_ID, planOf, rulesContext } from './support/handlerRules.ts';

const MNEMONIC = `${'abandon '.repeat(11)}about`;
const USER = '5d1e3f7a-9b2c-4d6e-8f0a-1b3c5d7e9f2a';

function newSigner(): BundleSigner {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { privateKey, publicKey: uncompressedPublicKeyHex(privateKey) };
}

/** The service's keys of a rules context: one signer for every purpose. */
const keysOf = (signer: BundleSigner) => ({ get: async () => ({ kid: 'rules', privateKey: signer.privateKey, publicJwk: {}, publicKeyHex: signer.publicKey }) }) as unknown as ServiceKeys;

const refusal = (field: string, pattern: RegExp) => (error: unknown) => {
  assert.ok(error instanceof ParameterRejected, String(error));
  assert.equal(error.field, field);
  assert.match(error.description, pattern);
  return true;
};

describe('export and import bundles (keys/bundles.ts)', () => {
  test('an export bundle opens with decryptExportBundle, given the signer key, to the bytes sealed', async () => {
    const signer = newSigner();
    const target = generateP256KeyPair();
    const bundle = await sealExportBundle(signer, { organizationId: ORGANIZATION_ID, targetPublicKey: target.publicKeyUncompressed }, Buffer.from(MNEMONIC, 'utf8'));
    const parsed = JSON.parse(bundle);
    assert.deepEqual(Object.keys(parsed).sort(), ['data', 'dataSignature', 'enclaveQuorumPublic', 'version']);
    assert.equal(parsed.enclaveQuorumPublic, signer.publicKey);
    const open = (overrides: object = {}) =>
      decryptExportBundle({ exportBundle: bundle, embeddedKey: target.privateKey, organizationId: ORGANIZATION_ID, dangerouslyOverrideSignerPublicKey: signer.publicKey, returnMnemonic: true, ...overrides });
    assert.equal(await open(), MNEMONIC);
    assert.equal(await open({ returnMnemonic: false }), Buffer.from(MNEMONIC, 'utf8').toString('hex'));
    await assert.rejects(open({ organizationId: USER }), /organization id does not match/);
    await assert.rejects(open({ dangerouslyOverrideSignerPublicKey: newSigner().publicKey }), /signer key/);
    await assert.rejects(open({ embeddedKey: generateP256KeyPair().privateKey }));
  });

  test('a target key must be an uncompressed P-256 point in hex', () => {
    const { publicKey, publicKeyUncompressed } = generateP256KeyPair();
    assert.equal(parseTargetPublicKey(publicKeyUncompressed.toUpperCase().replace(/^04/, '04')), publicKeyUncompressed);
    for (const value of [publicKey, `${publicKeyUncompressed.slice(0, -4)}0000`, `0x${publicKeyUncompressed}`, '', 42]) {
      assert.throws(() => parseTargetPublicKey(value), refusal('parameters.targetPublicKey', /uncompressed P-256|not a point/));
    }
  });

  test('an import bundle is what encryptWalletToBundle and encryptPrivateKeyToBundle accept; what they encrypt opens to the bytes given', async () => {
    const signer = newSigner();
    const target = newImportTarget();
    assert.equal(target.privateKey.length, 32);
    const bundle = importBundle(signer, { organizationId: ORGANIZATION_ID, userId: USER, targetPublic: target.publicKey });
    const override = { userId: USER, organizationId: ORGANIZATION_ID, dangerouslyOverrideSignerPublicKey: signer.publicKey };
    const wallet = await encryptWalletToBundle({ mnemonic: MNEMONIC, importBundle: bundle, ...override });
    assert.equal((await openImportBundle(wallet, target.privateKey)).toString('utf8'), MNEMONIC);
    const key = 'a1'.repeat(32);
    const privateKey = await encryptPrivateKeyToBundle({ privateKey: key, keyFormat: 'HEXADECIMAL', importBundle: bundle, ...override });
    assert.equal((await openImportBundle(privateKey, target.privateKey)).toString('hex'), key);
    // The library checks the organization and the user the bundle names.
    await assert.rejects(encryptWalletToBundle({ mnemonic: MNEMONIC, importBundle: bundle, ...override, userId: ORGANIZATION_ID }), /user id does not match/);
    // Another target's key does not open it: BundleDoesNotOpen, naming the field.
    await assert.rejects(openImportBundle(wallet, newImportTarget().privateKey), (error) => error instanceof BundleDoesNotOpen && refusal('parameters.encryptedBundle', /does not open/)(error));
  });

  test('a malformed encrypted bundle is refused naming the field, before anything is decrypted', async () => {
    const key = newImportTarget().privateKey;
    const point = generateP256KeyPair().publicKeyUncompressed;
    const cases: Array<[unknown, RegExp]> = [
      ['', /non-empty string/],
      [42, /non-empty string/],
      ['x'.repeat(8193), /longer than 8192/],
      ['not json', /not JSON/],
      ['[]', /JSON object/],
      [JSON.stringify({ encappedPublic: point.slice(0, 66), ciphertext: '00'.repeat(40) }), /encappedPublic/],
      [JSON.stringify({ encappedPublic: point, ciphertext: '00'.repeat(16) }), /ciphertext/],
      [JSON.stringify({ encappedPublic: point, ciphertext: '0'.repeat(41) }), /ciphertext/],
      [JSON.stringify({ encappedPublic: point, ciphertext: '00'.repeat(1024 + 17) }), /ciphertext/],
    ];
    for (const [bundle, pattern] of cases) {
      await assert.rejects(openImportBundle(bundle, key, 'parameters.encryptedBundle'), refusal('parameters.encryptedBundle', pattern));
    }
  });
});

describe('export and import activities (rules)', () => {
  test("init_import_wallet: the user checked, the target key sealed for its pending import alone, an hour's use, the earlier one replaced", async () => {
    const signer = newSigner();
    const context = rulesContext(initImportWallet, { keys: keysOf(signer) });
    const plan = await initImportWallet.execute(context, { userId: USER }, undefined);
    assert.deepEqual(
      checksOf(plan).map(({ name, args }) => ({ name, args })),
      [{ name: 'userActive', args: [ORGANIZATION_ID, USER] }],
    );
    const [replace] = effectsOf(plan, 'write');
    assert.equal(replace?.name, 'replacePendingImport');
    const [row] = replace!.args as unknown as [
      { pendingImportId: string; organizationId: string; userId: string; kind: string; targetPublicKey: string; sealedTargetKey: string; createdAt: Date; expiresAt: Date },
    ];
    assert.equal(row.organizationId, ORGANIZATION_ID);
    assert.equal(row.userId, USER);
    assert.equal(row.kind, 'wallet');
    assert.equal(row.expiresAt.getTime() - NOW.getTime(), IMPORT_BUNDLE_LIFETIME_MS);

    const { importBundle: bundle } = plan.result as { importBundle: string };
    const signed = JSON.parse(Buffer.from(JSON.parse(bundle).data, 'hex').toString('utf8'));
    assert.deepEqual(signed, { organizationId: ORGANIZATION_ID, userId: USER, targetPublic: row.targetPublicKey });
    // The sealed key opens for this row and kind only, and opens what the client encrypted.
    const targetKey = await openKeyMaterial(context.kek, { organizationId: ORGANIZATION_ID, rowId: row.pendingImportId, kind: IMPORT_TARGET_KEY }, row.sealedTargetKey);
    const encrypted = await encryptWalletToBundle({ mnemonic: MNEMONIC, importBundle: bundle, userId: USER, organizationId: ORGANIZATION_ID, dangerouslyOverrideSignerPublicKey: signer.publicKey });
    assert.equal((await openImportBundle(encrypted, targetKey)).toString('utf8'), MNEMONIC);
    await assert.rejects(openKeyMaterial(context.kek, { organizationId: ORGANIZATION_ID, rowId: USER, kind: IMPORT_TARGET_KEY }, row.sealedTargetKey));
    assert.ok(!JSON.stringify(plan).includes(targetKey.toString('hex')), 'the private half is nowhere in the plan');
  });

  test('the export activities take an uncompressed P-256 targetPublicKey, English only; import_wallet bounds its bundle', async () => {
    const { publicKey, publicKeyUncompressed } = generateP256KeyPair();
    const walletId = '5b0c2f4e-8d7a-4c3b-9e1f-2a6d8c4b7e90';
    const issues = (result: { success: boolean; error?: { issues: Array<{ path: PropertyKey[]; message: string }> } }) =>
      result.success ? [] : result.error!.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    assert.deepEqual(issues(exportWallet.parameters.safeParse({ walletId, targetPublicKey: publicKeyUncompressed })), []);
    assert.deepEqual(issues(exportWallet.parameters.safeParse({ walletId, targetPublicKey: publicKey })), [
      'targetPublicKey: must be an uncompressed P-256 public key in hex: 130 hex digits starting with 04',
    ]);
    assert.deepEqual(issues(exportWalletAccount.parameters.safeParse({ address: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94', targetPublicKey: `04${'00'.repeat(64)}` })), [
      'targetPublicKey: is not a point of the P-256 curve',
    ]);
    assert.match(issues(exportWallet.parameters.safeParse({ walletId, targetPublicKey: publicKeyUncompressed, language: 'KLINGON' }))[0]!, /^language: must be one of/);
    await assert.rejects(
      planOf(exportWallet, { walletId, targetPublicKey: publicKeyUncompressed, language: 'MNEMONIC_LANGUAGE_SPANISH' }),
      (error: any) => error.status === 400 && /MNEMONIC_LANGUAGE_ENGLISH/.test(error.message),
    );
    assert.match(
      issues(importWallet.parameters.safeParse({ userId: USER, walletName: 'w', encryptedBundle: 'x'.repeat(8193), accounts: [] }))[0]!,
      /^encryptedBundle: is longer than 8192 characters/,
    );
  });
});
