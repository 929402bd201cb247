// Read-only session tokens (create_read_only_session's `session`), which a client sends in the
// X-Session header, as the ecosystem's browser SDK sends its readOnlySession, to read (queries only)
// as its user until the session expires. A token is an ES256 JWT signed with the service's session
// key: header {alg: ES256, typ: JWT, kid}; claims session_type SESSION_TYPE_READ_ONLY, user_id,
// organization_id, iat and exp (epoch seconds), jti. Pure: the keys are given. Nothing of it is
// stored: a token is what it says, checked at each use against its user (removed, the session ends).
import { randomUUID, sign, verify, type KeyObject } from 'node:crypto';
import { jwtSegment } from './jwtSegment.ts';

export const READ_ONLY_SESSION_TYPE = 'SESSION_TYPE_READ_ONLY';
/** Longest X-Session value read (a token Signet writes is under 500 characters). */
export const MAX_READ_ONLY_SESSION_LENGTH = 2048;

export interface ReadOnlySessionClaims {
  userId: string;
  organizationId: string;
  /** Written as whole epoch seconds, rounded down. */
  expiresAt: Date;
}

/** Signs a read-only session token for the user with `key` (the service's session key). */
export function signReadOnlySession(key: { kid: string; privateKey: KeyObject }, claims: ReadOnlySessionClaims, now: Date): string {
  const exp = Math.floor(claims.expiresAt.getTime() / 1000);
  if (!Number.isSafeInteger(exp) || exp <= 0) throw new Error('a read-only session needs a valid expiresAt');
  const header = jwtSegment({ alg: 'ES256', typ: 'JWT', kid: key.kid });
  const payload = jwtSegment({
    session_type: READ_ONLY_SESSION_TYPE,
    user_id: claims.userId,
    organization_id: claims.organizationId,
    iat: Math.floor(now.getTime() / 1000),
    exp,
    jti: randomUUID(),
  });
  const signingInput = `${header}.${payload}`;
  const signature = sign('sha256', Buffer.from(signingInput, 'ascii'), { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
  return `${signingInput}.${signature.toString('base64url')}`;
}

/** Why a token is refused: `malformed` (not a token of this form), `signature` (changed, or not this service's), `expired`. */
export type ReadOnlySessionProblem = { problem: string; kind: 'malformed' | 'signature' | 'expired' };
export type ReadOnlySessionReading = { claims: ReadOnlySessionClaims } | ReadOnlySessionProblem;

const SEGMENT = /^[A-Za-z0-9_-]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function segmentObject(segment: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads an X-Session token: its signature by one of `keys` (the session key's kid), its type, its
 * claims, and its expiry at `now`. The problems never repeat the token.
 */
export function readReadOnlySession(token: string, keys: ReadonlyArray<{ kid: string; publicKey: KeyObject }>, now: Date): ReadOnlySessionReading {
  const malformed = (what: string): ReadOnlySessionProblem => ({ kind: 'malformed', problem: `X-Session ${what}; send the session that create_read_only_session returned, unchanged` });
  if (token.length === 0 || token.length > MAX_READ_ONLY_SESSION_LENGTH) return malformed(`must be 1 to ${MAX_READ_ONLY_SESSION_LENGTH} characters`);
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((part) => SEGMENT.test(part))) return malformed('is not a read-only session token (three base64url parts joined by dots)');
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  const header = segmentObject(headerPart);
  if (!header || header.alg !== 'ES256' || header.typ !== 'JWT' || typeof header.kid !== 'string') return malformed('has a header that is not {alg: ES256, typ: JWT, kid}');
  const key = keys.find((candidate) => candidate.kid === header.kid);
  const signature = Buffer.from(signaturePart, 'base64url');
  if (!key || signature.length !== 64 || !verify('sha256', Buffer.from(`${headerPart}.${payloadPart}`, 'ascii'), { key: key.publicKey, dsaEncoding: 'ieee-p1363' }, signature)) {
    return { kind: 'signature', problem: 'X-Session: the read-only session does not verify: it was changed or not issued by this service; create a new one with create_read_only_session' };
  }
  const payload = segmentObject(payloadPart);
  if (!payload || payload.session_type !== READ_ONLY_SESSION_TYPE) return malformed(`is not a ${READ_ONLY_SESSION_TYPE} session`);
  const { user_id: userId, organization_id: organizationId, exp } = payload;
  if (typeof userId !== 'string' || !UUID.test(userId) || typeof organizationId !== 'string' || !UUID.test(organizationId)) return malformed('names no user and organization');
  if (typeof exp !== 'number' || !Number.isSafeInteger(exp) || exp <= 0) return malformed('has no expiry');
  const expiresAt = new Date(exp * 1000);
  if (expiresAt.getTime() <= now.getTime()) {
    return { kind: 'expired', problem: `X-Session: the read-only session expired at ${expiresAt.toISOString()}; create a new one with create_read_only_session` };
  }
  return { claims: { userId, organizationId, expiresAt } };
}
