// Verifies an API-key stamp: ECDSA P-256 with SHA-256 over the exact raw body bytes, with the
// signature in strict DER. Which organization the key belongs to is authenticate.ts's job.
import { verify } from 'node:crypto';
import { unauthenticated } from '../errors.ts';
import type { ApiKeyStamp } from './parseStamp.ts';
import { InvalidP256PublicKey, parseP256PublicKey, type P256PublicKey } from '../keys/p256.ts';
import { strictDerProblem } from '../keys/strictDer.ts';

/**
 * Rejects with 401 unless stamp.signature is stamp.publicKey's signature over body; resolves to the
 * key compressed. The check runs here, on the event loop: about 50 µs of CPU for a small body and
 * 0.6 ms for the largest (1 MiB, SHA-256 being the part that grows). It ran on libuv's thread pool
 * before, and handing it over and back cost more than it kept off the loop: in interleaved benchmark
 * runs on two cores, checking here gave 0.66–0.74× the floor's activities/s against 0.56–0.67×.
 */
export async function verifyApiKeyStamp(body: Buffer, stamp: ApiKeyStamp): Promise<{ publicKey: string }> {
  const { compressed, key } = stampKey(stamp.publicKey);
  if (!/^(?:[0-9a-fA-F]{2})+$/.test(stamp.signature)) {
    throw unauthenticated('stamp signature must be hex with an even number of characters', 'malformed');
  }
  const signature = Buffer.from(stamp.signature, 'hex');
  const malformed = strictDerProblem(signature, 'P-256');
  if (malformed) {
    throw unauthenticated(
      `stamp signature is not a strict DER ECDSA signature (${malformed}); send the DER encoding ` +
        'SEQUENCE { INTEGER r, INTEGER s } in hex, as @turnkey/api-key-stamper does',
      'malformed',
    );
  }
  // A key or signature the library cannot use at all is a signature that does not verify.
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

/** The stamp's public key, or the 401 of a malformed stamp. */
function stampKey(publicKey: string): P256PublicKey {
  try {
    return parseP256PublicKey(publicKey);
  } catch (error) {
    if (!(error instanceof InvalidP256PublicKey)) throw error;
    throw error.problem === 'encoding'
      ? unauthenticated(
          'stamp publicKey must be a P-256 public key in hex: 66 characters starting with 02 or 03 (compressed) ' +
            'or 130 characters starting with 04 (uncompressed)',
          'malformed',
        )
      : unauthenticated('stamp publicKey is not a point on the P-256 curve; send the public key of your API key pair', 'malformed');
  }
}
