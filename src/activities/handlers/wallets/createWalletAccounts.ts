// The create_wallet_accounts activity (ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS): more accounts of an
// existing wallet, derived from its mnemonic, which is opened for this one operation (with the KEK
// it was sealed under) and zeroed after. With `persist: false` the addresses are answered and
// nothing is written. The accounts are written with the activity in one statement, after the checks,
// under the organization's lock, that the wallet has room for them and none of their paths in its
// format is taken.
import { z } from 'zod';
import { invalidArgument, invalidField, notFound } from '../../../errors.ts';
import { withOpenedKeyMaterial } from '../../../keys/custody/sealKeyMaterial.ts';
import { mnemonicToSeed } from '../../../keys/mnemonic.ts';
import { check, lock, write } from '../../../store/effects.ts';
import { findSealedMnemonic, type NewWalletAccount } from '../../../store/wallets.ts';
import type { ActivityHandler } from '../../handler.ts';
import { objectExpected, trueOrFalse } from '../../wire/parameters.ts';
import { WALLET_MNEMONIC } from './createWallet.ts';
import { accountList, addressList, deriveAccounts, MAX_WALLET_ACCOUNTS } from './walletAccounts.ts';

const parameters = z.strictObject(
  {
    walletId: z.uuid({ message: 'must be a wallet id (a UUID)' }).describe("The wallet to derive from, as create_wallet returned it; another organization's is a 404"),
    accounts: accountList().min(1, 'must hold at least one account'),
    persist: trueOrFalse().describe('false: the addresses are answered and no account is stored; true when absent').optional(),
  },
  { error: objectExpected() },
);

const resultSchema = z.strictObject({
  addresses: addressList(),
});
type CreateWalletAccountsResult = z.infer<typeof resultSchema>;

export const createWalletAccounts: ActivityHandler<typeof parameters, CreateWalletAccountsResult> = {
  path: 'create_wallet_accounts',
  activityType: 'ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS',
  resource: 'WALLET',
  action: 'CREATE',
  reasons: ['WALLET_NOT_FOUND'],
  summary:
    `\`{walletId, accounts: [{curve, pathFormat, path, addressFormat}], persist?}\`: more accounts of a wallet (at most ${MAX_WALLET_ACCOUNTS} in all); ` +
    'result `createWalletAccountsResult {addresses}` ([Wallets](wallets.md))',
  description:
    "Derives more accounts of an existing wallet from its sealed mnemonic, opened for this operation only. A path already in the wallet in the same address format is a 400 naming it, as is a wallet past its " +
    `${MAX_WALLET_ACCOUNTS} accounts; with \`persist: false\` the addresses are answered and nothing is stored.`,
  intentKey: 'createWalletAccountsIntent',
  resultKey: 'createWalletAccountsResult',
  parameters,
  resultSchema,
  example: {
    walletId: '5b0c2f4e-8d7a-4c3b-9e1f-2a6d8c4b7e90',
    accounts: [{ curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/1", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' }],
  },

  async execute(context, intent) {
    const { organizationId, now } = context;
    const { walletId } = intent;
    const sealed = await findSealedMnemonic(context.db, organizationId, walletId);
    if (sealed === undefined) throw notFound('WALLET_NOT_FOUND', `no wallet ${walletId} in organization ${organizationId}`);
    const accounts: NewWalletAccount[] = await withOpenedKeyMaterial(context.kek, { organizationId, rowId: walletId, kind: WALLET_MNEMONIC }, sealed, async (words) => {
      const seed = mnemonicToSeed(words.toString('utf8'));
      try {
        return await deriveAccounts(context.kek, organizationId, seed, intent.accounts);
      } finally {
        seed.fill(0);
      }
    });
    const result = { addresses: accounts.map((account) => account.address) };
    if (intent.persist === false) return { result, effects: [] };
    return {
      result,
      effects: [
        // Concurrent additions count one after the other, so the bound is exact.
        lock('organization', organizationId),
        check(
          'walletAccountsRoomFor',
          [walletId, accounts.length, MAX_WALLET_ACCOUNTS],
          invalidArgument(`the wallet may hold at most ${MAX_WALLET_ACCOUNTS} accounts; these ${accounts.length} would pass the bound`),
        ),
        ...accounts.map((account, index) =>
          check(
            'walletAccountFree',
            [walletId, account.path, account.addressFormat],
            invalidField(`parameters.accounts[${index}].path`, `the wallet already has an account at ${account.path} in ${account.addressFormat}`),
          ),
        ),
        write('insertWalletAccounts', organizationId, walletId, accounts, now),
      ],
    };
  },
};
