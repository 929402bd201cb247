// Verifies an API-key stamp: ECDSA P-256 with SHA-256 over the exact raw body bytes, with the
// signature in strict DER (DESIGN §2.2). Which organization the key belongs to is authenticate.ts's job.
import { verify } from 'node:crypto';
import { promisify } from 'node:util';
import { unauthenticated } from '../errors.ts';
import type { ApiKeyStamp } from './parseStamp.ts';
import { parseP256PublicKey } from '../keys/p256.ts';
import { strictDerProblem } from '../keys/strictDer.ts';

/** crypto.verify with a callback: the check runs on libuv's thread pool. */
const verifyOnThreadPool = promisify(verify);

/**
 * Rejects with 401 unless stamp.signature is stamp.publicKey's signature over body; resolves to the
 * key compressed. The ECDSA check runs on libuv's thread pool, so the event loop goes on serving
 * other requests meanwhile (it is the largest single piece of a request's CPU).
 */
export async function verifyApiKeyStamp(body: Buffer, stamp: ApiKeyStamp): Promise<{ publicKey: string }> {
  const { compressed, key } = parseP256PublicKey(stamp.publicKey);
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
  const valid = await verifyOnThreadPool('sha256', body, { key, dsaEncoding: 'der' }, signature).catch(() => false);
  if (!valid) {
    throw unauthenticated(
      `stamp signature does not verify with publicKey ${compressed} over the request body; sign the exact ` +
        'bytes you send (ECDSA P-256, SHA-256) with the private key of this public key',
      'bad_signature',
    );
  }
  return { publicKey: compressed };
}
