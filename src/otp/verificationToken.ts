// Verification tokens (verify_otp's result): the JWT signed with the service's ES256 key, and the
// JWKS entries that publish the keys. Pure: the keys are given.
import { randomUUID, type KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';

/** `iss` of every token; fixed until a deployment needs its own (then it becomes a setting). */
export const TOKEN_ISSUER = 'signet';
export const TOKEN_ALGORITHM = 'ES256';
/** signing_keys.purpose of the key that signs verification tokens. */
export const VERIFICATION_TOKEN_KEY = 'verification-token';

export interface VerificationClaims {
  otpId: string;
  contact: string;
  otpType: string;
  organizationId: string;
  /** The client's P-256 public key (hex), when verify_otp was given one. */
  publicKey?: string;
  issuedAt: Date;
  /** Token lifetime from `issuedAt`. */
  expirationSeconds: number;
}

/** A P-256 public key as a JWKS entry. */
export interface PublicJwk {
  kty: string;
  crv: string;
  x: string;
  y: string;
  kid: string;
  alg: string;
  use: 'sig';
}

/**
 * Signs a verification token with `key`. `sub` is the OTP id: what was proved is this one OTP flow,
 * and a contact as subject would name the same person identically in every organization; relying
 * parties read `contact`, `otp_type` and `organization_id` together.
 */
export async function signVerificationToken(key: { kid: string; privateKey: KeyObject }, claims: VerificationClaims): Promise<string> {
  const issuedAt = Math.floor(claims.issuedAt.getTime() / 1000);
  return new SignJWT({
    otp_id: claims.otpId,
    contact: claims.contact,
    otp_type: claims.otpType,
    organization_id: claims.organizationId,
    ...(claims.publicKey === undefined ? {} : { public_key: claims.publicKey }),
  })
    .setProtectedHeader({ alg: TOKEN_ALGORITHM, kid: key.kid, typ: 'JWT' })
    .setIssuer(TOKEN_ISSUER)
    .setSubject(claims.otpId)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + claims.expirationSeconds)
    .setJti(randomUUID())
    .sign(key.privateKey);
}

/** Stored verification-token keys as JWKS entries (retired ones still verify old tokens). */
export function publicJwks(keys: ReadonlyArray<{ kid: string; algorithm: string; publicJwk: { kty: string; crv: string; x: string; y: string } }>): PublicJwk[] {
  return keys.map(({ kid, algorithm, publicJwk: jwk }) => ({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y, kid, alg: algorithm, use: 'sig' }));
}
