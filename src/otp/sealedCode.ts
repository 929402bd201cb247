// An OTP code as the outbox keeps it until delivered: sealed with AES-256-GCM under a key derived
// from the deployment secret and a label of its own, the outbox row's id as associated data, so a
// database dump alone reveals no code and a sealed code cannot be moved to another row. It is the
// construction of the store's sealed columns (store/sealed.ts), so codes queued when the store
// sealed them stay readable.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

const LABEL = 'signet outbox encryption v1';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

function sealingKey(secret: Buffer): Buffer {
  return createHmac('sha256', secret).update(LABEL).digest();
}

/** base64url(nonce ‖ ciphertext ‖ tag). */
export function encryptCode(secret: Buffer, outboxId: string, code: string): string {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(secret), nonce);
  cipher.setAAD(Buffer.from(outboxId));
  const sealed = Buffer.concat([cipher.update(code, 'utf8'), cipher.final()]);
  return Buffer.concat([nonce, sealed, cipher.getAuthTag()]).toString('base64url');
}

/** Throws when the ciphertext was changed, belongs to another row, or was made with another secret. */
export function decryptCode(secret: Buffer, outboxId: string, encrypted: string): string {
  const raw = Buffer.from(encrypted, 'base64url');
  if (raw.length < NONCE_BYTES + TAG_BYTES + 1) throw new Error('sealed value is truncated');
  const decipher = createDecipheriv('aes-256-gcm', sealingKey(secret), raw.subarray(0, NONCE_BYTES));
  decipher.setAAD(Buffer.from(outboxId));
  decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
  return Buffer.concat([decipher.update(raw.subarray(NONCE_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8');
}
