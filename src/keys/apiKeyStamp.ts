// The API-key stamp, made in one place: X-Stamp is the base64url (unpadded) of the JSON {publicKey,
// scheme: "SIGNATURE_SCHEME_TK_API_P256", signature}, the signature a DER ECDSA P-256 / SHA-256 over
// the exact body bytes, in hex. The command line stamps its requests with it (cli/stamp.ts), and so
// does the auth proxy for what it submits as its configuration's user.
import { createECDH, createPrivateKey, sign, type KeyObject } from 'node:crypto';

/** The P-256 private key of a 32-byte scalar; throws when it is none. */
export function p256PrivateKey(scalar: Uint8Array): KeyObject {
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(scalar);
  const point = ecdh.getPublicKey();
  return createPrivateKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      d: Buffer.from(scalar).toString('base64url'),
      x: point.subarray(1, 33).toString('base64url'),
      y: point.subarray(33, 65).toString('base64url'),
    },
    format: 'jwk',
  });
}

/** The X-Stamp header value for exactly these bytes. */
export function apiKeyStamp(body: string | Buffer, key: KeyObject, publicKey: string): string {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const signature = sign('sha256', bytes, { key, dsaEncoding: 'der' }).toString('hex');
  return Buffer.from(JSON.stringify({ publicKey, scheme: 'SIGNATURE_SCHEME_TK_API_P256', signature })).toString('base64url');
}
