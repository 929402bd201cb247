// The init_import_wallet activity (ACTIVITY_TYPE_INIT_IMPORT_WALLET): a fresh P-256 target key for one
// import by `userId`, its public half in an import bundle signed by the service's bundle signer (what
// @turnkey/crypto's encryptWalletToBundle checks and encrypts to), its private half sealed for the
// store with the pending import (keyBundles.ts), good for one import_wallet within the hour. A new
// init replaces the user's earlier pending wallet import.
import { z } from 'zod';
import type { ActivityHandler } from '../../handler.ts';
import { objectExpected } from '../../wire/parameters.ts';
import { IMPORT_BUNDLE_LIFETIME_MS, planImportTarget } from './keyBundles.ts';

const parameters = z.strictObject(
  {
    userId: z.uuid({ message: 'must be a user id (a UUID)' }).describe('The user who imports: the bundle names this user, and import_wallet must name the same'),
  },
  { error: objectExpected() },
);

const resultSchema = z.strictObject({
  importBundle: z
    .string()
    .describe(
      'JSON {version, data, dataSignature, enclaveQuorumPublic}: data names the target key (targetPublic), the organization and the user, signed by enclaveSignerPublicKey; encryptWalletToBundle encrypts to it',
    ),
});
type InitImportWalletResult = z.infer<typeof resultSchema>;

export const initImportWallet: ActivityHandler<typeof parameters, InitImportWalletResult> = {
  path: 'init_import_wallet',
  activityType: 'ACTIVITY_TYPE_INIT_IMPORT_WALLET',
  resource: 'WALLET',
  action: 'IMPORT',
  reasons: ['USER_NOT_FOUND'],
  summary: '`{userId}`: an import bundle to encrypt a mnemonic to; result `initImportWalletResult {importBundle}` ([Wallets](wallets.md#export-and-import))',
  description:
    `Makes a target key for one import_wallet by the user, good for ${IMPORT_BUNDLE_LIFETIME_MS / 60_000} minutes, and answers it in an import bundle signed by the service's bundle signer ` +
    "(enclaveSignerPublicKey of /.well-known/signet-keys.json), as @turnkey/crypto's encryptWalletToBundle checks it. A user the organization does not have is a 404.",
  intentKey: 'initImportWalletIntent',
  resultKey: 'initImportWalletResult',
  parameters,
  resultSchema,
  example: { userId: '3c9e5a7b-1d2f-4e6a-8b0c-9d7e5f3a1b2c' },

  async execute(context, intent) {
    const { importBundle, effects } = await planImportTarget(context, intent.userId, 'wallet');
    return { result: { importBundle }, effects };
  },
};
