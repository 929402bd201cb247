// Re-verifies a vote's signature in the page with WebCrypto, trusting nothing the server says about it:
// an API-key (or session or attested key) vote is ECDSA P-256 SHA-256 over the vote's message with
// the vote's public key. A passkey vote keeps only its signature, not the authenticator data and
// client data the signature covers, so it cannot be checked here.
import { derToRaw, ECDSA_SHA256, importPublicKey } from '../stamp/p256.ts';
import { fromHex } from '../stamp/stamper.ts';

export interface Vote {
  id: string;
  userId: string;
  user?: { userName?: string };
  selection: string;
  message: string;
  publicKey: string;
  signature: string;
  scheme: string;
  createdAt: unknown;
}

export type VoteCheck = { state: 'verified' } | { state: 'failed'; reason: string } | { state: 'unchecked'; reason: string };

const P256_SCHEMES = ['SIGNATURE_SCHEME_TK_API_P256', 'STAMP_ATTESTED_SCHEME_P256_VERIFICATION_TOKEN'];

export async function checkVote(vote: Vote): Promise<VoteCheck> {
  if (vote.scheme === 'SIGNATURE_SCHEME_WEBAUTHN') {
    return { state: 'unchecked', reason: 'a passkey signs its authenticator data and client data, which the vote does not keep' };
  }
  if (!P256_SCHEMES.includes(vote.scheme)) return { state: 'unchecked', reason: `unknown signature scheme ${vote.scheme}` };
  if (typeof vote.message !== 'string' || typeof vote.signature !== 'string' || typeof vote.publicKey !== 'string') {
    return { state: 'unchecked', reason: 'the vote lacks its message, signature or public key' };
  }
  if (vote.message.includes('"[redacted]"')) {
    return { state: 'unchecked', reason: 'a secret in the signed body is shown redacted, so the exact bytes signed are not here' };
  }
  let key: CryptoKey;
  let signature: Uint8Array<ArrayBuffer>;
  try {
    key = await importPublicKey(vote.publicKey);
    signature = derToRaw(fromHex(vote.signature));
  } catch (error) {
    return { state: 'failed', reason: (error as Error).message };
  }
  const valid = await crypto.subtle.verify(ECDSA_SHA256, key, signature, new TextEncoder().encode(vote.message));
  return valid ? { state: 'verified' } : { state: 'failed', reason: 'the signature does not match the message and public key' };
}
