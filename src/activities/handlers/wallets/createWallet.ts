// The create_wallet activity (ACTIVITY_TYPE_CREATE_WALLET): a new HD wallet, its BIP-39 mnemonic
// generated from the CSPRNG, and its accounts derived by path (secp256k1 by BIP-32, ed25519 by
// SLIP-0010). The mnemonic is sealed for the store (keys/custody: AES-256-GCM under a data key the
// deployment's KEK wraps, bound to the organization, the wallet's id and the kind 'wallet_mnemonic')
// before it reaches an effect; the result, the stored activity and the logs hold only the wallet's id
// and the accounts' addresses. The wallet is written with the activity in one statement, after the
// checks, under the organization's lock, that its name is free and the organization has room for it.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { invalidArgument, invalidField } from '../../../errors.ts';
import { sealKeyMaterial } from '../../../keys/custody/sealKeyMaterial.ts';
import { generateMnemonic, MNEMONIC_WORD_COUNTS, mnemonicToSeed, type MnemonicWordCount } from '../../../keys/mnemonic.ts';
import { check, lock, write } from '../../../store/effects.ts';
import type { ActivityHandler } from '../../handler.ts';
import { objectExpected, trimmedName } from '../../wire/parameters.ts';
import { accountList, deriveAccounts, MAX_WALLET_ACCOUNTS } from './walletAccounts.ts';

/** Wallets an organization may have. */
export const MAX_WALLETS = 100;
export const MAX_WALLET_NAME_LENGTH = 256;
/** The kind a wallet's sealed mnemonic is bound to. */
export const WALLET_MNEMONIC = 'wallet_mnemonic';

const parameters = z.strictObject(
  {
    walletName: trimmedName(MAX_WALLET_NAME_LENGTH).describe(
      `Name of the wallet, unique in the organization, 1 to ${MAX_WALLET_NAME_LENGTH} characters once spaces around it are trimmed`,
    ),
    accounts: accountList(),
    mnemonicLength: z
      .number({ error: `must be one of ${MNEMONIC_WORD_COUNTS.join(', ')}` })
      .refine((value): value is MnemonicWordCount => (MNEMONIC_WORD_COUNTS as readonly number[]).includes(value), {
        error: `must be one of ${MNEMONIC_WORD_COUNTS.join(', ')}`,
      })
      .default(12)
      .describe(`Words of the mnemonic generated: ${MNEMONIC_WORD_COUNTS.join(', ')}; 12 when absent`),
  },
  { error: objectExpected() },
);

const resultSchema = z.strictObject({
  walletId: z.uuid().describe('Identifier of the new wallet: get_wallet and list_wallet_accounts take it'),
  addresses: z.array(z.string()).describe('The address of each account, in the order of `accounts`'),
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
    const { organizationId, now } = context;
    const walletId = randomUUID();
    // A JavaScript string cannot be zeroed: the mnemonic's text lives only in this call, its bytes are zeroed.
    const mnemonic = generateMnemonic(intent.mnemonicLength as MnemonicWordCount);
    const words = Buffer.from(mnemonic, 'utf8');
    const seed = mnemonicToSeed(mnemonic);
    let sealedMnemonic: string;
    let accounts;
    try {
      accounts = deriveAccounts(seed, intent.accounts);
      sealedMnemonic = await sealKeyMaterial(context.kek, { organizationId, rowId: walletId, kind: WALLET_MNEMONIC }, words);
    } finally {
      seed.fill(0);
      words.fill(0);
    }
    return {
      result: { walletId, addresses: accounts.map((account) => account.address) },
      effects: [
        // Concurrent creations count one after the other, so the bound is exact.
        lock('organization', organizationId),
        check(
          'walletNameFree',
          [organizationId, intent.walletName],
          invalidField('parameters.walletName', `the organization already has a wallet named ${JSON.stringify(intent.walletName)}; wallet names are unique in an organization`),
        ),
        check('walletsRoomFor', [organizationId, MAX_WALLETS], invalidArgument(`the organization has ${MAX_WALLETS} wallets, the most it may have`)),
        write('insertWallet', { walletId, organizationId, name: intent.walletName, sealedMnemonic, createdAt: now }),
        ...(accounts.length > 0 ? [write('insertWalletAccounts', organizationId, walletId, accounts, now)] : []),
      ],
    };
  },
};
