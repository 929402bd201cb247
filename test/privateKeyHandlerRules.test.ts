// The rules of create_private_keys, delete_private_keys, update_wallet and delete_wallets on plain data
// (no store): what they check and write, under which lock; a private key sealed for its row (opened
// here with the context's KEK, it makes the addresses the result names, as viem and noble make them)
// and nowhere else in the plan; a curve/format mismatch, a tag and a duplicate refused by a 400 naming
// the field; the export rule of the deletions; signing with a private key found by id or address.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ed25519 } from '@noble/curves/ed25519.js';
import { base58 } from '@scure/base';
import { keccak256, recoverAddress, toBytes, toHex } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';
import type { ExecutionContext } from '../src/activities/handler.ts';
import { createPrivateKeys } from '../src/activities/handlers/privateKeys/createPrivateKeys.ts';
import { deletePrivateKeys } from '../src/activities/handlers/privateKeys/deletePrivateKeys.ts';
import { MAX_PRIVATE_KEYS, PRIVATE_KEY_MATERIAL } from '../src/activities/handlers/privateKeys/newPrivateKeys.ts';
import { MAX_WALLETS } from '../src/activities/handlers/wallets/createWallet.ts';
import { deleteWallets } from '../src/activities/handlers/wallets/deleteWallets.ts';
import { signRawPayload } from '../src/activities/handlers/wallets/signRawPayload.ts';
import { updateWallet } from '../src/activities/handlers/wallets/updateWallet.ts';
import { SignetError } from '../src/errors.ts';
import { deploymentSecretKek } from '../src/keys/custody/deploymentSecretKek.ts';
import { openKeyMaterial } from '../src/keys/custody/sealKeyMaterial.ts';
import type { NewPrivateKey } from '../src/store/privateKeys.ts';
import { fieldViolations } from '../src/wire/violations.ts';
import { checksOf, effectsOf, NOW, ORGANIZATION_ID, planOf, RULES_SECRET } from './support/handlerRules.ts';

const WALLET_ID = '5b0c2f4e-8d7a-4c3b-9e1f-2a6d8c4b7e90';
const OTHER_WALLET_ID = '6c1d3f5a-9e8b-4d4c-8f2a-3b7e9d5c8f01';
const KEY_ID = '3c9d1e7a-6b2f-4d8e-a1c5-9f0b2e4d6a8c';

const secpKey = { privateKeyName: 'hot', curve: 'CURVE_SECP256K1', privateKeyTags: [], addressFormats: ['ADDRESS_FORMAT_ETHEREUM', 'ADDRESS_FORMAT_COMPRESSED'] };
const edKey = { privateKeyName: 'sol', curve: 'CURVE_ED25519', privateKeyTags: [], addressFormats: ['ADDRESS_FORMAT_SOLANA'] };

/** The field violations of parameters `handler`'s schema refuses, as sorted `field: description` lines. */
function refusals(handler: { parameters: { safeParse(value: unknown, options: { reportInput: boolean }): { success: boolean; error?: unknown } } }, parameters: unknown): string[] {
  // As the pipeline parses: with the input, so a wrong type is told from a missing field.
  const parsed = handler.parameters.safeParse(parameters, { reportInput: true });
  assert.equal(parsed.success, false, 'the parameters were taken');
  return fieldViolations(parsed.error as never, 'parameters')
    .map((v) => `${v.field}: ${v.description}`)
    .sort((a, b) => a.localeCompare(b));
}

async function plannedKeys(parameters: { privateKeys: unknown[] }) {
  const plan = await planOf(createPrivateKeys, parameters as never);
  const keys = effectsOf(plan, 'write').find((w) => w.name === 'insertPrivateKeys')!.args[1] as NewPrivateKey[];
  return { plan, keys };
}

async function opened(key: NewPrivateKey): Promise<Buffer> {
  return openKeyMaterial(deploymentSecretKek(RULES_SECRET), { organizationId: ORGANIZATION_ID, rowId: key.privateKeyId, kind: PRIVATE_KEY_MATERIAL }, key.sealedPrivateKey);
}

