// P-256 public keys: hex (compressed or uncompressed SEC1) to a Node KeyObject plus the canonical
// compressed form that api_keys.public_key stores, and the SEC1 hex forms of keys the service holds.
import { createPublicKey, ECDH, KeyObject } from 'node:crypto';
import { unauthenticated } from '../errors.ts';

export interface P256PublicKey {
  /** Compressed SEC1 point, lowercase hex (66 chars): the form api_keys.public_key stores. */
  compressed: string;
  /** The key, ready for crypto.verify. */
  key: KeyObject;
}

const SEC1_HEX = /^(0[23][0-9a-f]{64}|04[0-9a-f]{128})$/;

/** The hex forms a P-256 public key is accepted in (either letter case), as a JSON Schema pattern. */
export const P256_PUBLIC_KEY_PATTERN = '^(0[23][0-9a-fA-F]{64}|04[0-9a-fA-F]{128})$';

// Parsing a key (point decompression, on-curve check, KeyObject) costs more than the signature
// check itself, and a client stamps every request with the same key. Only keys that authenticated
// are kept (rememberP256PublicKey), so forged stamps with ever new keys cannot push them out. Only
// parsing is cached: what the key may do is looked up on every request.
const CACHE_LIMIT = 10_000;
const cache = new Map<string, P256PublicKey>();

/** Keeps the parsed form of a key that has just authenticated. */
export function rememberP256PublicKey(hex: string): void {
  const normalized = hex.toLowerCase();
  if (cache.has(normalized)) return;
  const parsed = parseP256PublicKey(normalized);
  if (cache.size >= CACHE_LIMIT) {
    // A Map iterates in insertion order, so the first key is the oldest entry.
    const oldest = cache.keys().next();
    if (!oldest.done) cache.delete(oldest.value);
  }
  cache.set(normalized, parsed);
}

/** Parses a P-256 public key in hex; throws 401 when it is malformed or not a point on the curve. */
export function parseP256PublicKey(hex: string): P256PublicKey {
  const normalized = hex.toLowerCase();
  const cached = cache.get(normalized);
  if (cached) return cached;

  if (!SEC1_HEX.test(normalized)) {
    throw unauthenticated(
      'stamp publicKey must be a P-256 public key in hex: 66 characters starting with 02 or 03 (compressed) ' +
        'or 130 characters starting with 04 (uncompressed)',
      'malformed',
    );
  }
  let uncompressed: Buffer;
  let compressed: string;
  try {
    // OpenSSL rejects coordinates that are not on the curve (or not below the field prime) here.
    uncompressed = ECDH.convertKey(Buffer.from(normalized, 'hex'), 'prime256v1', undefined, undefined, 'uncompressed') as Buffer;
    compressed = ECDH.convertKey(normalized, 'prime256v1', 'hex', 'hex', 'compressed') as string;
  } catch {
    throw unauthenticated('stamp publicKey is not a point on the P-256 curve; send the public key of your API key pair', 'malformed');
  }
  const key = createPublicKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: uncompressed.subarray(1, 33).toString('base64url'),
      y: uncompressed.subarray(33, 65).toString('base64url'),
    },
    format: 'jwk',
  });
  return { compressed, key };
}

/** Both SEC1 forms of a P-256 point, lowercase hex. */
export interface P256PointHex {
  /** 66 characters, 02 or 03 then X. */
  compressed: string;
  /** 130 characters, 04 then X and Y. */
  uncompressed: string;
}

/**
 * Both SEC1 forms of a P-256 public key given in hex (either form, any case), or undefined when
 * the text is not one or the point is not on the curve. Unlike parseP256PublicKey it throws no
 * client error: callers word their own.
 */
export function p256PointHex(hex: string): P256PointHex | undefined {
  if (typeof hex !== 'string') return undefined;
  const normalized = hex.toLowerCase();
  if (!SEC1_HEX.test(normalized)) return undefined;
  try {
    return {
      compressed: ECDH.convertKey(normalized, 'prime256v1', 'hex', 'hex', 'compressed') as string,
      uncompressed: ECDH.convertKey(normalized, 'prime256v1', 'hex', 'hex', 'uncompressed') as string,
    };
  } catch {
    return undefined; // not on the curve, or a coordinate not below the field prime
  }
}

/** A P-256 key as a JWK's public coordinates, or a Node KeyObject (public, or private: its public half). */
export type P256KeyLike = KeyObject | { x: string; y: string };

function coordinates(key: P256KeyLike): { x: Buffer; y: Buffer } {
  let jwk: { x?: string; y?: string };
  if (key instanceof KeyObject) {
    const exported = (key.type === 'private' ? createPublicKey(key) : key).export({ format: 'jwk' });
    if (exported.kty !== 'EC' || exported.crv !== 'P-256') throw new Error('expected a P-256 key');
    jwk = exported;
  } else {
    jwk = key;
  }
  const x = Buffer.from(jwk.x ?? '', 'base64url');
  const y = Buffer.from(jwk.y ?? '', 'base64url');
  if (x.length !== 32 || y.length !== 32) throw new Error('a P-256 key has 32-byte coordinates');
  return { x, y };
}

/** The key as an uncompressed SEC1 point, lowercase hex (130 characters, 04‖X‖Y). */
export function uncompressedPublicKeyHex(key: P256KeyLike): string {
  const { x, y } = coordinates(key);
  return Buffer.concat([Buffer.from([4]), x, y]).toString('hex');
}

/** The key as a compressed SEC1 point, lowercase hex (66 characters, 02/03‖X). */
export function compressedPublicKeyHex(key: P256KeyLike): string {
  const { x, y } = coordinates(key);
  return Buffer.concat([Buffer.from([y[31]! & 1 ? 3 : 2]), x]).toString('hex');
}
