// The export_wallet activity (ACTIVITY_TYPE_EXPORT_WALLET): a wallet's mnemonic, opened for this one
// operation with the KEK it was sealed under, HPKE-encrypted to the client's targetPublicKey and
// signed by the service's bundle signer, in the format @turnkey/crypto's decryptExportBundle opens
// (keys/bundles.ts); the plaintext is zeroed after. The wallet is marked exported in the activity's
// statement. Only the bundle leaves, and only the holder of the target key's private half reads it.
import { z } from 'zod';
import { invalidField, notFound } from '../../../errors.ts';
import { sealExportBundle } from '../../../keys/bundles.ts';
import { withOpenedKeyMaterial } from '../../../keys/custody/sealKeyMaterial.ts';
import { write } from '../../../store/effects.ts';
import { findSealedMnemonic } from '../../../store/wallets.ts';
import type { ActivityHandler } from '../../handler.ts';
import { objectExpected } from '../../wire/parameters.ts';
import { WALLET_MNEMONIC } from './createWallet.ts';
import { walletView } from './keyBindings.ts';
import { asFieldRefusal, bundleSigner, EXAMPLE_TARGET_PUBLIC_KEY, targetPublicKeyField } from './keyBundles.ts';

/** The languages the ecosystem names; a wallet's mnemonic is English, and only English is exported. */
const MNEMONIC_LANGUAGES = [
  'MNEMONIC_LANGUAGE_ENGLISH',
  'MNEMONIC_LANGUAGE_SIMPLIFIED_CHINESE',
  'MNEMONIC_LANGUAGE_TRADITIONAL_CHINESE',
  'MNEMONIC_LANGUAGE_CZECH',
  'MNEMONIC_LANGUAGE_FRENCH',
  'MNEMONIC_LANGUAGE_ITALIAN',
  'MNEMONIC_LANGUAGE_JAPANESE',
  'MNEMONIC_LANGUAGE_KOREAN',
  'MNEMONIC_LANGUAGE_SPANISH',
] as const;

const parameters = z.strictObject(
  {
    walletId: z.uuid({ message: 'must be a wallet id (a UUID)' }).describe("The wallet to export; another organization's is a 404"),
    targetPublicKey: targetPublicKeyField(),
    language: z
      .enum(MNEMONIC_LANGUAGES, { error: `must be one of ${MNEMONIC_LANGUAGES.join(', ')}` })
      .describe('MNEMONIC_LANGUAGE_ENGLISH (the default): the words of another list would be another wallet, so other languages are refused')
      .optional(),
  },
  { error: objectExpected() },
);

const resultSchema = z.strictObject({
  walletId: z.uuid().describe('The wallet exported'),
  exportBundle: z
    .string()
    .describe('JSON {version, data, dataSignature, enclaveQuorumPublic}: the mnemonic encrypted to targetPublicKey, signed by enclaveSignerPublicKey; decryptExportBundle opens it'),
});
type ExportWalletResult = z.infer<typeof resultSchema>;

export const exportWallet: ActivityHandler<typeof parameters, ExportWalletResult> = {
  path: 'export_wallet',
  activityType: 'ACTIVITY_TYPE_EXPORT_WALLET',
  resource: 'WALLET',
  action: 'EXPORT',
  reasons: ['WALLET_NOT_FOUND'],
  summary: "`{walletId, targetPublicKey, language?}`: the wallet's mnemonic encrypted to the client's key; result `exportWalletResult {walletId, exportBundle}` ([Wallets](wallets.md#export-and-import))",
  description:
    "Exports a wallet's mnemonic, encrypted (HPKE) to targetPublicKey and signed by the service's bundle signer (enclaveSignerPublicKey of /.well-known/signet-keys.json), " +
    "as @turnkey/crypto's decryptExportBundle opens it; the wallet is marked exported. A targetPublicKey that is not an uncompressed P-256 key is a 400 naming it; a wallet the organization does not have is a 404.",
  intentKey: 'exportWalletIntent',
  resultKey: 'exportWalletResult',
  parameters,
  resultSchema,
  example: {
    walletId: '5b0c2f4e-8d7a-4c3b-9e1f-2a6d8c4b7e90',
    targetPublicKey: EXAMPLE_TARGET_PUBLIC_KEY,
  },

  // Policies read the wallet exported (`wallet`: whether it was exported before, imported, its name).
  view(context, intent) {
    return walletView(context, intent.walletId);
  },

  async execute(context, intent) {
    const { organizationId, now } = context;
    const { walletId } = intent;
    if (intent.language !== undefined && intent.language !== 'MNEMONIC_LANGUAGE_ENGLISH') {
      throw invalidField('parameters.language', "must be MNEMONIC_LANGUAGE_ENGLISH: a wallet's mnemonic is English, and the same entropy in other words is another wallet");
    }
    const sealed = await findSealedMnemonic(context.db, organizationId, walletId);
    if (sealed === undefined) throw notFound('WALLET_NOT_FOUND', `no wallet ${walletId} in organization ${organizationId}`);
    const signer = await bundleSigner(context);
    let exportBundle: string;
    try {
      exportBundle = await withOpenedKeyMaterial(context.kek, { organizationId, rowId: walletId, kind: WALLET_MNEMONIC }, sealed, (words) =>
        sealExportBundle(signer, { organizationId, targetPublicKey: intent.targetPublicKey }, words),
      );
    } catch (error) {
      throw asFieldRefusal(error);
    }
    return { result: { walletId, exportBundle }, effects: [write('markWalletExported', organizationId, walletId, now)] };
  },
};
