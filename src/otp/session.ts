// Session JWTs (otp_login's result) in the hosted service's format: @turnkey/crypto's
// verifySessionJwtSignature checks them and the client libraries' parseSession reads their claims.
import { createHash, sign, type KeyObject } from 'node:crypto';
import { jwtSegment } from './jwtSegment.ts';

export type SessionType = 'SESSION_TYPE_READ_WRITE' | 'SESSION_TYPE_READ_ONLY';

export interface SessionClaims {
  /** The session key, exactly as the client sent it: clients look their key pair up by this string. */
  publicKey: string;
  userId: string;
  organizationId: string;
  /** Written as whole epoch seconds, rounded down (the clients read `exp` as seconds). */
  expiresAt: Date;
  /** SESSION_TYPE_READ_WRITE when not given. */
  sessionType?: SessionType;
}

/**
 * Signs a session JWT: header {alg: ES256, typ: JWT}; claims exp (epoch seconds, a number),
 * public_key, session_type, user_id, organization_id; no - or _ in header and payload (see
 * jwtSegment.ts). The signature is raw r‖s over sha256(sha256(`header.payload`)): the hosted
 * service's signer hashes a digest again, and verifySessionJwtSignature checks exactly that, so a
 * standard ES256 signature would not pass.
 */
export function signSession(key: { privateKey: KeyObject }, claims: SessionClaims): string {
  // parseSession in core and sdk-browser requires each claim to be truthy.
  for (const [name, value] of Object.entries({ publicKey: claims.publicKey, userId: claims.userId, organizationId: claims.organizationId })) {
    if (typeof value !== 'string' || value === '') throw new Error(`a session needs a non-empty ${name}`);
  }
  const exp = Math.floor(claims.expiresAt.getTime() / 1000);
  if (!Number.isSafeInteger(exp) || exp <= 0) throw new Error('a session needs a valid expiresAt');
  const header = jwtSegment({ alg: 'ES256', typ: 'JWT' });
  const payload = jwtSegment({
    exp,
    public_key: claims.publicKey,
    session_type: claims.sessionType ?? 'SESSION_TYPE_READ_WRITE',
    user_id: claims.userId,
    organization_id: claims.organizationId,
  });
  const signingInput = `${header}.${payload}`;
  const firstDigest = createHash('sha256').update(signingInput, 'ascii').digest();
  // sign('sha256', …) hashes once more: the signature is over sha256(firstDigest).
  const signature = sign('sha256', firstDigest, { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
  return `${signingInput}.${signature.toString('base64url')}`;
}
