// The rules of create_wallet and create_wallet_accounts on plain data (no store): what they check and
// write, under which lock; the mnemonic sealed for the wallet's row (opened here with the context's
// KEK, it derives the accounts the result names, as viem derives them) and nowhere else in the plan;
// each account's curve, path and format refused by a 400 naming the field.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { mnemonicToAccount } from 'viem/accounts';
import type { ExecutionContext } from '../src/activities/handler.ts';
import { createWallet, MAX_WALLETS, WALLET_MNEMONIC } from '../src/activities/handlers/wallets/createWallet.ts';
import { createWalletAccounts } from '../src/activities/handlers/wallets/createWalletAccounts.ts';
import { MAX_WALLET_ACCOUNTS } from '../src/activities/handlers/wallets/walletAccounts.ts';
import { deploymentSecretKek } from '../src/keys/custody/deploymentSecretKek.ts';
import { openKeyMaterial } from '../src/keys/custody/sealKeyMaterial.ts';
import { parseMnemonic } from '../src/keys/mnemonic.ts';
import type { NewWallet, NewWalletAccount } from '../src/store/wallets.ts';
import { fieldViolations } from '../src/wire/violations.ts';
import { checksOf, effectsOf, NOW, ORGANIZATION_ID, planOf, RULES_SECRET } from './support/handlerRules.ts';

