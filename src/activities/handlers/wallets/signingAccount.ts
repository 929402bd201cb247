// What the activities that sign with a wallet account share: the fields naming the account and how a
// payload is read, the {r, s, v} answer, and the account's key for one operation. The account is found
// by its address (a read before planning); its wallet's sealed mnemonic is opened with the KEK it was
// sealed under, the key derived by the account's path and curve, used, and the seed and key zeroed.
import { z } from 'zod';
import { invalidField, notFound } from '../../../errors.ts';
import { withOpenedKeyMaterial } from '../../../keys/custody/sealKeyMaterial.ts';
import { deriveAccountKey, DERIVATION_CURVES, type DerivationCurve } from '../../../keys/derivation.ts';
import { mnemonicToSeed } from '../../../keys/mnemonic.ts';
import { ParameterRejected } from '../../../keys/parameterRejected.ts';
import { HASH_FUNCTIONS, PAYLOAD_ENCODINGS } from '../../../keys/rawPayload.ts';
import { findSigningAccount } from '../../../store/wallets.ts';
import type { ExecutionContext } from '../../handler.ts';
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

/**
 * `use` applied to the key of the organization's account at `signWith`, zeroed after (once `use`'s
 * promise settles, when it returns one). No such account is a 404 (WALLET_ACCOUNT_NOT_FOUND, as the
 * ecosystem answers NOT_FOUND; `field` names the parameter that gave the address); a ParameterRejected
 * `use` throws is a 400 naming its field.
 */
export async function withAccountKey<T>(
  context: ExecutionContext,
  signWith: string,
  use: (curve: DerivationCurve, privateKey: Uint8Array) => T | Promise<T>,
  field = 'parameters.signWith',
): Promise<T> {
  const { organizationId } = context;
  const account = await findSigningAccount(context.db, organizationId, signWith);
  if (account === undefined) {
    const what = field === 'parameters.signWith' ? 'could not find any resource to sign with: ' : '';
    throw notFound('WALLET_ACCOUNT_NOT_FOUND', `${what}${field} ${signWith} is no wallet account of the organization`);
  }
  const curve = account.curve;
  if (!isCurve(curve)) throw new Error(`wallet account ${account.address} has curve ${curve}, which Signet does not derive`);
  return withOpenedKeyMaterial(context.kek, { organizationId, rowId: account.walletId, kind: WALLET_MNEMONIC }, account.sealedMnemonic, async (words) => {
    const seed = mnemonicToSeed(words.toString('utf8'));
    try {
      const key = deriveAccountKey(curve, seed, account.path);
      try {
        return await use(curve, key.privateKey);
      } finally {
        key.privateKey.fill(0);
      }
    } catch (error) {
      if (error instanceof ParameterRejected) throw invalidField(error.field, error.description);
      throw error;
    } finally {
      seed.fill(0);
    }
  });
}
