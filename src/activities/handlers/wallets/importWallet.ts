// The import_wallet activity (ACTIVITY_TYPE_IMPORT_WALLET): a wallet made from a mnemonic the client
// encrypted with @turnkey/crypto's encryptWalletToBundle to the import bundle of the user's
// init_import_wallet. The user's pending import's target key opens it (keyBundles.ts); the mnemonic
// is checked, its accounts derived and it is sealed for the store as create_wallet's is (newWallet.ts),
// the wallet marked imported. The pending import is used in the activity's statement, once and while
// unexpired; the wallet's name and the organization's room are checked there too, under its lock.
import { z } from 'zod';
import { invalidField } from '../../../errors.ts';
import type { ActivityHandler } from '../../handler.ts';
import { objectExpected, trimmedName } from '../../wire/parameters.ts';
import { MAX_WALLETS, newWalletChecks } from './createWallet.ts';
import { encryptedBundleField, withImportedBytes } from './keyBundles.ts';
import { MAX_WALLET_NAME_LENGTH, planWallet } from './newWallet.ts';
import { accountList, addressList, MAX_WALLET_ACCOUNTS } from './walletAccounts.ts';

const parameters = z.strictObject(
  {
    userId: z.uuid({ message: 'must be a user id (a UUID)' }).describe('The user of the init_import_wallet whose import bundle the mnemonic was encrypted to'),
    walletName: trimmedName(MAX_WALLET_NAME_LENGTH).describe(
      `Name of the wallet, unique in the organization, 1 to ${MAX_WALLET_NAME_LENGTH} characters once spaces around it are trimmed`,
    ),
    encryptedBundle: encryptedBundleField('The mnemonic'),
    accounts: accountList(),
  },
  { error: objectExpected() },
);

const resultSchema = z.strictObject({
  walletId: z.uuid().describe('Identifier of the imported wallet'),
  addresses: addressList(),
});
type ImportWalletResult = z.infer<typeof resultSchema>;

export const importWallet: ActivityHandler<typeof parameters, ImportWalletResult> = {
  path: 'import_wallet',
  activityType: 'ACTIVITY_TYPE_IMPORT_WALLET',
  resource: 'WALLET',
  action: 'IMPORT',
  reasons: [],
  summary:
    `\`{userId, walletName, encryptedBundle, accounts}\`: a wallet from a mnemonic encrypted to init_import_wallet's bundle, and its accounts (at most ${MAX_WALLET_ACCOUNTS}); ` +
    'result `importWalletResult {walletId, addresses}` ([Wallets](wallets.md#export-and-import))',
  description:
    "Imports a wallet: encryptedBundle (encryptWalletToBundle's output) is opened with the target key of the user's init_import_wallet, once and within its lifetime; the mnemonic is sealed as " +
    "create_wallet's is and the accounts derived. A bundle that does not open (another user's, organization's or init's, used already, expired) or holds no valid BIP-39 mnemonic is a 400 naming encryptedBundle; " +
    `a name the organization already has, or a wallet past the ${MAX_WALLETS} an organization may have, a 400 too.`,
  intentKey: 'importWalletIntent',
  resultKey: 'importWalletResult',
  parameters,
  resultSchema,
  example: {
    userId: '3c9e5a7b-1d2f-4e6a-8b0c-9d7e5f3a1b2c',
    walletName: 'Imported',
    encryptedBundle: JSON.stringify({
      encappedPublic:
        '041d299b440132a19833c8d5768d5a638637dc4fb8bf5bff209cf4fe99259e4550705026f73e7400b9bd21fc4c12bd009fcc09ff825065738bdd69c2799e831a4c',
      ciphertext: '8f1c0a2b3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9',
    }),
    accounts: [{ curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' }],
  },

  async execute(context, intent) {
    const { organizationId } = context;
    const field = 'parameters.encryptedBundle';
    const { value: wallet, effects } = await withImportedBytes(context, { userId: intent.userId, kind: 'wallet', encryptedBundle: intent.encryptedBundle }, (plaintext) => {
      // A JavaScript string cannot be zeroed: the mnemonic's text lives only in this call; its bytes are zeroed.
      let mnemonic: string;
      try {
        mnemonic = new TextDecoder('utf-8', { fatal: true }).decode(plaintext);
      } catch {
        throw invalidField(field, 'opens to bytes that are not UTF-8 text; encrypt the mnemonic with encryptWalletToBundle');
      }
      return planWallet(context.kek, context, intent, mnemonic, { mnemonicField: field, imported: true });
    });
    return {
      result: { walletId: wallet.walletId, addresses: wallet.addresses },
      effects: [
        ...newWalletChecks(organizationId, intent.walletName),
        ...effects,
        ...wallet.writes,
      ],
    };
  },
};
