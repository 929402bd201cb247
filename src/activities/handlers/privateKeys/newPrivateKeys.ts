// New private keys as create_private_keys makes them: their parameters ({privateKeyName, curve,
// privateKeyTags, addressFormats}) checked so that a wrong curve or format is a 400 naming its field
// (`parameters.privateKeys[0].addressFormats[1]`), each key drawn from the CSPRNG, its addresses made
// from its public key, and its private key sealed for the store (keys/custody: AES-256-GCM under a
// data key the deployment's KEK wraps, bound to the organization, the key's id and the kind
// 'private_key') and zeroed before it reaches an effect.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { accountPublicKeyHex, addressOf, checkAddressFormat } from '../../../keys/addresses.ts';
import type { KeyEncryptionKey } from '../../../keys/custody/keyEncryptionKey.ts';
import { sealKeyMaterial } from '../../../keys/custody/sealKeyMaterial.ts';
import { DERIVATION_CURVES, type AccountKey, type DerivationCurve } from '../../../keys/derivation.ts';
import { ParameterRejected } from '../../../keys/parameterRejected.ts';
import { generatePrivateKey } from '../../../keys/privateKey.ts';
import type { NewPrivateKey } from '../../../store/privateKeys.ts';
import { trimmedName, unsupported } from '../../wire/parameters.ts';

/** The kind a private key's sealed material is bound to. */
export const PRIVATE_KEY_MATERIAL = 'private_key';
/** Private keys an organization may have (and so one request may create). */
export const MAX_PRIVATE_KEYS = 100;
export const MAX_PRIVATE_KEY_NAME_LENGTH = 256;
/** One address of a key in an answer. */
export const privateKeyAddress = () =>
  z.strictObject({
    format: z.string().describe('The address format, e.g. ADDRESS_FORMAT_ETHEREUM'),
    address: z.string().describe('The key’s address in that format'),
  });

/** Address formats one key may have: each supported format at most once. */
const MAX_ADDRESS_FORMATS = 8;

const isCurve = (value: unknown): value is DerivationCurve => (DERIVATION_CURVES as readonly unknown[]).includes(value);

const privateKeyParameters = z.strictObject({
  privateKeyName: trimmedName(MAX_PRIVATE_KEY_NAME_LENGTH).describe(
    `Name of the key, unique in the organization, 1 to ${MAX_PRIVATE_KEY_NAME_LENGTH} characters once spaces around it are trimmed`,
  ),
  curve: z
    .string({ error: 'must be a string' })
    .refine(isCurve, { error: `must be one of ${DERIVATION_CURVES.join(', ')}` })
    .describe('CURVE_SECP256K1 or CURVE_ED25519'),
  privateKeyTags: unsupported('private key tags'),
  addressFormats: z
    .array(z.string({ error: 'must be a string' }), { error: 'must be an array of address formats' })
    .max(MAX_ADDRESS_FORMATS, `may hold at most ${MAX_ADDRESS_FORMATS} address formats`)
    .describe(
      'The addresses to make of the key, each format once: CURVE_SECP256K1: ADDRESS_FORMAT_ETHEREUM, ADDRESS_FORMAT_COMPRESSED, ADDRESS_FORMAT_UNCOMPRESSED; ' +
        'CURVE_ED25519: ADDRESS_FORMAT_SOLANA, ADDRESS_FORMAT_COMPRESSED; [] for none',
    ),
});
export type PrivateKeyParameters = z.output<typeof privateKeyParameters>;

/** The keys of a request: 1 to MAX_PRIVATE_KEYS, names distinct, each format fitting its curve and given once. */
export const privateKeyList = () =>
  z
    .array(privateKeyParameters, { error: 'must be an array of private keys' })
    .min(1, 'must hold at least one private key')
    .max(MAX_PRIVATE_KEYS, `may hold at most ${MAX_PRIVATE_KEYS} private keys`)
    .superRefine(
      (keys, ctx) => {
        if (keys.length > MAX_PRIVATE_KEYS) return; // refused as a whole
        const names = new Map<string, number>();
        keys.forEach((params, index) => {
          if (typeof params !== 'object' || params === null) return; // its own issue
          if (typeof params.privateKeyName === 'string') {
            const name = params.privateKeyName.trim();
            const first = names.get(name);
            if (first === undefined) names.set(name, index);
            else ctx.addIssue({ code: 'custom', path: [index, 'privateKeyName'], message: `privateKeys[${first}] has the same name; names are unique in an organization` });
          }
          if (!isCurve(params.curve) || !Array.isArray(params.addressFormats)) return;
          const formats = new Set<string>();
          params.addressFormats.forEach((format, position) => {
            if (typeof format !== 'string') return;
            try {
              checkAddressFormat(params.curve as DerivationCurve, format);
            } catch (error) {
              if (!(error instanceof ParameterRejected)) throw error;
              ctx.addIssue({ code: 'custom', path: [index, 'addressFormats', position], message: error.description });
              return;
            }
            if (formats.has(format)) ctx.addIssue({ code: 'custom', path: [index, 'addressFormats', position], message: `${format} is listed twice` });
            formats.add(format);
          });
        });
      },
      // Every key is checked even when another field is wrong, so one answer names every problem.
      { when: (payload) => Array.isArray(payload.value) },
    )
    .describe(`The keys to create, 1 to ${MAX_PRIVATE_KEYS}`);

/**
 * The keys `keys` ask for, owned by `organizationId`: each drawn, its addresses made, its private key
 * sealed for that organization and the key's id, then zeroed.
 */
export async function newPrivateKeys(kek: KeyEncryptionKey, organizationId: string, keys: readonly PrivateKeyParameters[]): Promise<NewPrivateKey[]> {
  const made: NewPrivateKey[] = [];
  for (const params of keys) {
    const key = generatePrivateKey(params.curve as DerivationCurve);
    try {
      made.push(await sealedPrivateKey(kek, organizationId, { name: params.privateKeyName, addressFormats: params.addressFormats }, key));
    } finally {
      key.privateKey.fill(0);
    }
  }
  return made;
}

/**
 * A key (made here or imported) as the store keeps it: a new id, its addresses in `addressFormats`
 * (checked against its curve by the caller's schema), its private key sealed for `organizationId` and
 * that id. The caller zeroes `key.privateKey`.
 */
export async function sealedPrivateKey(
  kek: KeyEncryptionKey,
  organizationId: string,
  named: { name: string; addressFormats: readonly string[]; imported?: boolean },
  key: AccountKey,
): Promise<NewPrivateKey> {
  const privateKeyId = randomUUID();
  const { curve } = key;
  return {
    privateKeyId,
    name: named.name,
    curve,
    publicKey: accountPublicKeyHex(curve, key.publicKey),
    addresses: named.addressFormats.map((format) => ({ format, address: addressOf(curve, format, key.publicKey) })),
    sealedPrivateKey: await sealKeyMaterial(kek, { organizationId, rowId: privateKeyId, kind: PRIVATE_KEY_MATERIAL }, key.privateKey),
    ...(named.imported ? { imported: true } : {}),
  };
}
