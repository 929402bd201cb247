// The rules of create_sub_organization's `wallet` on plain data (no store): the wallet written after
// the new organization and owned by it, its mnemonic sealed for the new organization's id (opened here
// with the context's KEK, it derives the address the result names, as viem derives it), no check on
// the parent's wallets, the result's `wallet` absent when none was asked, and the wallet's fields
// refused by a 400 named under parameters.wallet.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { mnemonicToAccount } from 'viem/accounts';
import { createSubOrganization } from '../src/activities/handlers/organizations/createSubOrganization.ts';
import { WALLET_MNEMONIC } from '../src/activities/handlers/wallets/newWallet.ts';
import { deploymentSecretKek } from '../src/keys/custody/deploymentSecretKek.ts';
import { openKeyMaterial } from '../src/keys/custody/sealKeyMaterial.ts';
import type { NewWallet, NewWalletAccount } from '../src/store/wallets.ts';
import { fieldViolations } from '../src/wire/violations.ts';
import { effectsOf, NOW, ORGANIZATION_ID, planOf, RULES_SECRET } from './support/handlerRules.ts';

const ETHEREUM = { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' } as const;
const BASE = {
  subOrganizationName: 'Alice',
  rootUsers: [{ userName: 'Alice', userEmail: 'alice@example.com', apiKeys: [], authenticators: [], oauthProviders: [] }],
  rootQuorumThreshold: 1,
};

describe('create_sub_organization with a wallet', () => {
  test("the wallet is the new organization's, written after it; its sealed mnemonic derives the result's address", async () => {
    const plan = await planOf(createSubOrganization, { ...BASE, wallet: { walletName: ' Main ', accounts: [ETHEREUM] } });
    const result = plan.result as { subOrganizationId: string; wallet: { walletId: string; addresses: string[] } };
    const writes = effectsOf(plan, 'write');
    assert.deepEqual(
      writes.map((w) => w.name),
      ['insertSubOrganization', 'insertUsers', 'replaceRootQuorum', 'insertWallet', 'insertWalletAccounts'],
    );
    // Nothing about the parent's wallets: the new organization has none.
    assert.deepEqual(effectsOf(plan, 'check').map((c) => c.name), ['mayHaveSubOrganizations']);
    assert.deepEqual(effectsOf(plan, 'lock'), []);
    const wallet = writes.find((w) => w.name === 'insertWallet')!.args[0] as NewWallet;
    assert.deepEqual({ ...wallet, sealedMnemonic: '' }, { walletId: result.wallet.walletId, organizationId: result.subOrganizationId, name: 'Main', sealedMnemonic: '', createdAt: NOW });
    const accountsWrite = writes.find((w) => w.name === 'insertWalletAccounts')!;
    assert.deepEqual(accountsWrite.args.slice(0, 2), [result.subOrganizationId, result.wallet.walletId]);
    assert.deepEqual((accountsWrite.args[2] as NewWalletAccount[]).map((a) => a.address), result.wallet.addresses);

    const kek = deploymentSecretKek(RULES_SECRET);
    const opened = await openKeyMaterial(kek, { organizationId: result.subOrganizationId, rowId: wallet.walletId, kind: WALLET_MNEMONIC }, wallet.sealedMnemonic);
    const mnemonic = opened.toString('utf8');
    opened.fill(0);
    assert.equal(mnemonic.split(' ').length, 12);
    assert.deepEqual(result.wallet.addresses, [mnemonicToAccount(mnemonic).address]);
    // Sealed for the new organization, not the parent that submitted the activity.
    await assert.rejects(openKeyMaterial(kek, { organizationId: ORGANIZATION_ID, rowId: wallet.walletId, kind: WALLET_MNEMONIC }, wallet.sealedMnemonic), {
      name: 'KeyMaterialUnreadable',
    });
    const planText = JSON.stringify({ result: plan.result, effects: plan.effects });
    assert.ok(!planText.includes(mnemonic), 'the mnemonic is in the plan');
  });

  test('no wallet asked: no wallet written and no `wallet` in the result', async () => {
    const plan = await planOf(createSubOrganization, BASE);
    assert.ok(!('wallet' in (plan.result as object)));
    assert.ok(!effectsOf(plan, 'write').some((w) => w.name.startsWith('insertWallet')));
  });

  test("the wallet's fields are refused as create_wallet refuses them, named under parameters.wallet", () => {
    const refusals = (wallet: unknown) => {
      const parsed = createSubOrganization.parameters.safeParse({ ...BASE, wallet });
      assert.equal(parsed.success, false, 'the parameters were taken');
      return fieldViolations(parsed.error!, 'parameters').map((v) => `${v.field}: ${v.description}`);
    };
    assert.deepEqual(refusals({ walletName: 'w', accounts: [{ ...ETHEREUM, path: "44'/60'/0'/0/0" }] }), [
      `parameters.wallet.accounts[0].path: must start with m/, as in m/44'/60'/0'/0/0; got "44'/60'/0'/0/0"`,
    ]);
    assert.deepEqual(refusals({ walletName: 'w', accounts: [], mnemonicLength: 13 }), ['parameters.wallet.mnemonicLength: must be one of 12, 15, 18, 21, 24']);
    assert.deepEqual(refusals({ walletName: ' ', accounts: [] }), ['parameters.wallet.walletName: must not be empty or only spaces']);
    assert.deepEqual(refusals({ walletName: 'w' }), ['parameters.wallet.accounts: required field is missing']);
    assert.deepEqual(refusals({ walletName: 'w', accounts: Array.from({ length: 101 }, () => ETHEREUM) }), ['parameters.wallet.accounts: may hold at most 100 accounts']);
  });
});
