// What the export and import activities share, for wallets and private keys alike: the fields
// (targetPublicKey, encryptedBundle), the bundle signer (the service's enclave-signer key), and the
// pending import: its target key made and sealed by an init_import activity, and opened, used once
// and while unexpired, by the import that follows. The bundle formats are keys/bundles.ts'.
import { randomUUID } from 'node:crypto';
import { invalidField, notFound } from '../../../errors.ts';
import { BundleDoesNotOpen, importBundle, MAX_ENCRYPTED_BUNDLE_CHARACTERS, newImportTarget, openImportBundle, parseTargetPublicKey, type BundleSigner } from '../../../keys/bundles.ts';
import { openKeyMaterial, sealKeyMaterial } from '../../../keys/custody/sealKeyMaterial.ts';
import { ParameterRejected } from '../../../keys/parameterRejected.ts';
import { check, take, write, type Effect } from '../../../store/effects.ts';
import { findPendingImports, type PendingImportKind } from '../../../store/pendingImports.ts';
import type { ExecutionContext } from '../../handler.ts';
import { SERVICE_KEYS } from '../../lifecycle/serviceKeys.ts';
import { text } from '../../wire/parameters.ts';

/** How long an import bundle may be used: an import after it is refused, and a new init_import is needed. */
export const IMPORT_BUNDLE_LIFETIME_MS = 60 * 60 * 1000;
/** The kind a pending import's sealed target key is bound to. */
export const IMPORT_TARGET_KEY = 'import_target_key';

/** A target key for the examples of the OpenAPI document (a point of the curve; its private half is nobody's). */
export const EXAMPLE_TARGET_PUBLIC_KEY =
  '041d299b440132a19833c8d5768d5a638637dc4fb8bf5bff209cf4fe99259e4550705026f73e7400b9bd21fc4c12bd009fcc09ff825065738bdd69c2799e831a4c';

/** The client's target key of an export: an uncompressed P-256 public key, hex. */
export const targetPublicKeyField = () =>
  text(130, (value) => {
    try {
      parseTargetPublicKey(value, 'targetPublicKey');
      return undefined;
    } catch (error) {
      if (error instanceof ParameterRejected) return error.description;
      throw error;
    }
  }).describe('The client\'s P-256 public key, uncompressed, hex (130 digits starting with 04): the export bundle is encrypted to it');

/** What encryptWalletToBundle or encryptPrivateKeyToBundle returned. */
export const encryptedBundleField = (what: string) =>
  text(MAX_ENCRYPTED_BUNDLE_CHARACTERS).describe(
    `${what} encrypted to the importBundle of the user's latest init_import activity: JSON {encappedPublic, ciphertext}, as @turnkey/crypto writes it`,
  );

/** The key export and import bundles are signed with, enclaveSignerPublicKey of /.well-known/signet-keys.json. */
export async function bundleSigner(context: ExecutionContext): Promise<BundleSigner> {
  const key = await context.keys.get(SERVICE_KEYS.enclaveSigner.purpose);
  return { privateKey: key.privateKey, publicKey: key.publicKeyHex };
}

/** A ParameterRejected of keys/ as the 400 naming its field; anything else as it was. */
export function asFieldRefusal(error: unknown): unknown {
  return error instanceof ParameterRejected ? invalidField(error.field, error.description) : error;
}

/**
 * An init_import activity's plan: a fresh target key for `userId` (a user of the organization, checked
 * in the statement), its private half sealed for the store, the signed import bundle naming its
 * public half, and the row that keeps it, replacing the user's earlier pending import of this kind.
 */
export async function planImportTarget(context: ExecutionContext, userId: string, kind: PendingImportKind): Promise<{ importBundle: string; effects: Effect[] }> {
  const { organizationId, now } = context;
  const pendingImportId = randomUUID();
  const target = newImportTarget();
  let sealedTargetKey: string;
  try {
    sealedTargetKey = await sealKeyMaterial(context.kek, { organizationId, rowId: pendingImportId, kind: IMPORT_TARGET_KEY }, target.privateKey);
  } finally {
    target.privateKey.fill(0);
  }
  const bundle = importBundle(await bundleSigner(context), { organizationId, userId, targetPublic: target.publicKey });
  return {
    importBundle: bundle,
    effects: [
      check('userActive', [organizationId, userId], notFound('USER_NOT_FOUND', `parameters.userId: no user ${userId} in organization ${organizationId} (or it was removed)`)),
      write('replacePendingImport', {
        pendingImportId,
        organizationId,
        userId,
        kind,
        targetPublicKey: target.publicKey,
        sealedTargetKey,
        createdAt: now,
        expiresAt: new Date(now.getTime() + IMPORT_BUNDLE_LIFETIME_MS),
      }),
    ],
  };
}

/**
 * An import's `encryptedBundle` opened with the target key of `userId`'s pending import of this kind
 * (the newest that opens it), and the effect that uses that pending import once: `use` gets the
 * plaintext, which is zeroed when it returns. No pending import, an expired one, or a bundle no
 * pending import opens is a 400 naming `field`.
 */
export async function withImportedBytes<T>(
  context: ExecutionContext,
  request: { userId: string; kind: PendingImportKind; encryptedBundle: string },
  use: (plaintext: Buffer) => T | Promise<T>,
  field = 'parameters.encryptedBundle',
): Promise<{ value: T; effects: Effect[] }> {
  const { organizationId, now } = context;
  const { userId, kind } = request;
  const pending = await findPendingImports(context.db, organizationId, userId, kind);
  const init = kind === 'wallet' ? 'init_import_wallet' : 'init_import_private_key';
  if (pending.length === 0) {
    throw invalidField(field, `user ${userId} has no pending import: run ${init} first, encrypt to its importBundle, and send the result once`);
  }
  const live = pending.filter((row) => row.expiresAt > now);
  if (live.length === 0) {
    throw invalidField(field, `the import bundle of user ${userId} expired (an import bundle is good for ${IMPORT_BUNDLE_LIFETIME_MS / 60_000} minutes): run ${init} again`);
  }
  for (const row of live) {
    const targetKey = await openKeyMaterial(context.kek, { organizationId, rowId: row.pendingImportId, kind: IMPORT_TARGET_KEY }, row.sealedTargetKey);
    let plaintext: Buffer | undefined;
    try {
      plaintext = await openImportBundle(request.encryptedBundle, targetKey, field);
    } catch (error) {
      // Malformed is malformed whatever the key; one that does not open may open with an older live key.
      if (!(error instanceof BundleDoesNotOpen)) throw asFieldRefusal(error);
    } finally {
      targetKey.fill(0);
    }
    if (plaintext === undefined) continue;
    try {
      const value = await use(plaintext);
      return {
        value,
        effects: [
          take('pendingImport', [organizationId, row.pendingImportId, now], () =>
            invalidField(field, `the import bundle was used already or expired meanwhile: run ${init} again`),
          ),
        ],
      };
    } catch (error) {
      throw asFieldRefusal(error);
    } finally {
      plaintext.fill(0);
    }
  }
  throw invalidField(field, `does not open with the import bundle of user ${userId}: encrypt to the importBundle of the latest ${init}, for this user and organization, and send the result unchanged`);
}