describe('create_private_keys', () => {
  test('under the organization lock, there is room and each name is free; the keys and their addresses are written', async () => {
    const { plan, keys } = await plannedKeys({ privateKeys: [secpKey, edKey] });
    assert.deepEqual(
      plan.effects.map((effect) => `${effect.kind}${'name' in effect ? ` ${effect.name}` : ''}`),
      ['lock organization', 'check privateKeysRoomFor', 'check privateKeyNameFree', 'check privateKeyNameFree', 'write insertPrivateKeys'],
    );
    assert.deepEqual(checksOf(plan), [
      {
        name: 'privateKeysRoomFor',
        args: [ORGANIZATION_ID, 2, MAX_PRIVATE_KEYS],
        message: `the organization may have at most ${MAX_PRIVATE_KEYS} private keys; these 2 would pass the bound`,
      },
      {
        name: 'privateKeyNameFree',
        args: [ORGANIZATION_ID, 'hot'],
        message: 'parameters.privateKeys[0].privateKeyName: the organization already has a private key named "hot"; private key names are unique in an organization',
      },
      {
        name: 'privateKeyNameFree',
        args: [ORGANIZATION_ID, 'sol'],
        message: 'parameters.privateKeys[1].privateKeyName: the organization already has a private key named "sol"; private key names are unique in an organization',
      },
    ]);
    assert.deepEqual(effectsOf(plan, 'write')[0]!.args.slice(2), [NOW]);
    assert.deepEqual(plan.result, { privateKeys: keys.map((key) => ({ privateKeyId: key.privateKeyId, addresses: key.addresses })) });
    assert.deepEqual(
      keys.map(({ name, curve, addresses }) => ({ name, curve, formats: addresses.map((a) => a.format) })),
      [
        { name: 'hot', curve: 'CURVE_SECP256K1', formats: ['ADDRESS_FORMAT_ETHEREUM', 'ADDRESS_FORMAT_COMPRESSED'] },
        { name: 'sol', curve: 'CURVE_ED25519', formats: ['ADDRESS_FORMAT_SOLANA'] },
      ],
    );
  });

  test('each private key is sealed for its own row; it makes the addresses answered (viem, noble) and appears nowhere else in the plan', async () => {
    const { plan, keys } = await plannedKeys({ privateKeys: [secpKey, edKey] });
    const [secp, ed] = [await opened(keys[0]!), await opened(keys[1]!)];
    assert.equal(secp.length, 32);
    assert.equal(ed.length, 32);
    const secpHex = toHex(secp);
    assert.equal(keys[0]!.addresses[0]!.address, privateKeyToAddress(secpHex));
    assert.equal(keys[0]!.addresses[1]!.address, keys[0]!.publicKey);
    assert.match(keys[0]!.publicKey, /^0[23][0-9a-f]{64}$/);
    const edPublic = ed25519.getPublicKey(ed);
    assert.equal(keys[1]!.addresses[0]!.address, base58.encode(edPublic));
    assert.equal(keys[1]!.publicKey, Buffer.from(edPublic).toString('hex'));
    // Bound to its row: under the other key's id it does not open.
    await assert.rejects(
      openKeyMaterial(deploymentSecretKek(RULES_SECRET), { organizationId: ORGANIZATION_ID, rowId: keys[1]!.privateKeyId, kind: PRIVATE_KEY_MATERIAL }, keys[0]!.sealedPrivateKey),
      { name: 'KeyMaterialUnreadable', problem: 'not_authentic' },
    );
    // The plan, but for the sealed values, holds neither private key in any spelling.
    const text = JSON.stringify({ result: plan.result, effects: plan.effects }, (_k, v) => (typeof v === 'string' && v.startsWith('v1.') ? '' : v)).toLowerCase();
    for (const key of [secp, ed]) {
      for (const spelling of [key.toString('hex'), key.toString('base64'), base58.encode(key)]) assert.ok(!text.includes(spelling.toLowerCase()), 'a private key is in the plan');
    }
    secp.fill(0);
    ed.fill(0);
  });

  test('a format the curve has not, one not supported, one listed twice, a tag, a duplicate name and a bad curve are 400s naming the field', () => {
    assert.deepEqual(
      refusals(createPrivateKeys, {
        privateKeys: [
          { ...secpKey, addressFormats: ['ADDRESS_FORMAT_SOLANA', 'ADDRESS_FORMAT_ETHEREUM', 'ADDRESS_FORMAT_ETHEREUM'] },
          { ...edKey, privateKeyName: ' hot ', addressFormats: ['ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH'] },
          { ...edKey, privateKeyName: 'p256', curve: 'CURVE_P256' },
        ],
      }),
      [
        'parameters.privateKeys[0].addressFormats[0]: ADDRESS_FORMAT_SOLANA is not an address of a CURVE_SECP256K1 key; CURVE_SECP256K1 accounts have ADDRESS_FORMAT_ETHEREUM, ADDRESS_FORMAT_COMPRESSED, ADDRESS_FORMAT_UNCOMPRESSED',
        'parameters.privateKeys[0].addressFormats[2]: ADDRESS_FORMAT_ETHEREUM is listed twice',
        'parameters.privateKeys[1].addressFormats[0]: ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH is not supported; supported: ADDRESS_FORMAT_ETHEREUM, ADDRESS_FORMAT_COMPRESSED, ADDRESS_FORMAT_UNCOMPRESSED, ADDRESS_FORMAT_SOLANA',
        'parameters.privateKeys[1].privateKeyName: privateKeys[0] has the same name; names are unique in an organization',
        'parameters.privateKeys[2].curve: must be one of CURVE_SECP256K1, CURVE_ED25519',
      ],
    );
    assert.deepEqual(refusals(createPrivateKeys, { privateKeys: [{ ...edKey, privateKeyTags: ['5b0c2f4e-8d7a-4c3b-9e1f-2a6d8c4b7e90'] }] }), [
      'parameters.privateKeys[0].privateKeyTags: Signet does not support private key tags; send an empty array',
    ]);
    assert.deepEqual(refusals(createPrivateKeys, { privateKeys: [] }), ['parameters.privateKeys: must hold at least one private key']);
    assert.deepEqual(refusals(createPrivateKeys, { privateKeys: Array.from({ length: MAX_PRIVATE_KEYS + 1 }, (_, i) => ({ ...secpKey, privateKeyName: `k${i}` })) }), [
      `parameters.privateKeys: may hold at most ${MAX_PRIVATE_KEYS} private keys`,
    ]);
  });
});

