// What the activities that sign with a wallet account share: the fields naming the account and how a
// payload is read, the {r, s, v} answer, the account found by its address and what it can sign checked
// (their prepare step, before the activity is decided), and the account's key for one operation (their
// execute): its wallet's sealed mnemonic is opened with the KEK it was sealed under, the key derived by
// the account's path and curve, used, and the seed and key zeroed.
import { z } from 'zod';
import { invalidField, notFound } from '../../../errors.ts';
import { withOpenedKeyMaterial } from '../../../keys/custody/sealKeyMaterial.ts';
import { deriveAccountKey, DERIVATION_CURVES, type DerivationCurve } from '../../../keys/derivation.ts';
import { mnemonicToSeed } from '../../../keys/mnemonic.ts';
import { ParameterRejected } from '../../../keys/parameterRejected.ts';
import { HASH_FUNCTIONS, PAYLOAD_ENCODINGS } from '../../../keys/rawPayload.ts';
import { findSigningAccount, type SigningAccount } from '../../../store/wallets.ts';
import type { ExecutionContext, PrepareContext } from '../../handler.ts';
import { text } from '../../wire/parameters.ts';
import { WALLET_MNEMONIC } from './createWallet.ts';

/** An address is far shorter; the bound keeps a wrong value out of the statement. */
const MAX_SIGN_WITH_CHARACTERS = 128;

export const signWithField = () =>
  text(MAX_SIGN_WITH_CHARACTERS, (value) => (value === '' ? 'must not be empty' : undefined)).describe(
    "The address of one of the organization's wallet accounts (an Ethereum address matched without case, any other exactly)",
  );

export const encodingField = () => z.enum(PAYLOAD_ENCODINGS, { error: `must be one of ${PAYLOAD_ENCODINGS.join(', ')}` }).describe('How the payload is read');

export const hashFunctionField = () =>
  z
    .enum(HASH_FUNCTIONS, { error: `must be one of ${HASH_FUNCTIONS.join(', ')}` })
    .describe('secp256k1: HASH_FUNCTION_KECCAK256, HASH_FUNCTION_SHA256 or HASH_FUNCTION_NO_OP (a 32-byte digest); ed25519: HASH_FUNCTION_NOT_APPLICABLE');

/** One signature as the wire has it. */
export const signatureSchema = () =>
  z.strictObject({
    r: z.string().describe('secp256k1: r, 64 hex digits; ed25519: the first 32 bytes of the signature'),
    s: z.string().describe('secp256k1: s, 64 hex digits, low (at most n/2); ed25519: the last 32 bytes of the signature'),
    v: z.string().describe('secp256k1: the recovery id, "00" or "01"; ed25519: "00"'),
  });

const isCurve = (value: string): value is DerivationCurve => (DERIVATION_CURVES as readonly string[]).includes(value);

/** A wallet account that signs, found by its address: the prepared value of the signing activities. */
export type SignerAccount = SigningAccount & { curve: DerivationCurve };

/**
 * The organization's account at `signWith`, and `check` (what the intent asks of the account's
 * curve, without its key) passed. No such account is a 404 (WALLET_ACCOUNT_NOT_FOUND, as the ecosystem
 * answers NOT_FOUND); a ParameterRejected `check` throws is a 400 naming its field.
 */
export async function signerAt(context: PrepareContext, signWith: string, check: (curve: DerivationCurve) => void): Promise<SignerAccount> {
  const account = await findSigningAccount(context.db, context.organizationId, signWith);
  if (account === undefined) {
    throw notFound('WALLET_ACCOUNT_NOT_FOUND', `could not find any resource to sign with: parameters.signWith ${signWith} is no wallet account of the organization`);
  }
  const { curve } = account;
  if (!isCurve(curve)) throw new Error(`wallet account ${account.address} has curve ${curve}, which Signet does not derive`);
  refusingParameters(() => check(curve));
  return { ...account, curve };
}

/** `use` applied to the key of `account` (as signerAt found it), zeroed after; a ParameterRejected `use` throws is a 400 naming its field. */
export async function withAccountKey<T>(context: ExecutionContext, account: SignerAccount, use: (curve: DerivationCurve, privateKey: Uint8Array) => T): Promise<T> {
  const { curve } = account;
  return withOpenedKeyMaterial(context.kek, { organizationId: context.organizationId, rowId: account.walletId, kind: WALLET_MNEMONIC }, account.sealedMnemonic, (words) =>
    refusingParameters(() => {
      const seed = mnemonicToSeed(words.toString('utf8'));
      try {
        const key = deriveAccountKey(curve, seed, account.path);
        try {
          return use(curve, key.privateKey);
        } finally {
          key.privateKey.fill(0);
        }
      } finally {
        seed.fill(0);
      }
    }),
  );
}

/** `run`'s value; a ParameterRejected it throws becomes the 400 naming its field. */
function refusingParameters<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof ParameterRejected) throw invalidField(error.field, error.description);
    throw error;
  }
}
