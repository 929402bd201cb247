// otp_login's clientSignature: the holder of the key a verification token is bound to signs which
// session key may log in with that token (the message core's getClientSignatureMessageForLogin builds).
import { verify } from 'node:crypto';
import { p256PointHex, parseP256PublicKey } from '../keys/p256.ts';
import { strictDerProblem } from '../keys/strictDer.ts';

export const CLIENT_SIGNATURE_SCHEME = 'CLIENT_SIGNATURE_SCHEME_API_P256';
export const LOGIN_USAGE_TYPE = 'USAGE_TYPE_LOGIN';
export const SIGNUP_USAGE_TYPE = 'USAGE_TYPE_SIGNUP';

/** Longest message read: the login message with an uncompressed key and a uuid is about 200 characters. */
const MAX_MESSAGE_LENGTH = 1024;
// Raw r‖s is 64 bytes, DER of two integers of at most 33 bytes at most 72; a few more are read so
// that a loose DER encoding gets its own reason.
const SIGNATURE_HEX = /^(?:[0-9a-fA-F]{2}){8,80}$/;
const FIELDS = ['message', 'publicKey', 'scheme', 'signature'];

/**
 * The JSON content of a client signature's message once the signature is checked: the shape
 * {publicKey, scheme, message, signature}, publicKey the token's key, the signature over message by
 * that key (raw r‖s or strict DER); or the first problem. `what` names the message to sign; a
 * message longer than `maxMessageLength` is not read.
 */
export function signedClientMessage(
  signature: unknown,
  tokenPublicKey: string,
  what: string,
  maxMessageLength = MAX_MESSAGE_LENGTH,
): { content: unknown } | { problem: string } {
  if (signature === null || typeof signature !== 'object' || Array.isArray(signature)) {
    return { problem: 'clientSignature must be an object {publicKey, scheme, message, signature}' };
  }
  const unknown = Object.keys(signature).find((name) => !FIELDS.includes(name));
  if (unknown !== undefined) return { problem: `clientSignature has an unknown field ${JSON.stringify(unknown.slice(0, 40))}; it has publicKey, scheme, message and signature` };
  const { publicKey, scheme, message, signature: value } = signature as Record<string, unknown>;
  for (const [name, field] of [['publicKey', publicKey], ['scheme', scheme], ['message', message], ['signature', value]] as const) {
    if (typeof field !== 'string' || field === '') return { problem: `clientSignature.${name} must be a non-empty string` };
  }
  if (scheme !== CLIENT_SIGNATURE_SCHEME) return { problem: `clientSignature.scheme must be ${CLIENT_SIGNATURE_SCHEME}` };

  const signer = p256PointHex(publicKey as string);
  if (!signer) return { problem: 'clientSignature.publicKey must be a P-256 public key in hex' };
  const tokenKey = p256PointHex(tokenPublicKey);
  if (!tokenKey) return { problem: 'the verification token is bound to no P-256 key, so no client signature can match it' };
  if (signer.compressed !== tokenKey.compressed) {
    return { problem: "clientSignature.publicKey must be the key the verification token is bound to (its public_key, the key given to verify_otp)" };
  }

  if ((message as string).length > maxMessageLength) return { problem: `clientSignature.message is longer than ${maxMessageLength} characters` };
  if (!SIGNATURE_HEX.test(value as string)) return { problem: 'clientSignature.signature must be hex: raw r‖s (128 characters) or DER (at most 144)' };
  const signatureBytes = Buffer.from(value as string, 'hex');
  // Raw when it has the raw length, DER when it is strict DER; both are tried when both hold (a
  // 64-byte DER signature is possible, if rare), since either way it is this key's signature.
  const derProblem = strictDerProblem(signatureBytes, 'P-256');
  const encodings: Array<'ieee-p1363' | 'der'> = [];
  if (signatureBytes.length === 64) encodings.push('ieee-p1363');
  if (derProblem === undefined) encodings.push('der');
  if (encodings.length === 0) return { problem: `clientSignature.signature is neither raw r‖s (64 bytes) nor valid DER: ${derProblem}` };
  const key = parseP256PublicKey(signer.compressed).key;
  const signed = Buffer.from(message as string, 'utf8');
  if (!encodings.some((dsaEncoding) => verify('sha256', signed, { key, dsaEncoding }, signatureBytes))) {
    return { problem: 'clientSignature.signature does not verify over clientSignature.message with clientSignature.publicKey' };
  }

  let content: unknown;
  try {
    content = JSON.parse(message as string);
  } catch {
    return { problem: `clientSignature.message is not JSON; sign ${what}` };
  }
  return { content };
}

/**
 * The first reason `signature` (otp_login's parameters.clientSignature) does not let the session key
 * log in with the verification token, or undefined when it does. It must be
 * {publicKey, scheme: CLIENT_SIGNATURE_SCHEME_API_P256, message, signature}, with publicKey the
 * token's public_key (compared as P-256 points, so case and SEC1 form do not matter), signature an
 * ECDSA P-256 SHA-256 signature over the UTF-8 bytes of message by that key, as raw r‖s hex
 * (what core sends) or strict DER hex (sdk-browser's default), and message the JSON
 * {login: {publicKey: sessionPublicKey}, tokenId: the token's id, type: USAGE_TYPE_LOGIN}.
 */
export function clientSignatureProblem(signature: unknown, expected: { tokenId: string; tokenPublicKey: string; sessionPublicKey: string }): string | undefined {
  const signed = signedClientMessage(signature, expected.tokenPublicKey, 'getClientSignatureMessageForLogin(...).message');
  if ('problem' in signed) return signed.problem;
  const { content } = signed;
  if (content === null || typeof content !== 'object' || Array.isArray(content)) return 'clientSignature.message must be a JSON object {login, tokenId, type}';
  const { login, tokenId, type } = content as Record<string, unknown>;
  if (Object.keys(content).some((name) => !['login', 'tokenId', 'type'].includes(name))) return 'clientSignature.message has fields besides login, tokenId and type';
  if (type !== LOGIN_USAGE_TYPE) return `clientSignature.message type must be ${LOGIN_USAGE_TYPE}`;
  if (tokenId !== expected.tokenId) return "clientSignature.message tokenId must be the verification token's id";
  if (login === null || typeof login !== 'object' || Array.isArray(login) || Object.keys(login).length !== 1 || typeof (login as { publicKey?: unknown }).publicKey !== 'string') {
    return 'clientSignature.message login must be {publicKey}';
  }
  const loginKey = p256PointHex((login as { publicKey: string }).publicKey);
  const sessionKey = p256PointHex(expected.sessionPublicKey);
  if (!loginKey || !sessionKey || loginKey.compressed !== sessionKey.compressed) {
    return 'clientSignature.message login.publicKey must be the publicKey this login asks a session for';
  }
  return undefined;
}
