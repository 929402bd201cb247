// Small secrets kept in the store (OTP target keys, token signing keys, codes waiting in the outbox)
// sealed with AES-256-GCM under a key derived from the deployment secret: a database dump alone
// reveals none of them. Each use has
// its own label (so its own key), and the row's id as associated data, so a sealed value cannot be
// moved to another row.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

function sealingKey(secret: Buffer, label: string): Buffer {
  return createHmac('sha256', secret).update(label).digest();
}

/** base64url(nonce ‖ ciphertext ‖ tag). */
export function seal(secret: Buffer, label: string, rowId: string, plaintext: Buffer): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(secret, label), nonce);
  cipher.setAAD(Buffer.from(rowId));
  const sealed = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([nonce, sealed, cipher.getAuthTag()]).toString('base64url');
}

/** Throws when the value was changed, belongs to another row or label, or was sealed under another secret. */
export function unseal(secret: Buffer, label: string, rowId: string, sealed: string): Buffer {
  const raw = Buffer.from(sealed, 'base64url');
  if (raw.length < 12 + 16 + 1) throw new Error('sealed value is truncated');
  const decipher = createDecipheriv('aes-256-gcm', sealingKey(secret, label), raw.subarray(0, 12));
  decipher.setAAD(Buffer.from(rowId));
  decipher.setAuthTag(raw.subarray(raw.length - 16));
  return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]);
}
