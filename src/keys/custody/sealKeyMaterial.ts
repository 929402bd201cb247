// Wallet key material (a seed, a private key) sealed for the store: AES-256-GCM under a random 32-byte
// data key, the data key wrapped by a KeyEncryptionKey; the associated data binds the value to its
// organization, its row and its kind, so a sealed value copied to another row (or organization, or
// kind) does not open. The data key and the intermediate plaintexts are zeroed after use; the opened
// plaintext is the caller's to zero (withOpenedKeyMaterial does it).
//
// Text form: `v1.<kekId>.<wrapped data key>.<nonce ‖ ciphertext ‖ tag>`, both base64url.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { KEK_ID, KeyMaterialUnreadable, type KeyEncryptionKey } from './keyEncryptionKey.ts';

export interface SealContext {
  organizationId: string;
  /** The id of the row that holds the sealed value (a wallet, a private key). */
  rowId: string;
  /** What the material is, e.g. `wallet_seed`, `private_key`. */
  kind: string;
}

/** Key material is small: a 64-byte seed, a mnemonic's text, a private key. */
export const MAX_KEY_MATERIAL_BYTES = 1024;
const MAX_CONTEXT_CHARACTERS = 256;
const NONCE = 12;
const TAG = 16;
const VERSION = 'v1';
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** Seals `plaintext` (not modified; the caller zeroes it) for the row `context` names. */
export async function sealKeyMaterial(kek: KeyEncryptionKey, context: SealContext, plaintext: Uint8Array): Promise<string> {
  if (plaintext.length === 0 || plaintext.length > MAX_KEY_MATERIAL_BYTES) throw new RangeError(`key material has 1 to ${MAX_KEY_MATERIAL_BYTES} bytes`);
  if (!KEK_ID.test(kek.id)) throw new RangeError('a key-encryption key id is letters, digits, ":", "_" and "-", at most 64');
  const dataKey = randomBytes(32);
  try {
    const { kekId, wrapped } = await kek.wrap(dataKey);
    if (kekId !== kek.id) throw new Error(`key-encryption key ${kek.id} answered for ${kekId}`);
    const nonce = randomBytes(NONCE);
    const cipher = createCipheriv('aes-256-gcm', dataKey, nonce);
    cipher.setAAD(associatedData(context, kekId));
    const sealed = Buffer.concat([nonce, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
    return [VERSION, kekId, Buffer.from(wrapped).toString('base64url'), sealed.toString('base64url')].join('.');
  } finally {
    dataKey.fill(0);
  }
}

/**
 * The plaintext of a sealed value of this row; the caller zeroes it after use. Throws
 * KeyMaterialUnreadable, its message naming the row (its kind, id and organization: never material),
 * so that the log line of the operation that failed says which key to look at.
 */
export async function openKeyMaterial(kek: KeyEncryptionKey, context: SealContext, sealed: string): Promise<Buffer> {
  try {
    return await open(kek, context, sealed);
  } catch (error) {
    if (!(error instanceof KeyMaterialUnreadable)) throw error;
    throw new KeyMaterialUnreadable(error.problem, `${error.message} (the ${context.kind} of row ${context.rowId}, organization ${context.organizationId})`);
  }
}

async function open(kek: KeyEncryptionKey, context: SealContext, sealed: string): Promise<Buffer> {
  const parts = typeof sealed === 'string' ? sealed.split('.') : [];
  const [version, kekId, wrapped, box] = parts;
  if (parts.length !== 4 || version !== VERSION || !KEK_ID.test(kekId!) || !BASE64URL.test(wrapped!) || !BASE64URL.test(box!)) {
    throw new KeyMaterialUnreadable('format', `not a sealed value (${VERSION}.<kek id>.<wrapped key>.<ciphertext>)`);
  }
  const raw = Buffer.from(box!, 'base64url');
  if (raw.length < NONCE + 1 + TAG) throw new KeyMaterialUnreadable('format', 'the sealed value is truncated');
  // The KEK says whether it opens a value of this id (one KEK only its own; a key ring any of its members').
  const dataKey = await kek.unwrap({ kekId: kekId!, wrapped: Buffer.from(wrapped!, 'base64url') });
  const pieces: Buffer[] = [];
  try {
    const decipher = createDecipheriv('aes-256-gcm', dataKey, raw.subarray(0, NONCE));
    decipher.setAAD(associatedData(context, kekId!));
    decipher.setAuthTag(raw.subarray(raw.length - TAG));
    pieces.push(decipher.update(raw.subarray(NONCE, raw.length - TAG)));
    try {
      pieces.push(decipher.final());
    } catch {
      throw new KeyMaterialUnreadable('not_authentic', 'the sealed value was changed, or belongs to another row, organization or kind');
    }
    return Buffer.concat(pieces);
  } finally {
    dataKey.fill(0);
    for (const part of pieces) part.fill(0);
  }
}

/** The id of the KEK a sealed value names (undefined for text that is no sealed value): which KEK opens it, read without opening it. */
export function sealedUnder(sealed: string): string | undefined {
  const parts = sealed.split('.');
  return parts.length === 4 && parts[0] === VERSION && KEK_ID.test(parts[1]!) ? parts[1] : undefined;
}

/**
 * The value sealed again under `kek` (its data key, nonce and wrapping all new), for the same row:
 * what moving to another KEK does. Opened and re-sealed in memory, the plaintext zeroed after.
 */
export async function resealKeyMaterial(kek: KeyEncryptionKey, context: SealContext, sealed: string): Promise<string> {
  return withOpenedKeyMaterial(kek, context, sealed, (plaintext) => sealKeyMaterial(kek, context, plaintext));
}

/** Opens the value, hands the plaintext to `use`, and zeroes it when `use` returns or throws. */
export async function withOpenedKeyMaterial<T>(
  kek: KeyEncryptionKey,
  context: SealContext,
  sealed: string,
  use: (plaintext: Buffer) => T | Promise<T>,
): Promise<T> {
  const plaintext = await openKeyMaterial(kek, context, sealed);
  try {
    return await use(plaintext);
  } finally {
    plaintext.fill(0);
  }
}

/** Each field length-prefixed, so no two contexts share an encoding. */
function associatedData(context: SealContext, kekId: string): Buffer {
  // Ids are UUIDs, one id in any letter case: a client may write its organization's id in capitals.
  const fields = ['signet key material v1', context.organizationId.toLowerCase(), context.rowId.toLowerCase(), context.kind, kekId];
  return Buffer.concat(
    fields.map((field) => {
      if (typeof field !== 'string' || field.length === 0 || field.length > MAX_CONTEXT_CHARACTERS) {
        throw new RangeError(`each of organizationId, rowId and kind has 1 to ${MAX_CONTEXT_CHARACTERS} characters`);
      }
      const bytes = Buffer.from(field, 'utf8');
      const length = Buffer.alloc(4);
      length.writeUInt32BE(bytes.length);
      return Buffer.concat([length, bytes]);
    }),
  );
}
