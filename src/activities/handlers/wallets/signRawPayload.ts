// The sign_raw_payload activity (ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2): one payload signed with the key of
// an account of the organization's wallets, named by its address (`signWith`). Before it is decided,
// the account is found and its curve checked against the encoding, hash function and payload (prepare),
// so a request it could never sign is refused at submission, not at an approval. The account's wallet's
// sealed mnemonic is opened for this one operation, with the KEK it was sealed under; the account's
// key is derived by its path and curve, signs, and the seed and the key are zeroed. An activity that
// waits for approvals signs when the approval that allows it executes it, once.
import { z } from 'zod';
import { bytesToSign, MAX_PAYLOAD_CHARACTERS, signRawPayload as sign, type RawSignature } from '../../../keys/rawPayload.ts';
import type { ActivityHandler } from '../../handler.ts';
import { objectExpected, text } from '../../wire/parameters.ts';
import { encodingField, hashFunctionField, signatureSchema, signerAt, signWithField, withAccountKey, type SignerKey, signerStillThere } from './signingAccount.ts';
import { payloadView } from './signingView.ts';

const parameters = z.strictObject(
  {
    signWith: signWithField(),
    payload: text(MAX_PAYLOAD_CHARACTERS).describe(
      'The payload: hex digits (0x optional), UTF-8 text, EIP-712 typed data JSON or an EIP-7702 authorization JSON, as `encoding` says',
    ),
    encoding: encodingField(),
    hashFunction: hashFunctionField(),
  },
  { error: objectExpected() },
);

const resultSchema = signatureSchema();

export const signRawPayload: ActivityHandler<typeof parameters, RawSignature, SignerKey> = {
  path: 'sign_raw_payload',
  activityType: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
  // As the ecosystem's policy engine classes signing, whether with a private key or a wallet account.
  resource: 'PRIVATE_KEY',
  action: 'SIGN',
  reasons: ['WALLET_ACCOUNT_NOT_FOUND'],
  summary: '`{signWith, payload, encoding, hashFunction}`: one payload signed with a wallet account or a private key; result `signRawPayloadResult {r, s, v}` ([Wallets](wallets.md#signing-a-payload))',
  description:
    "Signs one payload with the key of a wallet account of the organization, named by its address, or of a private key, named by its id or address; the sealed key material is opened for this operation only. " +
    'A signWith the organization has no account or key at is a 404; a payload, encoding or hash function the account cannot sign is a 400 naming the field.',
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

  prepare(context, intent) {
    const { payload, encoding, hashFunction } = intent;
    return signerAt(context, intent.signWith, (curve) => bytesToSign({ curve, payload, encoding, hashFunction }));
  },

  view(context, intent, account) {
    return payloadView(context, [intent.payload], intent.encoding, account);
  },

  async execute(context, intent, account) {
    const { payload, encoding, hashFunction } = intent;
    const result = await withAccountKey(context, account, (curve, privateKey) => sign({ curve, privateKey, payload, encoding, hashFunction }));
    return { result, effects: [signerStillThere(context, account)] };
  },
};
