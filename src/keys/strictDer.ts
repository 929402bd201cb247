// Strict DER for ECDSA signatures (RFC 3279 ECDSA-Sig-Value) on the NIST curves: the one encoding
// of (r, s) that API-key and WebAuthn stamps must use, so no other byte string carries the same signature.

export type EcdsaCurve = 'P-256' | 'P-384' | 'P-521';

// Group orders (SEC 2 / FIPS 186-4): r and s must lie in [1, n - 1].
const ORDERS: Record<EcdsaCurve, bigint> = {
  'P-256': 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n,
  'P-384':
    0xffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973n,
  'P-521':
    0x01fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffa51868783bf2f966b7fcc0148f709a5d03bb5c9b8899c47aebb6fb71e91386409n,
};

// A positive INTEGER below the order takes at most this many content bytes (33, 49, 66). Worked out
// once: every stamp is checked here, and the order's binary text is 256 to 521 characters.
const MAX_INTEGER_LENGTHS: Record<EcdsaCurve, number> = {
  'P-256': Math.ceil((ORDERS['P-256'].toString(2).length + 1) / 8),
  'P-384': Math.ceil((ORDERS['P-384'].toString(2).length + 1) / 8),
  'P-521': Math.ceil((ORDERS['P-521'].toString(2).length + 1) / 8),
};

/**
 * Why the bytes are not the one DER encoding of an ECDSA-Sig-Value on `curve`, or undefined when they are.
 *
 * Node's crypto.verify alone (Node 20.20, OpenSSL 3.0.19) already rejects every signature that
 * Wycheproof's ecdsa_secp256r1_sha256_test.json calls invalid, but the ASN.1 parser behind
 * @simplewebauthn/server accepts BER and worse (a flipped tag class, a SEQUENCE length one short).
 * This check makes the rule ours rather than a library's, and lets the error say what is wrong.
 */
export function strictDerProblem(der: Uint8Array, curve: EcdsaCurve): string | undefined {
  const order = ORDERS[curve];
  const maxIntegerLength = MAX_INTEGER_LENGTHS[curve];
  if (der.length < 8 || der[0] !== 0x30) return 'it must start with a SEQUENCE';

  // The content length: short form below 128 bytes; above (only P-521 needs it) exactly 0x81 then one byte.
  let offset: number;
  let contentLength: number;
  if (der[1]! < 0x80) {
    contentLength = der[1]!;
    offset = 2;
  } else if (der[1] === 0x81 && der.length > 2 && der[2]! >= 0x80) {
    contentLength = der[2]!;
    offset = 3;
  } else {
    return der[1] === 0x81 ? 'the SEQUENCE length must be in short form' : 'the SEQUENCE length must be in the shortest form';
  }
  if (contentLength !== der.length - offset) return 'the SEQUENCE length must cover exactly the rest of the signature';

  for (const name of ['r', 's']) {
    if (der[offset] !== 0x02) return `${name} must be an INTEGER`;
    const length = der[offset + 1];
    if (length === undefined || length >= 0x80) return `the length of ${name} must be in short form`;
    const start = offset + 2;
    const end = start + length;
    if (length === 0 || end > der.length) return `the length of ${name} runs past the signature`;
    const first = der[start]!;
    if (first & 0x80) return `${name} must not be negative`;
    if (first === 0 && length > 1 && !(der[start + 1]! & 0x80)) return `${name} has a superfluous leading zero`;
    if (length > maxIntegerLength) return `${name} is longer than ${maxIntegerLength} bytes`;
    // Read at once from its hex: shifting in a byte at a time made a few BigInts per byte, per signature.
    const value = BigInt(`0x${Buffer.from(der.buffer, der.byteOffset + start, length).toString('hex')}`);
    if (value === 0n || value >= order) return `${name} must be between 1 and the ${curve} group order minus 1`;
    offset = end;
  }
  if (offset !== der.length) return 'there are bytes after s';
  return undefined;
}