const ETHEREUM = { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' } as const;
const SOLANA = { curve: 'CURVE_ED25519', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/501'/0'/0'", addressFormat: 'ADDRESS_FORMAT_SOLANA' } as const;

/** The field violations of parameters the schema refuses, as `field: description` lines. */
function refusals(parameters: unknown): string[] {
  const parsed = createWallet.parameters.safeParse(parameters);
  assert.equal(parsed.success, false, 'the parameters were taken');
  return fieldViolations(parsed.error!, 'parameters')
    .map((v) => `${v.field}: ${v.description}`)
    .sort((a, b) => a.localeCompare(b));
}

async function walletOf(parameters: Parameters<typeof planOf<typeof createWallet.parameters>>[1]) {
  const plan = await planOf(createWallet, parameters);
  const writes = effectsOf(plan, 'write');
  const wallet = writes.find((w) => w.name === 'insertWallet')!.args[0] as NewWallet;
  const accounts = (writes.find((w) => w.name === 'insertWalletAccounts')?.args[2] ?? []) as NewWalletAccount[];
  const opened = await openKeyMaterial(deploymentSecretKek(RULES_SECRET), { organizationId: ORGANIZATION_ID, rowId: wallet.walletId, kind: WALLET_MNEMONIC }, wallet.sealedMnemonic);
  const mnemonic = opened.toString('utf8');
  opened.fill(0);
  return { plan, wallet, accounts, mnemonic };
}

describe('create_wallet', () => {
  test('under the organization lock, the name is free and there is room; the wallet and its accounts are written', async () => {
    const { plan, wallet, accounts } = await walletOf({ walletName: ' Treasury ', accounts: [ETHEREUM, SOLANA] });
    assert.deepEqual(
      plan.effects.map((effect) => `${effect.kind}${'name' in effect ? ` ${effect.name}` : ''}`),
      ['lock organization', 'check walletNameFree', 'check walletsRoomFor', 'write insertWallet', 'write insertWalletAccounts'],
    );
    assert.deepEqual(effectsOf(plan, 'lock')[0]!.args, [ORGANIZATION_ID]);
    assert.deepEqual(checksOf(plan), [
      {
        name: 'walletNameFree',
        args: [ORGANIZATION_ID, 'Treasury'],
        message: 'parameters.walletName: the organization already has a wallet named "Treasury"; wallet names are unique in an organization',
      },
      { name: 'walletsRoomFor', args: [ORGANIZATION_ID, MAX_WALLETS], message: `the organization has ${MAX_WALLETS} wallets, the most it may have` },
    ]);
    assert.equal(effectsOf(plan, 'check')[0]!.error.status, 400);
    assert.deepEqual({ ...wallet, sealedMnemonic: '' }, { walletId: wallet.walletId, organizationId: ORGANIZATION_ID, name: 'Treasury', sealedMnemonic: '', createdAt: NOW });
    assert.deepEqual(plan.result, { walletId: wallet.walletId, addresses: accounts.map((account) => account.address) });
    assert.deepEqual(
      accounts.map(({ curve, pathFormat, path, addressFormat }) => ({ curve, pathFormat, path, addressFormat })),
      [ETHEREUM, SOLANA],
    );
    assert.match(accounts[0]!.address, /^0x[0-9a-fA-F]{40}$/);
    assert.match(accounts[0]!.publicKey, /^0[23][0-9a-f]{64}$/);
    assert.match(accounts[1]!.address, /^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    assert.match(accounts[1]!.publicKey, /^[0-9a-f]{64}$/);
  });

  test('the mnemonic is sealed for the wallet row alone; it derives the Ethereum account as viem does, and appears nowhere else in the plan', async () => {
    const { plan, wallet, accounts, mnemonic } = await walletOf({ walletName: 'w', accounts: [ETHEREUM, SOLANA] });
    assert.equal(parseMnemonic(mnemonic), mnemonic);
    assert.equal(mnemonic.split(' ').length, 12);
    assert.equal(accounts[0]!.address, mnemonicToAccount(mnemonic).address);
    // Bound to its row: under another wallet's id it does not open.
    await assert.rejects(
      openKeyMaterial(deploymentSecretKek(RULES_SECRET), { organizationId: ORGANIZATION_ID, rowId: crypto.randomUUID(), kind: WALLET_MNEMONIC }, wallet.sealedMnemonic),
      { name: 'KeyMaterialUnreadable', problem: 'not_authentic' },
    );
    const planText = JSON.stringify({ result: plan.result, effects: plan.effects });
    assert.ok(!planText.includes(mnemonic), 'the mnemonic is in the plan');
    assert.ok(!planText.includes(mnemonic.split(' ').join('')), 'the words joined are in the plan');
  });

  test('mnemonicLength chooses the words (12 by default); each wallet has its own mnemonic', async () => {
    const long = await walletOf({ walletName: 'w', accounts: [], mnemonicLength: 24 });
    assert.equal(long.mnemonic.split(' ').length, 24);
    const short = await walletOf({ walletName: 'w', accounts: [] });
    assert.notEqual(short.mnemonic, long.mnemonic);
  });

  test('no accounts: the wallet alone is written, with no addresses', async () => {
    const { plan, accounts } = await walletOf({ walletName: 'empty', accounts: [] });
    assert.deepEqual(accounts, []);
    assert.deepEqual(effectsOf(plan, 'write').map((w) => w.name), ['insertWallet']);
    assert.deepEqual((plan.result as { addresses: string[] }).addresses, []);
  });

  test('a curve, format or path that does not fit is refused naming the field', () => {
    assert.deepEqual(
      refusals({
        walletName: 'w',
        accounts: [
          ETHEREUM,
          { ...SOLANA, path: "m/44'/501'/0'/0" },
          { ...SOLANA, addressFormat: 'ADDRESS_FORMAT_ETHEREUM' },
          { ...ETHEREUM, curve: 'CURVE_P256' },
          { ...ETHEREUM, path: "44'/60'/0'/0/0" },
          { ...ETHEREUM, addressFormat: 'ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR' },
          { ...ETHEREUM, path: "m/44'/60'/0'/0/6", pathFormat: 'PATH_FORMAT_SLIP10' },
          ETHEREUM,
        ],
      }),
      [
        "parameters.accounts[1].path: step 4 is not hardened; CURVE_ED25519 keys are derived by SLIP-0010, which has hardened steps only (mark each with ')",
        'parameters.accounts[2].addressFormat: ADDRESS_FORMAT_ETHEREUM is not an address of a CURVE_ED25519 key; CURVE_ED25519 accounts have ADDRESS_FORMAT_SOLANA, ADDRESS_FORMAT_COMPRESSED',
        'parameters.accounts[3].curve: must be one of CURVE_SECP256K1, CURVE_ED25519',
        'parameters.accounts[6].pathFormat: must be PATH_FORMAT_BIP32',
        `parameters.accounts[4].path: must start with m/, as in m/44'/60'/0'/0/0; got "44'/60'/0'/0/0"`,
        'parameters.accounts[5].addressFormat: ADDRESS_FORMAT_BITCOIN_MAINNET_P2TR is not supported; supported: ADDRESS_FORMAT_ETHEREUM, ADDRESS_FORMAT_COMPRESSED, ADDRESS_FORMAT_UNCOMPRESSED, ADDRESS_FORMAT_SOLANA',
        'parameters.accounts[7].path: accounts[0] has the same path and addressFormat; each account of a wallet is one path in one format',
      ].sort((a, b) => a.localeCompare(b)),
    );
  });

  test('the name, the mnemonic length, the bound on accounts and unknown fields are refused naming the field', () => {
    assert.deepEqual(refusals({ walletName: '  ', accounts: [] }), ['parameters.walletName: must not be empty or only spaces']);
    assert.deepEqual(refusals({ walletName: 'w', accounts: [], mnemonicLength: 13 }), ['parameters.mnemonicLength: must be one of 12, 15, 18, 21, 24']);
    assert.deepEqual(refusals({ walletName: 'w', accounts: Array.from({ length: MAX_WALLET_ACCOUNTS + 1 }, () => ETHEREUM) }), [
      `parameters.accounts: may hold at most ${MAX_WALLET_ACCOUNTS} accounts`,
    ]);
    assert.deepEqual(refusals({ walletName: 'w', accounts: [{ ...ETHEREUM, label: 'x' }] }), [
      'parameters.accounts[0].label: unknown field; remove it (field names are case-sensitive)',
    ]);
    assert.deepEqual(refusals({ walletName: 'w' }), ['parameters.accounts: required field is missing']);
  });
});

describe('create_wallet_accounts', () => {
  /** A context whose store answers the wallet's sealed mnemonic (the one read the handler makes). */
  async function storedWallet() {
    const created = await walletOf({ walletName: 'w', accounts: [ETHEREUM] });
    const reads: unknown[][] = [];
    const db = {
      async query(_text: string, values: unknown[]) {
        reads.push(values);
        return values.includes(created.wallet.walletId) ? [{ sealed_mnemonic: created.wallet.sealedMnemonic }] : [];
      },
    } as unknown as ExecutionContext['db'];
    return { ...created, db, reads };
  }

  test("the wallet's mnemonic derives the new accounts; each path must be free in its format and the wallet have room, under the organization lock", async () => {
    const { wallet, mnemonic, db, reads } = await storedWallet();
    const second = { ...ETHEREUM, path: "m/44'/60'/0'/0/1" };
    const plan = await planOf(createWalletAccounts, { walletId: wallet.walletId, accounts: [second, SOLANA] }, { db });
    assert.deepEqual(reads, [[ORGANIZATION_ID, wallet.walletId]]);
    const [insert] = effectsOf(plan, 'write');
    assert.equal(insert!.name, 'insertWalletAccounts');
    const accounts = insert!.args[2] as NewWalletAccount[];
    assert.deepEqual(plan.result, { addresses: accounts.map((account) => account.address) });
    assert.equal(accounts[0]!.address, mnemonicToAccount(mnemonic, { addressIndex: 1 }).address);
    assert.deepEqual(effectsOf(plan, 'lock')[0]!.args, [ORGANIZATION_ID]);
    assert.deepEqual(checksOf(plan), [
      {
        name: 'walletAccountsRoomFor',
        args: [wallet.walletId, 2, MAX_WALLET_ACCOUNTS],
        message: `the wallet may hold at most ${MAX_WALLET_ACCOUNTS} accounts; these 2 would pass the bound`,
      },
      {
        name: 'walletAccountFree',
        args: [wallet.walletId, second.path, second.addressFormat],
        message: `parameters.accounts[0].path: the wallet already has an account at ${second.path} in ADDRESS_FORMAT_ETHEREUM`,
      },
      {
        name: 'walletAccountFree',
        args: [wallet.walletId, SOLANA.path, SOLANA.addressFormat],
        message: `parameters.accounts[1].path: the wallet already has an account at ${SOLANA.path} in ADDRESS_FORMAT_SOLANA`,
      },
    ]);
    const planText = JSON.stringify({ result: plan.result, effects: plan.effects });
    assert.ok(!planText.includes(mnemonic), 'the mnemonic is in the plan');
  });

  test('persist: false answers the addresses and writes nothing', async () => {
    const { wallet, db } = await storedWallet();
    const plan = await planOf(createWalletAccounts, { walletId: wallet.walletId, accounts: [SOLANA], persist: false }, { db });
    assert.deepEqual(plan.effects, []);
    assert.equal((plan.result as { addresses: string[] }).addresses.length, 1);
  });

  test("a wallet the organization does not have is a 404; no account, or a bad one, is a 400 naming the field", async () => {
    const { db } = await storedWallet();
    await assert.rejects(planOf(createWalletAccounts, { walletId: crypto.randomUUID(), accounts: [ETHEREUM] }, { db }), { reason: 'WALLET_NOT_FOUND', status: 404 });
    const parsed = createWalletAccounts.parameters.safeParse({ walletId: crypto.randomUUID(), accounts: [] });
    assert.deepEqual(fieldViolations(parsed.error!, 'parameters'), [{ field: 'parameters.accounts', description: 'must hold at least one account' }]);
    const bad = createWalletAccounts.parameters.safeParse({ walletId: crypto.randomUUID(), accounts: [{ ...SOLANA, path: "m/44'/501'/0" }] });
    assert.deepEqual(fieldViolations(bad.error!, 'parameters').map((v) => v.field), ['parameters.accounts[0].path']);
  });
});
