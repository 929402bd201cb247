// The sign_raw_payload activity (ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2): one payload signed with the key of
// an account of the organization's wallets, named by its address (`signWith`). The account's wallet's
// sealed mnemonic is opened for this one operation, with the KEK it was sealed under; the account's
// key is derived by its path and curve, signs, and the seed and the key are zeroed. An activity that
// waits for approvals signs when the approval that allows it executes it, once.
import { z } from 'zod';
import { invalidField } from '../../../errors.ts';
import { withOpenedKeyMaterial } from '../../../keys/custody/sealKeyMaterial.ts';
import { deriveAccountKey, DERIVATION_CURVES, type DerivationCurve } from '../../../keys/derivation.ts';
import { mnemonicToSeed } from '../../../keys/mnemonic.ts';
import { ParameterRejected } from '../../../keys/parameterRejected.ts';
import { HASH_FUNCTIONS, MAX_PAYLOAD_CHARACTERS, PAYLOAD_ENCODINGS, signRawPayload as sign, type RawSignature } from '../../../keys/rawPayload.ts';
import { findSigningAccount } from '../../../store/wallets.ts';
import type { ActivityHandler } from '../../handler.ts';
import { objectExpected, text } from '../../wire/parameters.ts';
import { WALLET_MNEMONIC } from './createWallet.ts';

/** An address is far shorter; the bound keeps a wrong value out of the statement. */
const MAX_SIGN_WITH_CHARACTERS = 128;

const parameters = z.strictObject(
  {
    signWith: text(MAX_SIGN_WITH_CHARACTERS, (value) => (value === '' ? 'must not be empty' : undefined)).describe(
      "The address of one of the organization's wallet accounts (an Ethereum address matched without case, any other exactly)",
    ),
    payload: text(MAX_PAYLOAD_CHARACTERS).describe(
      'The payload: hex digits (0x optional), UTF-8 text, EIP-712 typed data JSON or an EIP-7702 authorization JSON, as `encoding` says',
    ),
    encoding: z.enum(PAYLOAD_ENCODINGS, { error: `must be one of ${PAYLOAD_ENCODINGS.join(', ')}` }).describe('How `payload` is read'),
    hashFunction: z
      .enum(HASH_FUNCTIONS, { error: `must be one of ${HASH_FUNCTIONS.join(', ')}` })
      .describe('secp256k1: HASH_FUNCTION_KECCAK256, HASH_FUNCTION_SHA256 or HASH_FUNCTION_NO_OP (a 32-byte digest); ed25519: HASH_FUNCTION_NOT_APPLICABLE'),
  },
  { error: objectExpected() },
);

const resultSchema = z.strictObject({
  r: z.string().describe('secp256k1: r, 64 hex digits; ed25519: the first 32 bytes of the signature'),
  s: z.string().describe('secp256k1: s, 64 hex digits, low (at most n/2); ed25519: the last 32 bytes of the signature'),
  v: z.string().describe('secp256k1: the recovery id, "00" or "01"; ed25519: "00"'),
});

const isCurve = (value: string): value is DerivationCurve => (DERIVATION_CURVES as readonly string[]).includes(value);

export const signRawPayload: ActivityHandler<typeof parameters, RawSignature> = {
  path: 'sign_raw_payload',
  activityType: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
  // As the ecosystem's policy engine classes signing, whether with a private key or a wallet account.
  resource: 'PRIVATE_KEY',
  action: 'SIGN',
  reasons: [],
  summary: '`{signWith, payload, encoding, hashFunction}`: one payload signed with a wallet account; result `signRawPayloadResult {r, s, v}` ([Wallets](wallets.md#signing-a-payload))',
  description:
    "Signs one payload with the key of a wallet account of the organization, named by its address; the wallet's sealed mnemonic is opened for this operation only. " +
    'A signWith the organization has no account at, or a payload, encoding or hash function the account cannot sign, is a 400 naming the field.',
  intentKey: 'signRawPayloadIntentV2',
  resultKey: 'signRawPayloadResult',
  parameters,
  resultSchema,
  example: {
    signWith: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
    payload: '0x68656c6c6f',
    encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
    hashFunction: 'HASH_FUNCTION_KECCAK256',
  },

  async execute(context, intent) {
    const { organizationId } = context;
    const account = await findSigningAccount(context.db, organizationId, intent.signWith);
    if (account === undefined) throw invalidField('parameters.signWith', `the organization has no wallet account at ${intent.signWith}`);
    const curve = account.curve;
    if (!isCurve(curve)) throw new Error(`wallet account ${account.address} has curve ${curve}, which Signet does not derive`);
    const result = await withOpenedKeyMaterial(context.kek, { organizationId, rowId: account.walletId, kind: WALLET_MNEMONIC }, account.sealedMnemonic, (words) => {
      const seed = mnemonicToSeed(words.toString('utf8'));
      try {
        const key = deriveAccountKey(curve, seed, account.path);
        try {
          return sign({ curve, privateKey: key.privateKey, payload: intent.payload, encoding: intent.encoding, hashFunction: intent.hashFunction });
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
    return { result, effects: [] };
  },
};
