// P-256 public keys: hex (compressed or uncompressed SEC1) to a Node KeyObject plus the canonical
// compressed form that api_keys.public_key stores, and the SEC1 hex forms of keys the service holds.
// One parser for every caller; each words its own refusal of InvalidP256PublicKey.
import { createPublicKey, ECDH, KeyObject } from 'node:crypto';

export interface P256PublicKey {
  /** Compressed SEC1 point, lowercase hex (66 chars): the form api_keys.public_key stores. */
  compressed: string;
  /** Uncompressed SEC1 point, lowercase hex (130 chars). */
  uncompressed: string;
  /** The key, ready for crypto.verify. */
  key: KeyObject;
}

/** The text is not a P-256 public key: not SEC1 hex of either form (`encoding`), or not a point on the curve. */
export class InvalidP256PublicKey extends Error {
  override name = 'InvalidP256PublicKey';
  constructor(readonly problem: 'encoding' | 'not_on_curve') {
    super(problem === 'encoding' ? 'not a P-256 public key in SEC1 hex' : 'not a point on the P-256 curve');
  }
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

/** Parses a P-256 public key in hex (either SEC1 form, any case); throws InvalidP256PublicKey. */
export function parseP256PublicKey(hex: string): P256PublicKey {
  if (typeof hex !== 'string') throw new InvalidP256PublicKey('encoding');
  const normalized = hex.toLowerCase();
  const cached = cache.get(normalized);
  if (cached) return cached;

  if (!SEC1_HEX.test(normalized)) throw new InvalidP256PublicKey('encoding');
  try {
    // OpenSSL rejects coordinates that are not on the curve (or not below the field prime) here,
    // and importing the key rejects a point convertKey let through.
    const uncompressed = ECDH.convertKey(Buffer.from(normalized, 'hex'), 'prime256v1', undefined, undefined, 'uncompressed') as Buffer;
    const compressed = ECDH.convertKey(normalized, 'prime256v1', 'hex', 'hex', 'compressed') as string;
    const key = createPublicKey({
      key: {
        kty: 'EC',
        crv: 'P-256',
        x: uncompressed.subarray(1, 33).toString('base64url'),
        y: uncompressed.subarray(33, 65).toString('base64url'),
      },
      format: 'jwk',
    });
    return { compressed, uncompressed: uncompressed.toString('hex'), key };
  } catch {
    throw new InvalidP256PublicKey('not_on_curve');
  }
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
 * parseP256PublicKey refuses it: for callers that only compare keys.
 */
export function p256PointHex(hex: string): P256PointHex | undefined {
  try {
    const { compressed, uncompressed } = parseP256PublicKey(hex);
    return { compressed, uncompressed };
  } catch (error) {
    if (error instanceof InvalidP256PublicKey) return undefined;
    throw error;
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
