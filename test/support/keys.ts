// Key pairs for tests, in the form @turnkey/api-key-stamper takes them.
import { generateKeyPairSync } from 'node:crypto';

/** A P-256 key pair Signet has never seen: compressed public key and private scalar, hex. */
export function strangerKey(): { apiPublicKey: string; apiPrivateKey: string } {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const jwk = privateKey.export({ format: 'jwk' });
  const y = Buffer.from(jwk.y!, 'base64url');
  return {
    apiPublicKey: Buffer.concat([Buffer.from([y[31]! & 1 ? 3 : 2]), Buffer.from(jwk.x!, 'base64url')]).toString('hex'),
    apiPrivateKey: Buffer.from(jwk.d!, 'base64url').toString('hex'),
  };
}
