// The create_wallet activity (ACTIVITY_TYPE_CREATE_WALLET): a new HD wallet, its BIP-39 mnemonic
// generated from the CSPRNG, and its accounts derived by path (secp256k1 by BIP-32, ed25519 by
// SLIP-0010), planned by newWallet.ts as create_sub_organization's `wallet` is. The mnemonic is sealed for the store (keys/custody: AES-256-GCM under a data key the
// deployment's KEK wraps, bound to the organization, the wallet's id and the kind 'wallet_mnemonic')
// before it reaches an effect; the result, the stored activity and the logs hold only the wallet's id
// and the accounts' addresses. The wallet is written with the activity in one statement, after the
// checks, under the organization's lock, that its name is free and the organization has room for it.
import { z } from 'zod';
import { invalidArgument, invalidField } from '../../../errors.ts';
import { check, lock, type Effect } from '../../../store/effects.ts';
import type { ActivityHandler } from '../../handler.ts';
import { newWalletParameters, planNewWallet } from './newWallet.ts';
import { addressList, MAX_WALLET_ACCOUNTS } from './walletAccounts.ts';

export { MAX_WALLET_NAME_LENGTH, WALLET_MNEMONIC } from './newWallet.ts';

/** Wallets an organization may have. */
export const MAX_WALLETS = 100;

const parameters = newWalletParameters();

/**
 * What a wallet added to an organization must hold (create_wallet, import_wallet): its name free and
 * room for one more, counted under the organization's lock so that concurrent ones count one after
 * the other and the bound is exact.
 */
export function newWalletChecks(organizationId: string, walletName: string): Effect[] {
  return [
    lock('organization', organizationId),
    check(
      'walletNameFree',
      [organizationId, walletName],
      invalidField('parameters.walletName', `the organization already has a wallet named ${JSON.stringify(walletName)}; wallet names are unique in an organization`),
    ),
    check('walletsRoomFor', [organizationId, MAX_WALLETS], invalidArgument(`the organization has ${MAX_WALLETS} wallets, the most it may have`)),
  ];
}

const resultSchema = z.strictObject({
  walletId: z.uuid().describe('Identifier of the new wallet: get_wallet and list_wallet_accounts take it'),
  addresses: addressList(),
});
type CreateWalletResult = z.infer<typeof resultSchema>;

export const createWallet: ActivityHandler<typeof parameters, CreateWalletResult> = {
  path: 'create_wallet',
  activityType: 'ACTIVITY_TYPE_CREATE_WALLET',
  resource: 'WALLET',
  action: 'CREATE',
  reasons: [],
  summary:
    `\`{walletName, accounts: [{curve, pathFormat, path, addressFormat}], mnemonicLength?}\`: a new HD wallet (at most ${MAX_WALLETS} per organization) and its accounts (at most ${MAX_WALLET_ACCOUNTS}); ` +
    'result `createWalletResult {walletId, addresses}` ([Wallets](wallets.md))',
  description:
    'Creates an HD wallet: a new BIP-39 mnemonic, kept sealed under the deployment\'s key-encryption key and never answered, and its accounts derived by path ' +
    '(CURVE_SECP256K1 by BIP-32, CURVE_ED25519 by SLIP-0010 with hardened steps only). A curve, path or address format that does not fit is a 400 naming the field, ' +
    `as is a name the organization already has and a wallet past the ${MAX_WALLETS} an organization may have.`,
  intentKey: 'createWalletIntent',
  resultKey: 'createWalletResult',
  parameters,
  resultSchema,
  example: {
    walletName: 'Treasury',
    accounts: [
      { curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' },
      { curve: 'CURVE_ED25519', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/501'/0'/0'", addressFormat: 'ADDRESS_FORMAT_SOLANA' },
    ],
  },

  async execute(context, intent) {
    const { organizationId } = context;
    const wallet = await planNewWallet(context.kek, context, intent);
    return {
      result: { walletId: wallet.walletId, addresses: wallet.addresses },
      effects: [
        ...newWalletChecks(organizationId, intent.walletName),
        ...wallet.writes,
      ],
    };
  },
};
