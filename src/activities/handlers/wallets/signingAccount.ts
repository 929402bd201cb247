// What the signing activities share: the fields naming the key and how a payload is read, the
// {r, s, v} answer, the key found and what it can sign checked (their prepare step, before the
// activity is decided), and the key for one operation (their execute). `signWith` is a wallet
// account's address, a private key's id or a private key's address, found in one read
// (store/signers.ts). The account's or private key's sealed key is opened with the KEK it was sealed
// under, used, and zeroed (an account stored before keys were sealed per account has its key derived
// from its wallet's mnemonic by its path and curve, the seed zeroed too).
import { z } from 'zod';
import { invalidField, notFound } from '../../../errors.ts';
import { withOpenedKeyMaterial } from '../../../keys/custody/sealKeyMaterial.ts';
import { deriveAccountKey, DERIVATION_CURVES, type DerivationCurve } from '../../../keys/derivation.ts';
import { mnemonicToSeed } from '../../../keys/mnemonic.ts';
import { ParameterRejected } from '../../../keys/parameterRejected.ts';
import { HASH_FUNCTIONS, PAYLOAD_ENCODINGS } from '../../../keys/rawPayload.ts';
import { check, type Effect } from '../../../store/effects.ts';
import { findSigner, type Signer } from '../../../store/signers.ts';
import type { ExecutionContext, PrepareContext } from '../../handler.ts';
import { text } from '../../wire/parameters.ts';
import { PRIVATE_KEY_MATERIAL } from '../privateKeys/newPrivateKeys.ts';
import { WALLET_MNEMONIC } from './createWallet.ts';
import { WALLET_ACCOUNT_KEY } from './walletAccounts.ts';

/** An address is far shorter; the bound keeps a wrong value out of the statement. */
const MAX_SIGN_WITH_CHARACTERS = 128;

export const signWithField = () =>
  text(MAX_SIGN_WITH_CHARACTERS, (value) => (value === '' ? 'must not be empty' : undefined)).describe(
    "The address of one of the organization's wallet accounts, the id of one of its private keys, or a private key's address (an Ethereum address matched without case, any other exactly)",
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

/** The key that signs, found by signWith: the prepared value of the signing activities. */
export type SignerKey = Signer & { curve: DerivationCurve };

/**
 * The organization's key at `signWith` (a wallet account's address, a private key's id or address;
 * with `walletAccountOnly`, a wallet account's address only), and `check` (what the intent asks of the
 * key's curve, without the key) passed. No such key is a 404 (WALLET_ACCOUNT_NOT_FOUND, as the
 * ecosystem answers NOT_FOUND; `field` names the parameter that gave it); a ParameterRejected `check`
 * throws is a 400 naming its field.
 */
export async function signerAt(
  context: PrepareContext,
  signWith: string,
  check: (curve: DerivationCurve) => void,
  options: { field?: string; walletAccountOnly?: boolean } = {},
): Promise<SignerKey> {
  const field = options.field ?? 'parameters.signWith';
  const found = await findSigner(context.db, context.organizationId, signWith);
  const signer = options.walletAccountOnly && found?.kind !== 'wallet_account' ? undefined : found;
  if (signer === undefined) {
    throw notFound(
      'WALLET_ACCOUNT_NOT_FOUND',
      options.walletAccountOnly
        ? `${field} ${signWith} is no wallet account of the organization`
        : `could not find any resource to sign with: ${field} ${signWith} is no wallet account address, private key id or private key address of the organization`,
    );
  }
  const { curve } = signer;
  if (!isCurve(curve)) throw new Error(`a key of the organization has curve ${curve}, which Signet does not sign with`);
  refusingParameters(() => check(curve));
  return { ...signer, curve };
}

/**
 * `use` applied to the key `signer` names (as signerAt found it), zeroed once `use` returns or its
 * promise settles; a ParameterRejected `use` throws is a 400 naming its field.
 */
export async function withAccountKey<T>(
  context: ExecutionContext,
  signer: SignerKey,
  use: (curve: DerivationCurve, privateKey: Uint8Array) => T | Promise<T>,
): Promise<T> {
  const { organizationId } = context;
  const { curve } = signer;
  const sign = async (privateKey: Uint8Array) => {
    try {
      return await use(curve, privateKey);
    } catch (error) {
      throw refusal(error);
    }
  };
  if (signer.kind === 'private_key') {
    return withOpenedKeyMaterial(context.kek, { organizationId, rowId: signer.privateKeyId, kind: PRIVATE_KEY_MATERIAL }, signer.sealedPrivateKey, sign);
  }
  if (signer.sealedPrivateKey !== undefined) {
    return withOpenedKeyMaterial(context.kek, { organizationId, rowId: signer.walletAccountId, kind: WALLET_ACCOUNT_KEY }, signer.sealedPrivateKey, sign);
  }
  // An account stored before account keys were sealed: its key derived from the wallet's mnemonic.
  return withOpenedKeyMaterial(context.kek, { organizationId, rowId: signer.walletId, kind: WALLET_MNEMONIC }, signer.sealedMnemonic, async (words) => {
    const seed = mnemonicToSeed(words.toString('utf8'));
    try {
      const key = refusingParameters(() => deriveAccountKey(curve, seed, signer.path));
      try {
        return await sign(key.privateKey);
      } finally {
        key.privateKey.fill(0);
      }
    } finally {
      seed.fill(0);
    }
  });
}

/** `run`'s value; a ParameterRejected it throws becomes the 400 naming its field. */
function refusingParameters<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    throw refusal(error);
  }
}

/** A ParameterRejected as the 400 naming its field; any other error as it is. */
const refusal = (error: unknown) => (error instanceof ParameterRejected ? invalidField(error.field, error.description) : error);

/**
 * The effect a signing activity carries: its key's row is still there when the activity is written
 * (the key may have been found a few seconds earlier); else nothing is written nor answered but a 404.
 */
export function signerStillThere(context: ExecutionContext, signer: SignerKey): Effect {
  const { organizationId } = context;
  const [rowId, what] = signer.kind === 'private_key' ? [signer.privateKeyId, 'private key'] : [signer.walletAccountId, 'wallet account'];
  return check('signerStillThere', [organizationId, signer.kind, rowId], notFound('WALLET_ACCOUNT_NOT_FOUND', `could not find any resource to sign with: the ${what} at parameters.signWith was deleted while this request was made, and no signature is answered`));
}