describe('delete_private_keys and delete_wallets', () => {
  test('each id must be the organization’s (404 naming it); without deleteWithoutExport each must have been exported (400 naming the field)', async () => {
    const plan = await planOf(deletePrivateKeys, { privateKeyIds: [KEY_ID.toUpperCase()] });
    assert.deepEqual(checksOf(plan), [
      { name: 'privateKeyOfOrganization', args: [ORGANIZATION_ID, KEY_ID], message: `parameters.privateKeyIds[0]: no private key ${KEY_ID} in organization ${ORGANIZATION_ID}` },
      {
        name: 'privateKeyExported',
        args: [ORGANIZATION_ID, KEY_ID],
        message: `parameters.deleteWithoutExport: private key ${KEY_ID} has not been exported: deleting it loses its material for good; set deleteWithoutExport to true to delete it anyway`,
      },
    ]);
    assert.deepEqual(effectsOf(plan, 'check').map((c) => [c.error.status, c.error.reason]), [[404, 'PRIVATE_KEY_NOT_FOUND'], [400, 'INVALID_REQUEST']]);
    assert.deepEqual(effectsOf(plan, 'write').map((w) => [w.name, w.args]), [['deletePrivateKeys', [ORGANIZATION_ID, [KEY_ID]]]]);
    assert.deepEqual(plan.result, { privateKeyIds: [KEY_ID] });

    const forced = await planOf(deletePrivateKeys, { privateKeyIds: [KEY_ID], deleteWithoutExport: true });
    assert.deepEqual(checksOf(forced).map((c) => c.name), ['privateKeyOfOrganization']);

    const wallets = await planOf(deleteWallets, { walletIds: [WALLET_ID, OTHER_WALLET_ID] });
    assert.deepEqual(checksOf(wallets).map((c) => [c.name, c.args[1], c.message.split(':')[0]]), [
      ['walletOfOrganization', WALLET_ID, 'parameters.walletIds[0]'],
      ['walletOfOrganization', OTHER_WALLET_ID, 'parameters.walletIds[1]'],
      ['walletExported', WALLET_ID, 'parameters.deleteWithoutExport'],
      ['walletExported', OTHER_WALLET_ID, 'parameters.deleteWithoutExport'],
    ]);
    assert.equal(effectsOf(wallets, 'check')[0]!.error.reason, 'WALLET_NOT_FOUND');
    assert.deepEqual(effectsOf(wallets, 'write').map((w) => [w.name, w.args]), [['deleteWallets', [ORGANIZATION_ID, [WALLET_ID, OTHER_WALLET_ID]]]]);
    const forcedWallets = await planOf(deleteWallets, { walletIds: [WALLET_ID], deleteWithoutExport: true });
    assert.deepEqual(checksOf(forcedWallets).map((c) => c.name), ['walletOfOrganization']);
  });

  test('the lists are bounded, ids are UUIDs, none twice', () => {
    assert.deepEqual(refusals(deleteWallets, { walletIds: [] }), ['parameters.walletIds: must list at least one wallet id']);
    assert.deepEqual(refusals(deleteWallets, { walletIds: Array.from({ length: MAX_WALLETS + 1 }, () => WALLET_ID) }), [`parameters.walletIds: may hold at most ${MAX_WALLETS} wallet ids`]);
    assert.deepEqual(refusals(deleteWallets, { walletIds: [WALLET_ID, WALLET_ID.toUpperCase()] }), ['parameters.walletIds: must not list a wallet twice']);
    assert.deepEqual(refusals(deletePrivateKeys, { privateKeyIds: ['nope'], deleteWithoutExport: 'yes' }), [
      'parameters.deleteWithoutExport: must be true or false',
      'parameters.privateKeyIds[0]: must be a private key id (a UUID)',
    ]);
  });
});

