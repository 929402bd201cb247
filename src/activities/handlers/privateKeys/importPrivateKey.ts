// The import_private_key activity (ACTIVITY_TYPE_IMPORT_PRIVATE_KEY): a private key encrypted by
// @turnkey/crypto's encryptPrivateKeyToBundle to the user's latest init_import_private_key bundle is
// opened with that pending import's target key (once, within its lifetime), checked for its curve,
// sealed as create_private_keys seals a key, and stored with the addresses asked for, marked imported.
import { z } from 'zod';
import { invalidArgument, invalidField } from '../../../errors.ts';
import { checkAddressFormat } from '../../../keys/addresses.ts';
import { DERIVATION_CURVES, type DerivationCurve } from '../../../keys/derivation.ts';
import { ParameterRejected } from '../../../keys/parameterRejected.ts';
import { privateKeyFromBytes } from '../../../keys/privateKey.ts';
import { check, lock, write } from '../../../store/effects.ts';
import type { ActivityHandler } from '../../handler.ts';
import { objectExpected, trimmedName } from '../../wire/parameters.ts';
import { encryptedBundleField, withImportedBytes } from '../wallets/keyBundles.ts';
import { MAX_PRIVATE_KEY_NAME_LENGTH, MAX_PRIVATE_KEYS, privateKeyAddress, sealedPrivateKey } from './newPrivateKeys.ts';

const isCurve = (value: unknown): value is DerivationCurve => (DERIVATION_CURVES as readonly unknown[]).includes(value);
/** Address formats one key may have: each supported format at most once. */
const MAX_ADDRESS_FORMATS = 8;

const parameters = z
  .strictObject(
    {
      userId: z.uuid({ message: 'must be a user id (a UUID)' }).describe('The user of the init_import_private_key whose import bundle the key was encrypted to'),
      privateKeyName: trimmedName(MAX_PRIVATE_KEY_NAME_LENGTH).describe(
        `Name of the key, unique in the organization, 1 to ${MAX_PRIVATE_KEY_NAME_LENGTH} characters once spaces around it are trimmed`,
      ),
      encryptedBundle: encryptedBundleField('The private key'),
      curve: z
        .string({ error: 'must be a string' })
        .refine(isCurve, { error: `must be one of ${DERIVATION_CURVES.join(', ')}` })
        .describe('CURVE_SECP256K1 or CURVE_ED25519: the curve of the key in the bundle'),
      addressFormats: z
        .array(z.string({ error: 'must be a string' }), { error: 'must be an array of address formats' })
        .max(MAX_ADDRESS_FORMATS, `may hold at most ${MAX_ADDRESS_FORMATS} address formats`)
        .describe('The addresses to make of the key, each format once, as create_private_keys takes them'),
    },
    { error: objectExpected() },
  )
  .superRefine((params, ctx) => {
    const seen = new Set<string>();
    params.addressFormats.forEach((format, position) => {
      try {
        checkAddressFormat(params.curve as DerivationCurve, format);
      } catch (error) {
        if (!(error instanceof ParameterRejected)) throw error;
        ctx.addIssue({ code: 'custom', path: ['addressFormats', position], message: error.description });
        return;
      }
      if (seen.has(format)) ctx.addIssue({ code: 'custom', path: ['addressFormats', position], message: `${format} is listed twice` });
      seen.add(format);
    });
  });

const resultSchema = z.strictObject({
  privateKeyId: z.uuid().describe('Identifier of the imported key'),
  addresses: z.array(privateKeyAddress()).describe('Its address in each format asked for, in order'),
});
type ImportPrivateKeyResult = z.infer<typeof resultSchema>;

export const importPrivateKey: ActivityHandler<typeof parameters, ImportPrivateKeyResult> = {
  path: 'import_private_key',
  activityType: 'ACTIVITY_TYPE_IMPORT_PRIVATE_KEY',
  resource: 'PRIVATE_KEY',
  action: 'IMPORT',
  reasons: [],
  summary:
    '`{userId, privateKeyName, encryptedBundle, curve, addressFormats}`: a private key encrypted to init_import_private_key\'s bundle; ' +
    'result `importPrivateKeyResult {privateKeyId, addresses}` ([Wallets](wallets.md#export-and-import))',
  description:
    "Imports a private key: encryptedBundle (encryptPrivateKeyToBundle's output) is opened with the target key of the user's init_import_private_key, once and within its lifetime; " +
    "the key is sealed as create_private_keys' are. A bundle that does not open, or holds no 32-byte key of the curve, is a 400 naming encryptedBundle; " +
    `a name the organization already has, or a key past the ${MAX_PRIVATE_KEYS} an organization may have, a 400 too.`,
  intentKey: 'importPrivateKeyIntent',
  resultKey: 'importPrivateKeyResult',
  parameters,
  resultSchema,
  example: {
    userId: '3c9e5a7b-1d2f-4e6a-8b0c-9d7e5f3a1b2c',
    privateKeyName: 'Imported key',
    encryptedBundle: JSON.stringify({
      encappedPublic:
        '041d299b440132a19833c8d5768d5a638637dc4fb8bf5bff209cf4fe99259e4550705026f73e7400b9bd21fc4c12bd009fcc09ff825065738bdd69c2799e831a4c',
      ciphertext: '8f1c0a2b3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9',
    }),
    curve: 'CURVE_SECP256K1',
    addressFormats: ['ADDRESS_FORMAT_ETHEREUM'],
  },

  async execute(context, intent) {
    const { organizationId, now } = context;
    const curve = intent.curve as DerivationCurve;
    const { value: key, effects: used } = await withImportedBytes(context, { userId: intent.userId, kind: 'private_key', encryptedBundle: intent.encryptedBundle }, async (bytes) => {
      const opened = privateKeyFromBytes(curve, bytes, 'parameters.encryptedBundle');
      try {
        return await sealedPrivateKey(context.kek, organizationId, { name: intent.privateKeyName, addressFormats: intent.addressFormats, imported: true }, opened);
      } finally {
        opened.privateKey.fill(0);
      }
    });
    return {
      result: { privateKeyId: key.privateKeyId, addresses: key.addresses },
      effects: [
        ...used,
        lock('organization', organizationId),
        check('privateKeysRoomFor', [organizationId, 1, MAX_PRIVATE_KEYS], invalidArgument(`the organization may have at most ${MAX_PRIVATE_KEYS} private keys`)),
        check(
          'privateKeyNameFree',
          [organizationId, key.name],
          invalidField('parameters.privateKeyName', `the organization already has a private key named ${JSON.stringify(key.name)}; private key names are unique in an organization`),
        ),
        write('insertPrivateKeys', organizationId, [key], now),
      ],
    };
  },
};
