// The export_wallet_account activity (ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT): one account's private key,
// derived from its wallet's mnemonic for this one operation (signingAccount.ts' withAccountKey), sealed
// to the client's targetPublicKey and signed by the service's bundle signer, in the format
// decryptExportBundle opens (keys/bundles.ts): the raw 32 bytes (a secp256k1 scalar, an ed25519
// seed, which decryptExportBundle's keyFormat SOLANA turns into Solana's 64-byte form). The key and
// the seed are zeroed after. The wallet is not marked exported: its mnemonic did not leave.
import { z } from 'zod';
import { sealExportBundle } from '../../../keys/bundles.ts';
import type { ActivityHandler } from '../../handler.ts';
import { objectExpected } from '../../wire/parameters.ts';
import { signerBindings } from './keyBindings.ts';
import { bundleSigner, EXAMPLE_TARGET_PUBLIC_KEY, targetPublicKeyField } from './keyBundles.ts';
import { signerAt, signWithField, withAccountKey, type SignerKey, signerStillThere } from './signingAccount.ts';

const parameters = z.strictObject(
  {
    address: signWithField().describe("The address of the account to export (an Ethereum address matched without case, any other exactly); another organization's is a 404"),
    targetPublicKey: targetPublicKeyField(),
  },
  { error: objectExpected() },
);

const resultSchema = z.strictObject({
  address: z.string().describe('The address of the account exported, as the request named it'),
  exportBundle: z
    .string()
    .describe("JSON {version, data, dataSignature, enclaveQuorumPublic}: the account's private key encrypted to targetPublicKey, signed by enclaveSignerPublicKey; decryptExportBundle opens it"),
});
type ExportWalletAccountResult = z.infer<typeof resultSchema>;

export const exportWalletAccount: ActivityHandler<typeof parameters, ExportWalletAccountResult, SignerKey> = {
  path: 'export_wallet_account',
  activityType: 'ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT',
  resource: 'WALLET',
  action: 'EXPORT',
  reasons: ['WALLET_ACCOUNT_NOT_FOUND'],
  summary:
    "`{address, targetPublicKey}`: a wallet account's private key encrypted to the client's key; result `exportWalletAccountResult {address, exportBundle}` ([Wallets](wallets.md#export-and-import))",
  description:
    "Exports the private key of a wallet account, derived from its wallet's sealed mnemonic for this operation only, encrypted (HPKE) to targetPublicKey and signed by the service's bundle signer " +
    "(enclaveSignerPublicKey of /.well-known/signet-keys.json), as @turnkey/crypto's decryptExportBundle opens it. A targetPublicKey that is not an uncompressed P-256 key is a 400 naming it; an address the organization has no account at is a 404.",
  intentKey: 'exportWalletAccountIntent',
  resultKey: 'exportWalletAccountResult',
  parameters,
  resultSchema,
  example: { address: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94', targetPublicKey: EXAMPLE_TARGET_PUBLIC_KEY },

  prepare(context, intent) {
    return signerAt(context, intent.address, () => {}, { field: 'parameters.address', walletAccountOnly: true });
  },

  // Policies read the account's wallet (`wallet`) and address (`wallet_account`).
  async view(context, _intent, account) {
    return { signing: (await signerBindings(context, account)).bindings };
  },

  async execute(context, intent, account) {
    const { organizationId } = context;
    const signer = await bundleSigner(context);
    const exportBundle = await withAccountKey(context, account, (_curve, privateKey) =>
      sealExportBundle(signer, { organizationId, targetPublicKey: intent.targetPublicKey }, privateKey),
    );
    return { result: { address: intent.address, exportBundle }, effects: [signerStillThere(context, account)] };
  },
};