describe('update_wallet', () => {
  test('under the organization lock, the wallet is the organization’s and the new name is no other wallet’s; it is renamed', async () => {
    const plan = await planOf(updateWallet, { walletId: WALLET_ID, walletName: '  Cold  ' });
    assert.deepEqual(
      plan.effects.map((effect) => `${effect.kind}${'name' in effect ? ` ${effect.name}` : ''}`),
      ['lock organization', 'check walletOfOrganization', 'check walletNameFreeBut', 'write renameWallet'],
    );
    assert.deepEqual(checksOf(plan), [
      { name: 'walletOfOrganization', args: [ORGANIZATION_ID, WALLET_ID], message: `parameters.walletId: no wallet ${WALLET_ID} in organization ${ORGANIZATION_ID}` },
      {
        name: 'walletNameFreeBut',
        args: [ORGANIZATION_ID, 'Cold', WALLET_ID],
        message: 'parameters.walletName: the organization already has a wallet named "Cold"; wallet names are unique in an organization',
      },
    ]);
    assert.deepEqual(effectsOf(plan, 'write').map((w) => [w.name, w.args]), [['renameWallet', [ORGANIZATION_ID, WALLET_ID, 'Cold', NOW]]]);
    assert.deepEqual(plan.result, { walletId: WALLET_ID });
    const unchanged = await planOf(updateWallet, { walletId: WALLET_ID });
    assert.deepEqual(unchanged.effects.map((e) => `${e.kind}${'name' in e ? ` ${e.name}` : ''}`), ['check walletOfOrganization']);
    assert.deepEqual(refusals(updateWallet, { walletId: 'w', walletName: ' ' }), [
      'parameters.walletId: must be a wallet id (a UUID)',
      'parameters.walletName: must not be empty or only spaces',
    ]);
  });
});

