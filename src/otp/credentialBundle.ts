// otp_auth's credential: a fresh P-256 key pair whose private half goes to the client only, sealed
// in the ecosystem's credential bundle, what @turnkey/crypto's decryptCredentialBundle opens:
// base58check of the HPKE encryption (that library's own hpkeEncrypt: the compressed encapsulated
// key, then the AES-GCM ciphertext) of the 32-byte private scalar to the client's target key.
import { generateKeyPairSync } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import { createBase58check } from '@scure/base';
import { compressedPublicKeyHex, p256PointHex } from '../keys/p256.ts';
import { turnkeyCrypto } from '../keys/turnkeyCrypto.ts';

const base58check = createBase58check(sha256);

export interface SealedCredential {
  /** The public half, compressed SEC1, lowercase hex: the API key to register. */
  publicKey: string;
  /** The private half, encrypted to the target key: for the client, never stored. */
  credentialBundle: string;
}

/**
 * Makes a key pair and seals its private half to `targetPublicKey` (P-256 hex, compressed or
 * uncompressed; throws when it is not a point). The private key exists only inside this call.
 */
export async function sealNewCredential(targetPublicKey: string): Promise<SealedCredential> {
  const target = p256PointHex(targetPublicKey);
  if (!target) throw new Error('the credential target is not a P-256 public key in hex');
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const scalar = Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url');
  const plainTextBuf = Buffer.concat([Buffer.alloc(32 - scalar.length), scalar]);
  const { hpkeEncrypt } = await turnkeyCrypto();
  try {
    // Uncompressed: the decryption rebuilds the AAD and KEM context from the receiver's uncompressed key.
    const sealed = hpkeEncrypt({ plainTextBuf, targetKeyBuf: Buffer.from(target.uncompressed, 'hex') });
    return { publicKey: compressedPublicKeyHex(privateKey), credentialBundle: base58check.encode(sealed) };
  } finally {
    plainTextBuf.fill(0);
    scalar.fill(0);
  }
}
