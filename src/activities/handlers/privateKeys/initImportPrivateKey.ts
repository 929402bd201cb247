// The init_import_private_key activity (ACTIVITY_TYPE_INIT_IMPORT_PRIVATE_KEY): a target key for one
// import_private_key by the user, answered in an import bundle signed by the service's bundle signer,
// as @turnkey/crypto's encryptPrivateKeyToBundle checks it (the pending import: wallets/keyBundles.ts).
import { z } from 'zod';
import type { ActivityHandler } from '../../handler.ts';
import { objectExpected } from '../../wire/parameters.ts';
import { IMPORT_BUNDLE_LIFETIME_MS, planImportTarget } from '../wallets/keyBundles.ts';

const parameters = z.strictObject(
  { userId: z.uuid({ message: 'must be a user id (a UUID)' }).describe('The user who will import the key: the import bundle is for their import_private_key only') },
  { error: objectExpected() },
);

const resultSchema = z.strictObject({
  importBundle: z.string().describe("The target key of the import, signed by the service's bundle signer: encryptPrivateKeyToBundle's importBundle"),
});
type InitImportPrivateKeyResult = z.infer<typeof resultSchema>;

export const initImportPrivateKey: ActivityHandler<typeof parameters, InitImportPrivateKeyResult> = {
  path: 'init_import_private_key',
  activityType: 'ACTIVITY_TYPE_INIT_IMPORT_PRIVATE_KEY',
  resource: 'PRIVATE_KEY',
  action: 'IMPORT',
  reasons: ['USER_NOT_FOUND'],
  summary: '`{userId}`: an import bundle to encrypt a private key to; result `initImportPrivateKeyResult {importBundle}` ([Wallets](wallets.md#export-and-import))',
  description:
    `Makes a target key for one import_private_key by the user, good for ${IMPORT_BUNDLE_LIFETIME_MS / 60_000} minutes, and answers it in an import bundle signed by the service's bundle signer ` +
    "(enclaveSignerPublicKey of /.well-known/signet-keys.json), as @turnkey/crypto's encryptPrivateKeyToBundle checks it. A user the organization does not have is a 404.",
  intentKey: 'initImportPrivateKeyIntent',
  resultKey: 'initImportPrivateKeyResult',
  parameters,
  resultSchema,
  example: { userId: '3c9e5a7b-1d2f-4e6a-8b0c-9d7e5f3a1b2c' },

  async execute(context, intent) {
    const { importBundle, effects } = await planImportTarget(context, intent.userId, 'private_key');
    return { result: { importBundle }, effects };
  },
};
