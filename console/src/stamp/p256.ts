// P-256 in the page: WebCrypto does the signing and verifying; this file converts what the wire
// carries (compressed hex public keys, DER signatures, a bare 32-byte private scalar) into what
// WebCrypto takes, and back.
import { base64url, fromHex } from './stamper.ts';

const P = 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffffn;
const B = 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604bn;
const ECDSA = { name: 'ECDSA', namedCurve: 'P-256' } as const;
export const ECDSA_SHA256 = { name: 'ECDSA', hash: 'SHA-256' } as const;

function modPow(base: bigint, exponent: bigint, modulus: bigint): bigint {
  let result = 1n;
  base %= modulus;
  while (exponent > 0n) {
    if (exponent & 1n) result = (result * base) % modulus;
    base = (base * base) % modulus;
    exponent >>= 1n;
  }
  return result;
}

function bigintBytes(value: bigint): Uint8Array<ArrayBuffer> {
  return fromHex(value.toString(16).padStart(64, '0'));
}

/** The uncompressed point (65 bytes) of a hex public key, compressed (66 hex) or uncompressed (130). */
export function uncompressedPoint(publicKeyHex: string): Uint8Array<ArrayBuffer> {
  const bytes = fromHex(publicKeyHex);
  if (bytes.length === 65 && bytes[0] === 4) return bytes;
  if (bytes.length !== 33 || (bytes[0] !== 2 && bytes[0] !== 3)) throw new Error('not a P-256 public key (66 or 130 hex characters)');
  const x = BigInt('0x' + publicKeyHex.slice(2));
  if (x >= P) throw new Error('not a P-256 public key (x is out of range)');
  const ySquared = (((x * x) % P) * x - 3n * x + B) % P;
  let y = modPow((ySquared + P) % P, (P + 1n) / 4n, P);
  if ((y * y) % P !== (ySquared + P) % P) throw new Error('not a P-256 public key (not on the curve)');
  if (Number(y & 1n) !== (bytes[0] & 1)) y = P - y;
  const point = new Uint8Array(65);
  point[0] = 4;
  point.set(bytes.subarray(1), 1);
  point.set(bigintBytes(y), 33);
  return point;
}

export function importPublicKey(publicKeyHex: string): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', uncompressedPoint(publicKeyHex), ECDSA, false, ['verify']);
}

/**
 * A 32-byte private scalar as a non-extractable signing key. WebCrypto takes it as a JWK with its
 * public point (Chromium refuses a PKCS#8 without one): the caller checks the pair by a probe signature.
 */
export function importPrivateScalar(scalar: Uint8Array, publicKeyHex: string): Promise<CryptoKey> {
  if (scalar.length !== 32) throw new Error('the private key must be 32 bytes (64 hexadecimal characters)');
  const point = uncompressedPoint(publicKeyHex);
  const jwk: JsonWebKey = { kty: 'EC', crv: 'P-256', d: base64url(scalar), x: base64url(point.subarray(1, 33)), y: base64url(point.subarray(33)), ext: false };
  return crypto.subtle.importKey('jwk', jwk, ECDSA, false, ['sign']);
}

/** WebCrypto's r||s (64 bytes) as strict DER. */
export function rawToDer(raw: Uint8Array): Uint8Array {
  const integer = (bytes: Uint8Array) => {
    let start = 0;
    while (start < bytes.length - 1 && bytes[start] === 0 && bytes[start + 1]! < 0x80) start++;
    const trimmed = bytes.subarray(start);
    const padded = trimmed[0]! >= 0x80 ? [0, ...trimmed] : [...trimmed];
    return [0x02, padded.length, ...padded];
  };
  const body = [...integer(raw.subarray(0, 32)), ...integer(raw.subarray(32, 64))];
  return Uint8Array.from([0x30, body.length, ...body]);
}

/** A DER ECDSA signature as WebCrypto's r||s; throws on anything that is not one. */
export function derToRaw(der: Uint8Array): Uint8Array<ArrayBuffer> {
  const fail = (why: string): never => {
    throw new Error(`the signature is not DER: ${why}`);
  };
  if (der[0] !== 0x30 || der[1] !== der.length - 2) fail('bad sequence');
  const raw = new Uint8Array(64);
  let offset = 2;
  for (const at of [0, 32]) {
    if (der[offset] !== 0x02) fail('expected an integer');
    const length = der[offset + 1]!;
    let value = der.subarray(offset + 2, offset + 2 + length);
    if (value.length !== length || length === 0) fail('truncated');
    if (value[0] === 0 && value.length > 1) value = value.subarray(1);
    if (value.length > 32) fail('integer too long');
    raw.set(value, at + 32 - value.length);
    offset += 2 + length;
  }
  if (offset !== der.length) fail('trailing bytes');
  return raw;
}
