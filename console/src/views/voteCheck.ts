// Re-verifies a vote's signature in the page with WebCrypto, trusting nothing the server says about it:
// an API-key (or session or attested key) vote is ECDSA P-256 SHA-256 over the vote's message with
// the vote's public key. A passkey vote is an assertion: its signature covers authenticatorData ||
// SHA-256(clientDataJSON), whose type must be "webauthn.get" and whose challenge the UTF-8 bytes of
// the lowercase hex SHA-256 of the vote's message (what the ecosystem's WebAuthn stamper signs), with
// the passkey's COSE public key. A passkey vote recorded before Signet kept those two cannot be checked.
import { importCoseKey } from '../stamp/cose.ts';
import { derToRaw, ECDSA_SHA256, importPublicKey } from '../stamp/p256.ts';
import { base64url, fromBase64url, fromHex, sha256, toHex } from '../stamp/stamper.ts';

export interface Vote {
  id: string;
  userId: string;
  user?: { userName?: string };
  selection: string;
  message: string;
  publicKey: string;
  signature: string;
  scheme: string;
  /** A passkey vote's WebAuthn authenticatorData and clientDataJSON, base64url (absent on older votes). */
  authenticatorData?: string;
  clientDataJson?: string;
  createdAt: unknown;
}

export type VoteCheck = { state: 'verified' } | { state: 'failed'; reason: string } | { state: 'unchecked'; reason: string };

const P256_SCHEMES = ['SIGNATURE_SCHEME_TK_API_P256', 'STAMP_ATTESTED_SCHEME_P256_VERIFICATION_TOKEN'];

export async function checkVote(vote: Vote): Promise<VoteCheck> {
  if (vote.scheme !== 'SIGNATURE_SCHEME_WEBAUTHN' && !P256_SCHEMES.includes(vote.scheme)) return { state: 'unchecked', reason: `unknown signature scheme ${vote.scheme}` };
  if (typeof vote.message !== 'string' || typeof vote.signature !== 'string' || typeof vote.publicKey !== 'string') {
    return { state: 'unchecked', reason: 'the vote lacks its message, signature or public key' };
  }
  if (vote.message.includes('"[redacted]"')) {
    return { state: 'unchecked', reason: 'a secret in the signed body is shown redacted, so the exact bytes signed are not here' };
  }
  if (vote.scheme === 'SIGNATURE_SCHEME_WEBAUTHN') return checkPasskeyVote(vote);
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

/** A passkey vote: its client data names this vote's message, and its signature holds. */
async function checkPasskeyVote(vote: Vote): Promise<VoteCheck> {
  if (typeof vote.authenticatorData !== 'string' || typeof vote.clientDataJson !== 'string') {
    return { state: 'unchecked', reason: 'the vote was recorded before Signet kept the authenticator data and client data a passkey signs' };
  }
  let authenticatorData: Uint8Array<ArrayBuffer>;
  let clientDataBytes: Uint8Array<ArrayBuffer>;
  let clientData: { type?: unknown; challenge?: unknown };
  try {
    authenticatorData = fromBase64url(vote.authenticatorData);
    clientDataBytes = fromBase64url(vote.clientDataJson);
    clientData = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(clientDataBytes)) as typeof clientData;
  } catch {
    return { state: 'failed', reason: 'the authenticator data or client data is not base64url, or the client data not JSON' };
  }
  if (clientData?.type !== 'webauthn.get') return { state: 'failed', reason: `the client data's type is ${JSON.stringify(clientData?.type)}, not "webauthn.get"` };
  const messageHash = toHex(await sha256(new TextEncoder().encode(vote.message)));
  if (clientData.challenge !== base64url(new TextEncoder().encode(messageHash))) {
    return { state: 'failed', reason: "the passkey signed another message: the client data's challenge is not the SHA-256 of this vote's message" };
  }
  if (authenticatorData.length < 37 || (authenticatorData[32]! & 0x01) === 0) {
    return { state: 'failed', reason: 'the authenticator data is too short or lacks the user-present flag' };
  }
  let verifier: Awaited<ReturnType<typeof importCoseKey>>;
  let signature: Uint8Array<ArrayBuffer>;
  try {
    verifier = await importCoseKey(fromHex(vote.publicKey));
  } catch (error) {
    return { state: 'unchecked', reason: (error as Error).message };
  }
  try {
    const sent = fromBase64url(vote.signature);
    signature = verifier.size === undefined ? sent : derToRaw(sent, verifier.size);
  } catch (error) {
    return { state: 'failed', reason: (error as Error).message };
  }
  const signed = new Uint8Array(authenticatorData.length + 32);
  signed.set(authenticatorData);
  signed.set(await sha256(clientDataBytes), authenticatorData.length);
  const valid = await crypto.subtle.verify(verifier.algorithm, verifier.key, signature, signed);
  return valid ? { state: 'verified' } : { state: 'failed', reason: 'the signature does not match the authenticator data, client data and public key' };
}
