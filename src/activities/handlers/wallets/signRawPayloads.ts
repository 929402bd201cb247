// The sign_raw_payloads activity (ACTIVITY_TYPE_SIGN_RAW_PAYLOADS): up to MAX_PAYLOADS payloads signed
// with one wallet account, all read with the same encoding and hash function, the signatures in the
// order of the payloads. The account's key is derived once for them all and zeroed after; one payload
// the account cannot sign refuses the whole activity, naming it (`parameters.payloads[2]`), at
// submission (the prepare step checks every payload against the account's curve before the decision).
import { z } from 'zod';
import { bytesToSign, MAX_PAYLOAD_CHARACTERS, signRawPayload as sign, type RawSignature } from '../../../keys/rawPayload.ts';
import { ParameterRejected } from '../../../keys/parameterRejected.ts';
import type { ActivityHandler } from '../../handler.ts';
import { objectExpected, text } from '../../wire/parameters.ts';
import { encodingField, hashFunctionField, signatureSchema, signerAt, signWithField, withAccountKey, type SignerKey, signerStillThere } from './signingAccount.ts';
import { payloadView } from './signingView.ts';

/** Payloads one activity signs. */
export const MAX_PAYLOADS = 100;

const parameters = z.strictObject(
  {
    signWith: signWithField(),
    payloads: z
      .array(text(MAX_PAYLOAD_CHARACTERS), { error: 'must be an array of payloads (strings)' })
      .min(1, 'must hold at least one payload')
      .max(MAX_PAYLOADS, `may hold at most ${MAX_PAYLOADS} payloads`)
      .describe(`The payloads, 1 to ${MAX_PAYLOADS}, each read as \`encoding\` says`),
    encoding: encodingField(),
    hashFunction: hashFunctionField(),
  },
  { error: objectExpected() },
);

const resultSchema = z.strictObject({
  signatures: z.array(signatureSchema()).describe('One signature per payload, in the order of `payloads`'),
});
type SignRawPayloadsResult = { signatures: RawSignature[] };

export const signRawPayloads: ActivityHandler<typeof parameters, SignRawPayloadsResult, SignerKey> = {
  path: 'sign_raw_payloads',
  activityType: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOADS',
  // As the ecosystem's policy engine classes signing, whether with a private key or a wallet account.
  resource: 'PRIVATE_KEY',
  action: 'SIGN',
  reasons: ['WALLET_ACCOUNT_NOT_FOUND'],
  summary: `\`{signWith, payloads, encoding, hashFunction}\`: up to ${MAX_PAYLOADS} payloads signed with one wallet account or private key; result \`signRawPayloadsResult {signatures}\` ([Wallets](wallets.md#signing-a-payload))`,
  description:
    `Signs up to ${MAX_PAYLOADS} payloads, read with the same encoding and hash function, with the key of a wallet account of the organization named by its address, or of a private key named by its id or address. ` +
    'A payload the account cannot sign is a 400 naming it, and nothing is signed.',
  intentKey: 'signRawPayloadsIntent',
  resultKey: 'signRawPayloadsResult',
  parameters,
  resultSchema: resultSchema as z.ZodType<SignRawPayloadsResult>,
  example: {
    signWith: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
    payloads: ['0x68656c6c6f', '0x776f726c64'],
    encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
    hashFunction: 'HASH_FUNCTION_KECCAK256',
  },

  prepare(context, intent) {
    const { encoding, hashFunction } = intent;
    return signerAt(context, intent.signWith, (curve) => intent.payloads.forEach((payload, index) => eachPayload(index, () => bytesToSign({ curve, payload, encoding, hashFunction }))));
  },

  view(context, intent, account) {
    return payloadView(context, intent.payloads, intent.encoding, account);
  },

  async execute(context, intent, account) {
    const { encoding, hashFunction } = intent;
    const signatures = await withAccountKey(context, account, (curve, privateKey) =>
      intent.payloads.map((payload, index) => eachPayload(index, () => sign({ curve, privateKey, payload, encoding, hashFunction }))),
    );
    return { result: { signatures }, effects: [signerStillThere(context, account)] };
  },
};

/** `run`'s value; a refusal of `parameters.payload` it throws names the payload at `index` instead. */
function eachPayload<T>(index: number, run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof ParameterRejected && error.field === 'parameters.payload') throw new ParameterRejected(`parameters.payloads[${index}]`, error.description);
    throw error;
  }
}