describe('signing with a private key', () => {
  /** A store that answers the signer lookup with the key, by its id or any of its addresses, as findSigner reads it. */
  function storeOf(key: NewPrivateKey) {
    const reads: unknown[][] = [];
    const db = {
      async query(_text: string, values: unknown[]) {
        reads.push(values);
        const names = [key.privateKeyId, ...key.addresses.map((a) => a.address), ...key.addresses.map((a) => a.address.toLowerCase())];
        if (!values.some((value) => names.includes(value as string))) return [];
        return [{ kind: 'private_key', id: key.privateKeyId, curve: key.curve, path: null, address: null, sealed: key.sealedPrivateKey }];
      },
    } as unknown as ExecutionContext['db'];
    return { db, reads };
  }

  test('named by its id or its address, the secp256k1 key signs (viem recovers its address) and the ed25519 key signs (noble verifies); one read each', async () => {
    const { keys } = await plannedKeys({ privateKeys: [secpKey, edKey] });
    const [secp, ed] = keys as [NewPrivateKey, NewPrivateKey];
    for (const signWith of [secp.privateKeyId, secp.addresses[0]!.address, secp.addresses[0]!.address.toLowerCase()]) {
      const { db, reads } = storeOf(secp);
      const plan = await planOf(signRawPayload, { signWith, payload: 'hello', encoding: 'PAYLOAD_ENCODING_TEXT_UTF8', hashFunction: 'HASH_FUNCTION_KECCAK256' }, { db });
      assert.equal(reads.length, 1);
      // Nothing written: the activity is kept only while the key is still there.
      assert.deepEqual(checksOf(plan).map(({ name, args }) => ({ name, args })), [{ name: 'signerStillThere', args: [ORGANIZATION_ID, 'private_key', secp.privateKeyId] }]);
      const { r, s, v } = plan.result as { r: string; s: string; v: string };
      const signer = await recoverAddress({ hash: keccak256(toBytes('hello')), signature: { r: `0x${r}`, s: `0x${s}`, yParity: Number(v) } });
      assert.equal(signer, secp.addresses[0]!.address);
    }
    const { db } = storeOf(ed);
    const plan = await planOf(signRawPayload, { signWith: ed.addresses[0]!.address, payload: '0x68656c6c6f', encoding: 'PAYLOAD_ENCODING_HEXADECIMAL', hashFunction: 'HASH_FUNCTION_NOT_APPLICABLE' }, { db });
    const { r, s, v } = plan.result as { r: string; s: string; v: string };
    assert.equal(v, '00');
    assert.ok(ed25519.verify(Buffer.from(r + s, 'hex'), Buffer.from('hello'), Buffer.from(ed.publicKey, 'hex')));
  });

  test('what the key cannot sign is a 400 naming the field; a signWith no key answers is a 404', async () => {
    const { keys } = await plannedKeys({ privateKeys: [edKey] });
    const { db } = storeOf(keys[0]!);
    await assert.rejects(
      planOf(signRawPayload, { signWith: keys[0]!.privateKeyId, payload: 'x', encoding: 'PAYLOAD_ENCODING_TEXT_UTF8', hashFunction: 'HASH_FUNCTION_KECCAK256' }, { db }),
      (error) => error instanceof SignetError && error.status === 400 && error.fieldViolations[0]!.field === 'parameters.hashFunction',
    );
    await assert.rejects(
      planOf(signRawPayload, { signWith: KEY_ID, payload: 'x', encoding: 'PAYLOAD_ENCODING_TEXT_UTF8', hashFunction: 'HASH_FUNCTION_NOT_APPLICABLE' }, { db }),
      (error) => error instanceof SignetError && error.status === 404 && /could not find any resource to sign with: parameters.signWith/.test(error.message),
    );
  });
});
