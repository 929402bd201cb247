// The create_private_keys activity (ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2): single keys (no mnemonic,
// no derivation), each drawn from the CSPRNG with its addresses in the formats asked for, its private
// key sealed for the store (newPrivateKeys.ts) before it reaches an effect; the result, the stored
// activity and the logs hold only the keys' ids and addresses. The keys are written with the activity
// in one statement, after the checks, under the organization's lock, that their names are free and the
// organization has room for them.
import { z } from 'zod';
import { invalidArgument, invalidField } from '../../../errors.ts';
import { check, lock, write } from '../../../store/effects.ts';
import type { ActivityHandler } from '../../handler.ts';
import { objectExpected } from '../../wire/parameters.ts';
import { MAX_PRIVATE_KEYS, newPrivateKeys, privateKeyList, privateKeyAddress } from './newPrivateKeys.ts';

const parameters = z.strictObject({ privateKeys: privateKeyList() }, { error: objectExpected() });


const resultSchema = z.strictObject({
  privateKeys: z
    .array(
      z.strictObject({
        privateKeyId: z.uuid().describe('Identifier of the new key: get_private_key takes it, and signWith'),
        addresses: z.array(privateKeyAddress()).describe('One address per format asked for, in their order'),
      }),
    )
    .describe('The new keys, in the order of `privateKeys`'),
});
type CreatePrivateKeysResult = z.infer<typeof resultSchema>;

export const createPrivateKeys: ActivityHandler<typeof parameters, CreatePrivateKeysResult> = {
  path: 'create_private_keys',
  activityType: 'ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2',
  resource: 'PRIVATE_KEY',
  action: 'CREATE',
  reasons: [],
  summary:
    `\`{privateKeys: [{privateKeyName, curve, privateKeyTags, addressFormats}]}\`: new private keys (at most ${MAX_PRIVATE_KEYS} per organization); ` +
    'result `createPrivateKeysResultV2 {privateKeys: [{privateKeyId, addresses}]}` ([Wallets](wallets.md#private-keys))',
  description:
    'Creates private keys: each a new key of CURVE_SECP256K1 or CURVE_ED25519, kept sealed under the deployment\'s key-encryption key and never answered, with its addresses in the formats asked for. ' +
    `A format that does not fit the curve is a 400 naming it, as is a name the organization already has, a private key tag (Signet has none) and a key past the ${MAX_PRIVATE_KEYS} an organization may have.`,
  intentKey: 'createPrivateKeysIntentV2',
  resultKey: 'createPrivateKeysResultV2',
  parameters,
  resultSchema,
  example: {
    privateKeys: [
      { privateKeyName: 'Hot key', curve: 'CURVE_SECP256K1', privateKeyTags: [], addressFormats: ['ADDRESS_FORMAT_ETHEREUM'] },
      { privateKeyName: 'Solana key', curve: 'CURVE_ED25519', privateKeyTags: [], addressFormats: ['ADDRESS_FORMAT_SOLANA'] },
    ],
  },

  async execute(context, intent) {
    const { organizationId, now } = context;
    const keys = await newPrivateKeys(context.kek, organizationId, intent.privateKeys);
    return {
      result: { privateKeys: keys.map((key) => ({ privateKeyId: key.privateKeyId, addresses: key.addresses })) },
      effects: [
        // Concurrent creations count one after the other, so the bound is exact.
        lock('organization', organizationId),
        check(
          'privateKeysRoomFor',
          [organizationId, keys.length, MAX_PRIVATE_KEYS],
          invalidArgument(`the organization may have at most ${MAX_PRIVATE_KEYS} private keys; these ${keys.length} would pass the bound`),
        ),
        ...keys.map((key, index) =>
          check(
            'privateKeyNameFree',
            [organizationId, key.name],
            invalidField(
              `parameters.privateKeys[${index}].privateKeyName`,
              `the organization already has a private key named ${JSON.stringify(key.name)}; private key names are unique in an organization`,
            ),
          ),
        ),
        write('insertPrivateKeys', organizationId, keys, now),
      ],
    };
  },
};
