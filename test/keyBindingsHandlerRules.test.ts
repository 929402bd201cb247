// The views of the activities that use or name a key, on plain data (a store answering the one read
// by id each makes): a wallet account's `wallet {id, imported, exported, label}` and `wallet_account
// {address}`, a private key's `private_key {id, tags: [], imported, exported, label}` and its Ethereum
// address as the `from` of the transaction it signs; export_wallet / update_wallet bind the wallet
// they name, export_private_key the key; a wallet or key that is gone binds nothing (fail closed).
// sign_raw_payloads binds `eth.eip_712` only when its payloads are one typed data.
import assert from 'node:assert/strict';
import { createECDH } from 'node:crypto';
import { describe, test } from 'node:test';
import { serializeTransaction, serializeTypedData } from 'viem';
import type { ExecutionContext } from '../src/activities/handler.ts';
import { exportPrivateKey } from '../src/activities/handlers/privateKeys/exportPrivateKey.ts';
import { exportWallet } from '../src/activities/handlers/wallets/exportWallet.ts';
import { signerBindings } from '../src/activities/handlers/wallets/keyBindings.ts';
import { signRawPayloads } from '../src/activities/handlers/wallets/signRawPayloads.ts';
import type { SignerKey } from '../src/activities/handlers/wallets/signingAccount.ts';
import { signTransaction } from '../src/activities/handlers/wallets/signTransaction.ts';
import { updateWallet } from '../src/activities/handlers/wallets/updateWallet.ts';
import { ORGANIZATION_ID, rulesContext } from './support/handlerRules.ts';

const WALLET_ID = '5b0c2f4e-8d7a-4c3b-9e1f-2a6d8c4b7e90';
const PRIVATE_KEY_ID = '6a1d3f5b-7c9e-4b2d-8f0a-1c3e5a7b9d2f';
const ADDRESS = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';
const KEY_ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
const TIME = '2026-12-07T12:00:00.000Z';

const walletRow = { id: WALLET_ID, organization_id: ORGANIZATION_ID, name: 'Treasury', exported: true, imported: false, created_at: TIME, updated_at: TIME };
const keyRow = {
  id: PRIVATE_KEY_ID,
  organization_id: ORGANIZATION_ID,
  name: 'Hot key',
  curve: 'CURVE_SECP256K1',
  public_key: '02ab',
  exported: false,
  imported: true,
  created_at: TIME,
  updated_at: TIME,
  addresses: [{ format: 'ADDRESS_FORMAT_COMPRESSED', address: '02ab' }, { format: 'ADDRESS_FORMAT_ETHEREUM', address: KEY_ADDRESS }],
};

/** A store that answers a wallet or a private key read by id (when `present`), and no interface; every read kept. */
function keyStore(present: boolean) {
  const reads: string[] = [];
  const db = {
    async query(text: string, values: unknown[]) {
      reads.push(text);
      if (!present) return [];
      if (/FROM wallets w WHERE/.test(text) && values.includes(WALLET_ID)) return [walletRow];
      if (/FROM private_keys k WHERE/.test(text) && values.includes(PRIVATE_KEY_ID)) return [keyRow];
      return [];
    },
  } as unknown as ExecutionContext['db'];
  return { db, reads };
}

const account: SignerKey = {
  kind: 'wallet_account',
  walletAccountId: 'a1',
  walletId: WALLET_ID,
  curve: 'CURVE_SECP256K1',
  path: "m/44'/60'/0'/0/0",
  address: ADDRESS,
  sealedPrivateKey: 'sealed',
  sealedMnemonic: 'sealed',
};
const privateKey: SignerKey = { kind: 'private_key', privateKeyId: PRIVATE_KEY_ID, curve: 'CURVE_SECP256K1', sealedPrivateKey: 'sealed' };

