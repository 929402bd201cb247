// The keywords a condition reads of the key an activity uses or names: `wallet {id, imported,
// exported, label}` and `wallet_account {address}` for a wallet account, `private_key {id, tags,
// imported, exported, label}` for a private key (label: the wallet's or key's name; tags: always
// empty, as Signet stores no private key tags). Read fresh by id in the view step (lifecycle/view.ts),
// so `exported` is the row's now, never the signer lookup's cached copy; a wallet or key that is gone
// binds nothing, so a condition reading it fails closed (and execution refuses the activity).
import type { SigningBindings, PolicyStruct } from '../../../policy/index.ts';
import { findPrivateKey, type StoredPrivateKey } from '../../../store/privateKeys.ts';
import { findWallet, type StoredWallet } from '../../../store/wallets.ts';
import type { ActivityView, PrepareContext } from '../../handler.ts';
import type { SignerKey } from './signingAccount.ts';

type KeyBindings = Pick<SigningBindings, 'wallet' | 'wallet_account' | 'private_key'>;

export const walletBinding = (wallet: StoredWallet): PolicyStruct => ({ id: wallet.walletId, imported: wallet.imported, exported: wallet.exported, label: wallet.name });

export const privateKeyBinding = (key: StoredPrivateKey): PolicyStruct => ({
  id: key.privateKeyId,
  tags: [],
  imported: key.imported,
  exported: key.exported,
  label: key.name,
});

/** A private key's Ethereum address, the `from` of a transaction it signs (the first, as its addresses are listed). */
const ethereumAddressOf = (key: StoredPrivateKey): string | undefined => key.addresses.find((address) => address.format === 'ADDRESS_FORMAT_ETHEREUM')?.address;

/**
 * The keywords of the key that signs, and the address a transaction it signs is from (a wallet
 * account's address; a private key's Ethereum address): one read by id of the wallet or key.
 */
export async function signerBindings(context: PrepareContext, signer: SignerKey): Promise<{ bindings: KeyBindings; from: string | undefined }> {
  if (signer.kind === 'private_key') {
    const key = await findPrivateKey(context.db, context.organizationId, signer.privateKeyId);
    return key ? { bindings: { private_key: privateKeyBinding(key) }, from: ethereumAddressOf(key) } : { bindings: {}, from: undefined };
  }
  const wallet = await findWallet(context.db, context.organizationId, signer.walletId);
  return { bindings: { ...(wallet ? { wallet: walletBinding(wallet) } : {}), wallet_account: { address: signer.address } }, from: signer.address };
}

/** The view of an activity that names one wallet (export_wallet, update_wallet): `wallet`. */
export async function walletView(context: PrepareContext, walletId: string): Promise<ActivityView> {
  const wallet = await findWallet(context.db, context.organizationId, walletId);
  return wallet ? { signing: { wallet: walletBinding(wallet) } } : {};
}

/** The view of an activity that names one private key (export_private_key): `private_key`. */
export async function privateKeyView(context: PrepareContext, privateKeyId: string): Promise<ActivityView> {
  const key = await findPrivateKey(context.db, context.organizationId, privateKeyId);
  return key ? { signing: { private_key: privateKeyBinding(key) } } : {};
}
