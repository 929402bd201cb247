// The export_private_key activity (ACTIVITY_TYPE_EXPORT_PRIVATE_KEY): a private key of the organization
// sealed (HPKE) to the client's targetPublicKey and signed by the service's bundle signer, in the
// bundle @turnkey/crypto's decryptExportBundle opens; the key is marked exported (so that
// delete_private_keys needs no deleteWithoutExport for it). The key is opened for this one operation.
import { z } from 'zod';
import { notFound } from '../../../errors.ts';
import { sealExportBundle } from '../../../keys/bundles.ts';
import { withOpenedKeyMaterial } from '../../../keys/custody/sealKeyMaterial.ts';
import { write } from '../../../store/effects.ts';
import { findSealedPrivateKey } from '../../../store/privateKeys.ts';
import type { ActivityHandler } from '../../handler.ts';
import { objectExpected } from '../../wire/parameters.ts';
import { privateKeyView } from '../wallets/keyBindings.ts';
import { asFieldRefusal, bundleSigner, EXAMPLE_TARGET_PUBLIC_KEY, targetPublicKeyField } from '../wallets/keyBundles.ts';
import { PRIVATE_KEY_MATERIAL } from './newPrivateKeys.ts';

const parameters = z.strictObject(
  {
    privateKeyId: z.uuid({ message: 'must be a private key id (a UUID)' }).describe("The private key to export; another organization's is a 404"),
    targetPublicKey: targetPublicKeyField(),
  },
  { error: objectExpected() },
);

const resultSchema = z.strictObject({
  privateKeyId: z.uuid().describe('The private key exported'),
  exportBundle: z.string().describe("The private key encrypted to targetPublicKey and signed by the service's bundle signer"),
});
type ExportPrivateKeyResult = z.infer<typeof resultSchema>;

export const exportPrivateKey: ActivityHandler<typeof parameters, ExportPrivateKeyResult> = {
  path: 'export_private_key',
  activityType: 'ACTIVITY_TYPE_EXPORT_PRIVATE_KEY',
  resource: 'PRIVATE_KEY',
  action: 'EXPORT',
  reasons: ['PRIVATE_KEY_NOT_FOUND'],
  summary: '`{privateKeyId, targetPublicKey}`: the private key encrypted to the client\'s key; result `exportPrivateKeyResult {privateKeyId, exportBundle}` ([Wallets](wallets.md#export-and-import))',
  description:
    "Exports a private key, encrypted (HPKE) to targetPublicKey and signed by the service's bundle signer (enclaveSignerPublicKey of /.well-known/signet-keys.json), " +
    "as @turnkey/crypto's decryptExportBundle opens it; the key is marked exported. A targetPublicKey that is not an uncompressed P-256 key is a 400 naming it; a private key the organization does not have is a 404.",
  intentKey: 'exportPrivateKeyIntent',
  resultKey: 'exportPrivateKeyResult',
  parameters,
  resultSchema,
  example: { privateKeyId: '6a1d3f5b-7c9e-4b2d-8f0a-1c3e5a7b9d2f', targetPublicKey: EXAMPLE_TARGET_PUBLIC_KEY },

  // Policies read the key exported (`private_key`: whether it was exported before, imported, its name).
  view(context, intent) {
    return privateKeyView(context, intent.privateKeyId);
  },

  async execute(context, intent) {
    const { organizationId, now } = context;
    const { privateKeyId } = intent;
    const stored = await findSealedPrivateKey(context.db, organizationId, privateKeyId);
    if (stored === undefined) throw notFound('PRIVATE_KEY_NOT_FOUND', `parameters.privateKeyId: no private key ${privateKeyId} in organization ${organizationId}`);
    const signer = await bundleSigner(context);
    let exportBundle: string;
    try {
      exportBundle = await withOpenedKeyMaterial(context.kek, { organizationId, rowId: privateKeyId, kind: PRIVATE_KEY_MATERIAL }, stored.sealedPrivateKey, (key) =>
        sealExportBundle(signer, { organizationId, targetPublicKey: intent.targetPublicKey }, key),
      );
    } catch (error) {
      throw asFieldRefusal(error);
    }
    return { result: { privateKeyId, exportBundle }, effects: [write('markPrivateKeyExported', organizationId, privateKeyId, now)] };
  },
};