describe('the key a signature uses', () => {
  test("a wallet account: its wallet read fresh by id (label, exported, imported) and its address as eth.tx.from", async () => {
    const { db, reads } = keyStore(true);
    const { bindings, from } = await signerBindings(rulesContext(signTransaction, { db }), account);
    assert.deepEqual(bindings, { wallet: { id: WALLET_ID, imported: false, exported: true, label: 'Treasury' }, wallet_account: { address: ADDRESS } });
    assert.equal(from, ADDRESS);
    assert.equal(reads.length, 1);
  });

  test("a private key: its label, no tags, imported and exported, and its Ethereum address as eth.tx.from", async () => {
    const { db } = keyStore(true);
    const { bindings, from } = await signerBindings(rulesContext(signTransaction, { db }), privateKey);
    assert.deepEqual(bindings, { private_key: { id: PRIVATE_KEY_ID, tags: [], imported: true, exported: false, label: 'Hot key' } });
    assert.equal(from, KEY_ADDRESS);
    const unsignedTransaction = serializeTransaction({ type: 'eip1559', chainId: 1, to: ADDRESS, value: 1n, gas: 21_000n, maxFeePerGas: 1n });
    const view = await signTransaction.view!(rulesContext(signTransaction, { db }), { signWith: PRIVATE_KEY_ID, unsignedTransaction, type: 'TRANSACTION_TYPE_ETHEREUM' }, privateKey);
    assert.equal((view.signing?.eth as { tx: { from: string } }).tx.from, KEY_ADDRESS.toLowerCase());
  });

  test('a wallet or key gone since it was found binds nothing of it: a condition reading it fails closed', async () => {
    const { db } = keyStore(false);
    assert.deepEqual((await signerBindings(rulesContext(signTransaction, { db }), account)).bindings, { wallet_account: { address: ADDRESS } });
    assert.deepEqual(await signerBindings(rulesContext(signTransaction, { db }), privateKey), { bindings: {}, from: undefined });
    const view = await signTransaction.view!(
      rulesContext(signTransaction, { db }),
      { signWith: PRIVATE_KEY_ID, unsignedTransaction: serializeTransaction({ type: 'eip1559', chainId: 1, to: ADDRESS, gas: 21_000n, maxFeePerGas: 1n }), type: 'TRANSACTION_TYPE_ETHEREUM' },
      privateKey,
    );
    assert.equal(Object.hasOwn((view.signing?.eth as { tx: object }).tx, 'from'), false);
  });
});

describe('the activities that name a key', () => {
  const target = createECDH('prime256v1').generateKeys('hex', 'uncompressed');
  test('export_wallet and update_wallet bind the wallet they name; export_private_key the key', async () => {
    const { db } = keyStore(true);
    const wallet = { id: WALLET_ID, imported: false, exported: true, label: 'Treasury' };
    assert.deepEqual(await exportWallet.view!(rulesContext(exportWallet, { db }), exportWallet.parameters.parse({ walletId: WALLET_ID, targetPublicKey: target }), undefined), { signing: { wallet } });
    assert.deepEqual(await updateWallet.view!(rulesContext(updateWallet, { db }), updateWallet.parameters.parse({ walletId: WALLET_ID, walletName: 'x' }), undefined), { signing: { wallet } });
    assert.deepEqual(await exportPrivateKey.view!(rulesContext(exportPrivateKey, { db }), exportPrivateKey.parameters.parse({ privateKeyId: PRIVATE_KEY_ID, targetPublicKey: target }), undefined), {
      signing: { private_key: { id: PRIVATE_KEY_ID, tags: [], imported: true, exported: false, label: 'Hot key' } },
    });
  });

  test('a wallet or key that is not there binds nothing', async () => {
    const { db } = keyStore(false);
    assert.deepEqual(await exportWallet.view!(rulesContext(exportWallet, { db }), exportWallet.parameters.parse({ walletId: WALLET_ID, targetPublicKey: target }), undefined), {});
    assert.deepEqual(await exportPrivateKey.view!(rulesContext(exportPrivateKey, { db }), exportPrivateKey.parameters.parse({ privateKeyId: PRIVATE_KEY_ID, targetPublicKey: target }), undefined), {});
  });
});

describe('sign_raw_payloads and typed data', () => {
  const typedData = (value: bigint) =>
    serializeTypedData({
      domain: { name: 'T', chainId: 1n },
      types: { EIP712Domain: [{ name: 'name', type: 'string' }, { name: 'chainId', type: 'uint256' }], Order: [{ name: 'value', type: 'uint256' }] },
      primaryType: 'Order',
      message: { value },
    });
  const viewOf = (payloads: string[]) =>
    signRawPayloads.view!(rulesContext(signRawPayloads, { db: keyStore(true).db }), { signWith: ADDRESS, payloads, encoding: 'PAYLOAD_ENCODING_EIP712', hashFunction: 'HASH_FUNCTION_NO_OP' }, account);

  test('one typed data, sent once or repeated, binds eth.eip_712', async () => {
    for (const payloads of [[typedData(1n)], [typedData(1n), typedData(1n)]]) {
      const view = await viewOf(payloads);
      assert.deepEqual(view.signing?.eth, { eip_712: { primary_type: 'Order', domain: { name: 'T', chain_id: 1 }, message: { value: 1 } } });
    }
  });

  test('payloads that differ bind no eth.eip_712: a condition cannot allow the others for what the first says', async () => {
    const view = await viewOf([typedData(1n), typedData(10n ** 30n)]);
    assert.equal(view.signing?.eth, undefined);
    assert.equal(view.summary, undefined);
    assert.ok(view.signing?.wallet, 'the key is still bound');
  });
});
