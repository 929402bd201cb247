// get_private_key and list_private_keys: the organization's private keys, as create_private_keys wrote
// them. No answer holds key material: a key's sealed material is never read here.
import { z } from 'zod';
import { MAX_PRIVATE_KEYS } from '../activities/handlers/privateKeys/newPrivateKeys.ts';
import { notFound } from '../errors.ts';
import { findPrivateKeyFor, listPrivateKeysFor, type StoredPrivateKey } from '../store/privateKeys.ts';
import { timestamp, uuid } from '../wire/describedFields.ts';
import { granted, type QueryHandler } from './query.ts';

function renderPrivateKey(key: StoredPrivateKey) {
  return {
    privateKeyId: key.privateKeyId,
    publicKey: key.publicKey,
    privateKeyName: key.name,
    curve: key.curve,
    addresses: key.addresses.map(({ format, address }) => ({ format, address })),
    privateKeyTags: [] as string[],
    createdAt: key.createdAt.toISOString(),
    updatedAt: key.updatedAt.toISOString(),
    exported: key.exported,
    imported: key.imported,
  };
}

const privateKeySchema = z
  .strictObject({
    privateKeyId: uuid('Identifier of the key'),
    publicKey: z.string().describe('Public key in hex: for CURVE_SECP256K1 the compressed SEC1 point (66 digits), for CURVE_ED25519 the 32-byte key (64 digits)'),
    privateKeyName: z.string().describe('Name of the key, unique in the organization'),
    curve: z.string().describe('CURVE_SECP256K1 or CURVE_ED25519'),
    addresses: z
      .array(z.strictObject({ format: z.string().describe('Address format, e.g. ADDRESS_FORMAT_ETHEREUM'), address: z.string().describe('The address in that format') }))
      .describe('The key’s addresses, in the order their formats were asked for'),
    privateKeyTags: z.array(z.string()).describe('Always empty: Signet has no private key tags'),
    createdAt: timestamp('Creation time'),
    updatedAt: timestamp('Time of the last update'),
    exported: z.boolean().describe('Whether the key was exported: always false, Signet has no export'),
    imported: z.boolean().describe('Whether the key was imported: always false, Signet has no import'),
  })
  .meta({ id: 'PrivateKey', description: 'A single key (no derivation) and its addresses; no answer holds the private key' });

const organizationId = z.uuid({ message: 'must be the UUID of your organization' }).describe('Unique identifier of your organization');

export const getPrivateKey: QueryHandler = {
  path: 'get_private_key',
  description: 'One private key of the organization: its public key, addresses, name and times (never the private key).',
  example: { organizationId: '9f5e7c2a-3b1d-4e6f-8a9b-0c1d2e3f4a5b', privateKeyId: '3c9d1e7a-6b2f-4d8e-a1c5-9f0b2e4d6a8c' },
  request: z.strictObject({
    organizationId,
    privateKeyId: z.uuid({ message: 'must be a private key id (a UUID)' }).describe("The key to read, as create_private_keys returned it; another organization's is a 404"),
  }),
  answer: z.strictObject({ privateKey: privateKeySchema }),
  async run(context, query: { organizationId: string; privateKeyId: string }) {
    const { privateKey } = granted(context, await findPrivateKeyFor(context.db, context.principal.credential, query.organizationId, query.privateKeyId));
    if (!privateKey) throw notFound('PRIVATE_KEY_NOT_FOUND', `no private key ${query.privateKeyId} in organization ${query.organizationId}`);
    return { privateKey: renderPrivateKey(privateKey) };
  },
};

export const listPrivateKeys: QueryHandler = {
  path: 'list_private_keys',
  description: `The organization's private keys, newest first (at most ${MAX_PRIVATE_KEYS}, the most an organization may have).`,
  example: { organizationId: '9f5e7c2a-3b1d-4e6f-8a9b-0c1d2e3f4a5b' },
  request: z.strictObject({ organizationId }),
  answer: z.strictObject({ privateKeys: z.array(privateKeySchema).describe("The organization's private keys, newest first") }),
  async run(context, query: { organizationId: string }) {
    const { privateKeys } = granted(context, await listPrivateKeysFor(context.db, context.principal.credential, query.organizationId, MAX_PRIVATE_KEYS));
    return { privateKeys: privateKeys!.map(renderPrivateKey) };
  },
};
