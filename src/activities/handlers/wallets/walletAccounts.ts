// What the wallet activities share: an account's parameters as the wire gives them
// ({curve, pathFormat, path, addressFormat}), checked so that a wrong curve, format or path is a 400
// naming its field (`parameters.accounts[1].path`) before anything is derived, and the accounts
// derived from a seed, each with its address, public key and private key sealed for the store. No
// private key leaves this file in clear: each is zeroed once sealed.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { invalidField } from '../../../errors.ts';
import { accountPublicKeyHex, addressOf, checkAddressFormat } from '../../../keys/addresses.ts';
import { accountKeyDeriver, DERIVATION_CURVES, MAX_PATH_CHARACTERS, parseDerivationPath, type DerivationCurve } from '../../../keys/derivation.ts';
import { ParameterRejected } from '../../../keys/parameterRejected.ts';
import type { KeyEncryptionKey } from '../../../keys/custody/keyEncryptionKey.ts';
import { sealKeyMaterial } from '../../../keys/custody/sealKeyMaterial.ts';
import type { NewWalletAccount } from '../../../store/wallets.ts';

/** Accounts one request may derive, and one wallet may hold. */
export const MAX_WALLET_ACCOUNTS = 100;
/** The one path format there is: BIP-32 paths (m/44'/60'/0'/0/0). */
export const PATH_FORMATS = ['PATH_FORMAT_BIP32'] as const;

const isCurve = (value: unknown): value is DerivationCurve => (DERIVATION_CURVES as readonly unknown[]).includes(value);

const account = z.strictObject({
  curve: z
    .string({ error: 'must be a string' })
    .refine(isCurve, { error: `must be one of ${DERIVATION_CURVES.join(', ')}` })
    .describe('CURVE_SECP256K1 (derived by BIP-32) or CURVE_ED25519 (derived by SLIP-0010, hardened steps only)'),
  pathFormat: z.enum(PATH_FORMATS, { error: 'must be PATH_FORMAT_BIP32' }).describe('PATH_FORMAT_BIP32'),
  path: z
    .string({ error: 'must be a string' })
    .max(MAX_PATH_CHARACTERS, `must be at most ${MAX_PATH_CHARACTERS} characters`)
    .describe("Derivation path, e.g. m/44'/60'/0'/0/0 (a hardened step marked ' or h)"),
  addressFormat: z
    .string({ error: 'must be a string' })
    .describe(
      'CURVE_SECP256K1: ADDRESS_FORMAT_ETHEREUM, ADDRESS_FORMAT_COMPRESSED or ADDRESS_FORMAT_UNCOMPRESSED; CURVE_ED25519: ADDRESS_FORMAT_SOLANA or ADDRESS_FORMAT_COMPRESSED',
    ),
});
export type AccountParameters = z.output<typeof account>;

/** Where a refusal of account `index`'s field points; `accounts` names the list (e.g. `parameters.wallet.accounts`). */
const fieldOf = (index: number, name: keyof AccountParameters, accounts = 'parameters.accounts') => `${accounts}[${index}].${name}`;

/**
 * The accounts of a request, at most MAX_WALLET_ACCOUNTS: each one's path parsed, its format checked
 * against its curve, an ed25519 path hardened at every step, and no two with the same path and format.
 */
/** The addresses a result answers, one per account asked for. */
export const addressList = () => z.array(z.string()).describe('The address of each account, in the order of `accounts`');

export const accountList = () =>
  z
    .array(account, { error: 'must be an array of accounts' })
    .max(MAX_WALLET_ACCOUNTS, `may hold at most ${MAX_WALLET_ACCOUNTS} accounts`)
    .superRefine(
      (accounts, ctx) => {
        if (accounts.length > MAX_WALLET_ACCOUNTS) return; // refused as a whole
        const seen = new Map<string, number>();
        accounts.forEach((params, index) => {
          const issue = (name: keyof AccountParameters, message: string) => ctx.addIssue({ code: 'custom', path: [index, name], message });
          // A field of the wrong type has its own issue.
          if (typeof params !== 'object' || params === null || !isCurve(params.curve) || typeof params.path !== 'string' || typeof params.addressFormat !== 'string') return;
        try {
          const steps = parseDerivationPath(params.path, fieldOf(index, 'path'));
          const soft = steps.findIndex((step) => !step.hardened);
          if (params.curve === 'CURVE_ED25519' && soft >= 0) {
            issue('path', `step ${soft + 1} is not hardened; CURVE_ED25519 keys are derived by SLIP-0010, which has hardened steps only (mark each with ')`);
          }
        } catch (error) {
          if (!(error instanceof ParameterRejected)) throw error;
          issue('path', error.description);
        }
        try {
          checkAddressFormat(params.curve, params.addressFormat, fieldOf(index, 'addressFormat'));
        } catch (error) {
          if (!(error instanceof ParameterRejected)) throw error;
          issue('addressFormat', error.description);
        }
        const key = `${params.path}\u0000${params.addressFormat}`;
        const first = seen.get(key);
        if (first === undefined) seen.set(key, index);
        else issue('path', `accounts[${first}] has the same path and addressFormat; each account of a wallet is one path in one format`);
        });
      },
      // Every account is checked even when another field is wrong, so one answer names every problem.
      { when: (payload) => Array.isArray(payload.value) },
    )
    .describe(`The accounts to derive, at most ${MAX_WALLET_ACCOUNTS}; [] for none`);

/** The kind an account's sealed private key is bound to (with the organization and the account's id). */
export const WALLET_ACCOUNT_KEY = 'wallet_account_key';

/**
 * The accounts derived from `seed`, in the order asked, each with a new id and its private key sealed
 * for `organizationId` and that id (so that a signature opens one small value, not the mnemonic); each
 * parent key derived once. A refusal names its field under `field` (the request's name for the list).
 */
export async function deriveAccounts(
  kek: KeyEncryptionKey,
  organizationId: string,
  seed: Uint8Array,
  accounts: readonly AccountParameters[],
  field = 'parameters.accounts',
): Promise<NewWalletAccount[]> {
  const deriver = accountKeyDeriver(seed);
  try {
    const derived: NewWalletAccount[] = [];
    for (const [index, params] of accounts.entries()) {
      const fields = { path: fieldOf(index, 'path', field), curve: fieldOf(index, 'curve', field) };
      const key = deriver.derive(params.curve, params.path, fields);
      try {
        const walletAccountId = randomUUID();
        derived.push({
          walletAccountId,
          curve: key.curve,
          pathFormat: params.pathFormat,
          path: params.path,
          addressFormat: params.addressFormat,
          address: addressOf(key.curve, params.addressFormat, key.publicKey, fieldOf(index, 'addressFormat', field)),
          publicKey: accountPublicKeyHex(key.curve, key.publicKey),
          sealedPrivateKey: await sealKeyMaterial(kek, { organizationId, rowId: walletAccountId, kind: WALLET_ACCOUNT_KEY }, key.privateKey),
        });
      } finally {
        key.privateKey.fill(0);
      }
    }
    return derived;
  } catch (error) {
    if (error instanceof ParameterRejected) throw invalidField(error.field, error.description);
    throw error;
  } finally {
    deriver.wipe();
  }
}
