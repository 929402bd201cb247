// Verification tokens (verify_otp's result): the JWT signed with the service's ES256 key, in
// Signet's first format and in the format @turnkey/crypto's verifyOtpVerificationToken reads; reading
// either back; and the JWKS entries that publish the keys. Pure: the keys are given.
import { randomUUID, sign, verify, type KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';
import { canonicalEmailAddress } from './contact.ts';
import { jwtSegment } from './jwtSegment.ts';

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
  const id = randomUUID();
  return new SignJWT({
    // `id` and `verification_type` as in the ecosystem's format, so its clients find the token's id.
    id,
    verification_type: claims.otpType,
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
    .setJti(id)
    .sign(key.privateKey);
}

/** Stored verification-token keys as JWKS entries (retired ones still verify old tokens). */
export function publicJwks(keys: ReadonlyArray<{ kid: string; algorithm: string; publicJwk: { kty: string; crv: string; x: string; y: string } }>): PublicJwk[] {
  return keys.map(({ kid, algorithm, publicJwk: jwk }) => ({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y, kid, alg: algorithm, use: 'sig' }));
}

/** What an ecosystem-format token states (the claims @turnkey/crypto requires, plus Signet's otp_id and iat). */
export interface EcosystemVerificationClaims {
  /** The token's own id (a uuid): otp_login consumes it once. */
  id: string;
  /** The OTP's otpType, e.g. OTP_TYPE_EMAIL. */
  verificationType: string;
  contact: string;
  organizationId: string;
  /** The client's P-256 key the token is bound to, hex as the client sent it (compressed in core's usage). */
  publicKey: string;
  expiresAt: Date;
  otpId: string;
  /** `iat`; now when not given. */
  issuedAt?: Date;
}

/**
 * Signs a verification token in the format of the hosted service, so @turnkey/crypto's
 * verifyOtpVerificationToken(token, <this key in hex>) and core's decoders accept it: header
 * {alg: ES256, typ: JWT, kid}; claims id, verification_type, contact, organization_id, public_key,
 * exp (a string of epoch milliseconds), plus otp_id and iat (epoch seconds); ES256 (one SHA-256
 * over `header.payload`, raw r‖s). Header and payload carry no - or _ (see jwtSegment.ts).
 */
export function signEcosystemVerificationToken(key: { kid: string; privateKey: KeyObject }, claims: EcosystemVerificationClaims): string {
  // The library requires each of these to be a non-empty string; a token without one is useless to clients.
  for (const [name, value] of Object.entries({ id: claims.id, verificationType: claims.verificationType, contact: claims.contact, organizationId: claims.organizationId, publicKey: claims.publicKey, otpId: claims.otpId })) {
    if (typeof value !== 'string' || value === '') throw new Error(`a verification token needs a non-empty ${name}`);
  }
  const expiresAtMs = claims.expiresAt.getTime();
  if (!Number.isSafeInteger(expiresAtMs) || expiresAtMs < 0) throw new Error('a verification token needs a valid expiresAt');
  const issuedAt = claims.issuedAt ?? new Date();
  const header = jwtSegment({ alg: TOKEN_ALGORITHM, typ: 'JWT', kid: key.kid });
  const payload = jwtSegment({
    id: claims.id,
    verification_type: claims.verificationType,
    contact: claims.contact,
    organization_id: claims.organizationId,
    public_key: claims.publicKey,
    exp: String(expiresAtMs),
    otp_id: claims.otpId,
    iat: Math.floor(issuedAt.getTime() / 1000),
  });
  const signingInput = `${header}.${payload}`;
  const signature = sign('sha256', Buffer.from(signingInput, 'ascii'), { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
  return `${signingInput}.${signature.toString('base64url')}`;
}

/** Tokens longer than this are refused unread (Signet's own are under 1 KiB). */
export const MAX_VERIFICATION_TOKEN_LENGTH = 8 * 1024;

/** A verification token's claims, whichever format it was issued in. */
export interface ReadVerificationClaims {
  /** The token's id: `id` in the ecosystem format, `jti` in Signet's first format. */
  id: string;
  otpId: string;
  /** `verification_type`, or `otp_type` in Signet's first format. */
  verificationType: string;
  contact: string;
  organizationId: string;
  /** The client key the token is bound to; always present in the ecosystem format. */
  publicKey?: string;
  expiresAt: Date;
}

export type VerificationTokenReading =
  | { claims: ReadVerificationClaims; format: 'ecosystem' | 'signet' }
  | { problem: string };

const SEGMENT = /^[A-Za-z0-9_-]+$/;
const EXP_MS = /^[0-9]{1,15}$/;

function segmentObject(segment: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function nonEmptyStrings(payload: Record<string, unknown>, names: string[]): string | undefined {
  const missing = names.find((name) => typeof payload[name] !== 'string' || payload[name] === '');
  return missing === undefined ? undefined : `its ${missing} claim is missing or not a non-empty string`;
}

/**
 * Verifies a verification token this service issued, in either format, and returns its claims;
 * or the first problem found. The signature is checked (over the token's own bytes) with the key
 * its header's `kid` names, or with any of `keys` when it names none; then the claims of its format
 * (told apart by `exp`: a string of milliseconds in the ecosystem format, a number of seconds in
 * Signet's first one) and that it has not expired at `now`. Problems never repeat token content.
 */
export function readVerificationToken(token: unknown, keys: ReadonlyArray<{ kid: string; publicKey: KeyObject }>, now: Date): VerificationTokenReading {
  if (typeof token !== 'string' || token === '') return { problem: 'the verification token must be a non-empty string' };
  if (token.length > MAX_VERIFICATION_TOKEN_LENGTH) return { problem: `the verification token is longer than ${MAX_VERIFICATION_TOKEN_LENGTH} characters` };
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((part) => SEGMENT.test(part))) {
    return { problem: 'the verification token must be a JWT: three base64url parts joined by dots' };
  }
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  const header = segmentObject(headerPart);
  if (!header) return { problem: 'the verification token header is not a JSON object' };
  if (header.alg !== TOKEN_ALGORITHM || header.typ !== 'JWT') return { problem: 'the verification token header must say alg ES256 and typ JWT' };
  if (header.kid !== undefined && typeof header.kid !== 'string') return { problem: 'the verification token header has a kid that is not a string' };
  const candidates = header.kid === undefined ? keys : keys.filter((key) => key.kid === header.kid);
  if (candidates.length === 0) return { problem: 'the verification token is signed with a key this service does not know' };
  const signature = Buffer.from(signaturePart, 'base64url');
  if (signature.length !== 64) return { problem: 'the verification token signature must be 64 bytes (r‖s)' };
  const signingInput = Buffer.from(`${headerPart}.${payloadPart}`, 'ascii');
  if (!candidates.some((key) => verify('sha256', signingInput, { key: key.publicKey, dsaEncoding: 'ieee-p1363' }, signature))) {
    return { problem: 'the verification token signature does not verify: it was changed or not issued by this service' };
  }

  const payload = segmentObject(payloadPart);
  if (!payload) return { problem: 'the verification token payload is not a JSON object' };
  let claims: ReadVerificationClaims;
  let format: 'ecosystem' | 'signet';
  if (typeof payload.exp === 'string') {
    const problem = nonEmptyStrings(payload, ['id', 'otp_id', 'verification_type', 'contact', 'organization_id', 'public_key']);
    if (problem) return { problem: `the verification token: ${problem}` };
    if (!EXP_MS.test(payload.exp)) return { problem: 'the verification token exp claim must be a string of epoch milliseconds' };
    format = 'ecosystem';
    claims = {
      id: payload.id as string,
      otpId: payload.otp_id as string,
      verificationType: payload.verification_type as string,
      contact: payload.contact as string,
      organizationId: payload.organization_id as string,
      publicKey: payload.public_key as string,
      expiresAt: new Date(Number(payload.exp)),
    };
  } else if (typeof payload.exp === 'number') {
    const problem = nonEmptyStrings(payload, ['jti', 'otp_id', 'otp_type', 'contact', 'organization_id']);
    if (problem) return { problem: `the verification token: ${problem}` };
    if (payload.iss !== TOKEN_ISSUER) return { problem: `the verification token iss claim must be ${TOKEN_ISSUER}` };
    if (!Number.isSafeInteger(payload.exp) || payload.exp < 0) return { problem: 'the verification token exp claim must be whole epoch seconds' };
    if (payload.public_key !== undefined && (typeof payload.public_key !== 'string' || payload.public_key === '')) {
      return { problem: 'the verification token public_key claim must be a non-empty string when present' };
    }
    format = 'signet';
    claims = {
      id: payload.jti as string,
      otpId: payload.otp_id as string,
      verificationType: payload.otp_type as string,
      contact: payload.contact as string,
      organizationId: payload.organization_id as string,
      ...(payload.public_key === undefined ? {} : { publicKey: payload.public_key as string }),
      expiresAt: new Date(payload.exp * 1000),
    };
  } else {
    return { problem: 'the verification token has no exp claim' };
  }
  // RFC 7519: a token must not be accepted on or after its expiration time.
  if (now.getTime() >= claims.expiresAt.getTime()) return { problem: 'the verification token has expired; verify a new code' };
  return { claims, format };
}

/** The contact a token's claims name, as users' contacts are stored (an SMS token's phone number, or an email). */
export function verifiedContact(claims: { verificationType: string; contact: string }): { email: string } | { phoneNumber: string } {
  // A token signed before contacts were stored in one form may name the email in another spelling.
  return claims.verificationType === 'OTP_TYPE_SMS' ? { phoneNumber: claims.contact } : { email: canonicalEmailAddress(claims.contact) };
}
