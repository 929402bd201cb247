// A new HD wallet as create_wallet and create_sub_organization's `wallet` both make one: its
// parameters ({walletName, accounts, mnemonicLength?}), a BIP-39 mnemonic generated from the CSPRNG,
// its accounts derived by path, and the mnemonic sealed for the store (keys/custody: AES-256-GCM under
// a data key the deployment's KEK wraps, bound to the owning organization, the wallet's id and the
// kind 'wallet_mnemonic') before it reaches an effect. What the plan answers is only the wallet's id
// and the accounts' addresses; the checks on the owning organization are the caller's.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { KeyEncryptionKey } from '../../../keys/custody/keyEncryptionKey.ts';
import { sealKeyMaterial } from '../../../keys/custody/sealKeyMaterial.ts';
import { generateMnemonic, MNEMONIC_WORD_COUNTS, mnemonicToSeed, parseMnemonic, type MnemonicWordCount } from '../../../keys/mnemonic.ts';
import { write, type Effect } from '../../../store/effects.ts';
import { objectExpected, trimmedName } from '../../wire/parameters.ts';
import { accountList, deriveAccounts } from './walletAccounts.ts';

export const MAX_WALLET_NAME_LENGTH = 256;
/** The kind a wallet's sealed mnemonic is bound to. */
export const WALLET_MNEMONIC = 'wallet_mnemonic';

/** A new wallet's parameters, as create_wallet takes them and create_sub_organization's `wallet`. */
export const newWalletParameters = () =>
  z.strictObject(
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
export type NewWalletParameters = z.output<ReturnType<typeof newWalletParameters>>;

export interface NewWalletPlan {
  walletId: string;
  /** The address of each account, in the order asked. */
  addresses: string[];
  /** The wallet's row and its accounts' rows. */
  writes: Effect[];
}

/**
 * The wallet `parameters` ask for, owned by `organizationId`: its mnemonic generated and sealed for
 * that organization and the wallet's id, its accounts derived (a refusal names its field under
 * `field`, the request's name for the wallet, e.g. `parameters.wallet`), and the writes that store it.
 */
export async function planNewWallet(
  kek: KeyEncryptionKey,
  owner: { organizationId: string; now: Date },
  parameters: NewWalletParameters,
  field = 'parameters',
): Promise<NewWalletPlan> {
  // A JavaScript string cannot be zeroed: the mnemonic's text lives only in this call and planWallet.
  const mnemonic = generateMnemonic(parameters.mnemonicLength as MnemonicWordCount);
  return planWallet(kek, owner, parameters, mnemonic, { field });
}

/**
 * The wallet of `mnemonic` (checked: a wrong one is a ParameterRejected naming `mnemonicField`) with
 * the accounts `parameters` ask for, owned by `organizationId`: the mnemonic sealed for that
 * organization and the wallet's id, the accounts derived (a refusal names its field under `field`),
 * and the writes that store it, marked `imported` when the mnemonic came from the client.
 */
export async function planWallet(
  kek: KeyEncryptionKey,
  owner: { organizationId: string; now: Date },
  parameters: Pick<NewWalletParameters, 'walletName' | 'accounts'>,
  mnemonic: string,
  options: { field?: string; mnemonicField?: string; imported?: boolean } = {},
): Promise<NewWalletPlan> {
  const { organizationId, now } = owner;
  const { field = 'parameters', imported = false } = options;
  const walletId = randomUUID();
  const seed = mnemonicToSeed(mnemonic, '', options.mnemonicField);
  // Sealed in its canonical form (parseMnemonic's), the form every later derivation reads.
  const words = Buffer.from(parseMnemonic(mnemonic, options.mnemonicField), 'utf8');
  let sealedMnemonic: string;
  let accounts;
  try {
    accounts = await deriveAccounts(kek, organizationId, seed, parameters.accounts, `${field}.accounts`);
    sealedMnemonic = await sealKeyMaterial(kek, { organizationId, rowId: walletId, kind: WALLET_MNEMONIC }, words);
  } finally {
    seed.fill(0);
    words.fill(0);
  }
  return {
    walletId,
    addresses: accounts.map((account) => account.address),
    writes: [
      write('insertWallet', { walletId, organizationId, name: parameters.walletName, sealedMnemonic, createdAt: now, ...(imported ? { imported } : {}) }),
      ...(accounts.length > 0 ? [write('insertWalletAccounts', organizationId, walletId, accounts, now)] : []),
    ],
  };
}
