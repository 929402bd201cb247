// Verifies an API-key stamp: ECDSA P-256 with SHA-256 over the exact raw body bytes, with the
// signature in strict DER (DESIGN §2.2). Which organization the key belongs to is authenticate.ts's job.
import { verify } from 'node:crypto';
import { unauthenticated } from '../errors.ts';
import type { ApiKeyStamp } from './parseStamp.ts';
import { parseP256PublicKey } from './publicKey.ts';

// Order of the P-256 group: r and s must lie in [1, n - 1].
const P256_ORDER = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

/** Throws 401 unless stamp.signature is stamp.publicKey's signature over body; returns the key compressed. */
export function verifyApiKeyStamp(body: Buffer, stamp: ApiKeyStamp): { publicKey: string } {
  const { compressed, key } = parseP256PublicKey(stamp.publicKey);
  if (!/^(?:[0-9a-fA-F]{2})+$/.test(stamp.signature)) {
    throw unauthenticated('stamp signature must be hex with an even number of characters', 'malformed');
  }
  const signature = Buffer.from(stamp.signature, 'hex');
  const malformed = strictDerProblem(signature);
  if (malformed) {
    throw unauthenticated(
      `stamp signature is not a strict DER ECDSA signature (${malformed}); send the DER encoding ` +
        'SEQUENCE { INTEGER r, INTEGER s } in hex, as @turnkey/api-key-stamper does',
      'malformed',
    );
  }
  let valid: boolean;
  try {
    valid = verify('sha256', body, { key, dsaEncoding: 'der' }, signature);
  } catch {
    valid = false;
  }
  if (!valid) {
    throw unauthenticated(
      `stamp signature does not verify with publicKey ${compressed} over the request body; sign the exact ` +
        'bytes you send (ECDSA P-256, SHA-256) with the private key of this public key',
      'bad_signature',
    );
  }
  return { publicKey: compressed };
}

/**
 * Why the bytes are not the one DER encoding of an ECDSA-Sig-Value (RFC 3279), or undefined when they are.
 *
 * Node's crypto.verify alone (Node 20.20, OpenSSL 3.0.19) already rejects every signature that
 * Wycheproof's ecdsa_secp256r1_sha256_test.json calls invalid. This check makes the rule ours rather
 * than the linked crypto library's, so a runtime built on a laxer one cannot bring back BER
 * malleability, and it lets the error say what is wrong with the encoding.
 */
function strictDerProblem(der: Uint8Array): string | undefined {
  // SEQUENCE; its content is at most 2 × 35 bytes, so the length is one short-form byte.
  if (der.length < 8 || der[0] !== 0x30) return 'it must start with a SEQUENCE';
  if (der[1]! >= 0x80) return 'the SEQUENCE length must be in short form';
  if (der[1]! !== der.length - 2) return 'the SEQUENCE length must cover exactly the rest of the signature';
  let offset = 2;
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
    if (length > 33) return `${name} is longer than 33 bytes`;
    let value = 0n;
    for (let i = start; i < end; i++) value = (value << 8n) | BigInt(der[i]!);
    if (value === 0n || value >= P256_ORDER) return `${name} must be between 1 and the P-256 group order minus 1`;
    offset = end;
  }
  if (offset !== der.length) return 'there are bytes after s';
  return undefined;
}
