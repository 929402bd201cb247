// The KEK derived from the deployment secret: HKDF-SHA-256 of the secret with a fixed label, and an
// id derived the same way under another label (so the id says which secret without revealing it).
// A data key is wrapped with AES-256-GCM under it, a random 96-bit nonce each time, the KEK's id as
// associated data. Whoever holds the deployment secret and a database dump can open every key: an
// HSM-held KEK behind the same interface is what removes that.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { KeyMaterialUnreadable, type KeyEncryptionKey, type WrappedDataKey } from './keyEncryptionKey.ts';

const KEK_LABEL = 'signet wallet key-encryption key v1';
const ID_LABEL = 'signet wallet key-encryption key id v1';
const NONCE = 12;
const TAG = 16;
const DATA_KEY = 32;

/** The KEK of a deployment secret (at least 32 bytes). */
export function deploymentSecretKek(secret: Uint8Array): KeyEncryptionKey {
  if (secret.length < 32) throw new RangeError('the deployment secret has at least 32 bytes');
  const kek = Buffer.from(hkdfSync('sha256', secret, new Uint8Array(), KEK_LABEL, 32));
  const id = `secret:${Buffer.from(hkdfSync('sha256', secret, new Uint8Array(), ID_LABEL, 8)).toString('hex')}`;
  return {
    id,
    async wrap(dataKey: Uint8Array): Promise<WrappedDataKey> {
      if (dataKey.length !== DATA_KEY) throw new RangeError('a data key has 32 bytes');
      const nonce = randomBytes(NONCE);
      const cipher = createCipheriv('aes-256-gcm', kek, nonce);
      cipher.setAAD(Buffer.from(id));
      const wrapped = Buffer.concat([nonce, cipher.update(dataKey), cipher.final(), cipher.getAuthTag()]);
      return { kekId: id, wrapped };
    },
    async unwrap({ kekId, wrapped }: WrappedDataKey): Promise<Uint8Array> {
      if (kekId !== id) throw new KeyMaterialUnreadable('other_kek', `sealed under key-encryption key ${kekId}, not ${id}`);
      if (wrapped.length !== NONCE + DATA_KEY + TAG) throw new KeyMaterialUnreadable('format', 'the wrapped data key has the wrong length');
      const decipher = createDecipheriv('aes-256-gcm', kek, wrapped.subarray(0, NONCE));
      decipher.setAAD(Buffer.from(id));
      decipher.setAuthTag(wrapped.subarray(NONCE + DATA_KEY));
      const head = decipher.update(wrapped.subarray(NONCE, NONCE + DATA_KEY));
      try {
        return Buffer.concat([head, decipher.final()]);
      } catch {
        throw new KeyMaterialUnreadable('unwrap_failed', `key-encryption key ${id} does not open this data key`);
      } finally {
        head.fill(0);
      }
    },
  };
}
