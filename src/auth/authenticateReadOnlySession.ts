// Authenticates a query sent with a read-only session (the X-Session header, create_read_only_session's
// token, as the ecosystem's browser SDK sends its readOnlySession) and no stamp: the token is one
// Signet signed, of SESSION_TYPE_READ_ONLY, unexpired, and of the body's organization or its parent
// (the parent's reach, as for its credentials); the principal is its user. The query's statement
// checks again that the user is still there and the session unexpired (store/credentials.ts). Only
// the query routes call this: an activity sent so is refused before (READ_ONLY_SESSION).
import type { VerifyingKey } from './authenticateAttested.ts';
import type { CredentialCache } from './credentialCache.ts';
import { READ_ONLY_SESSION, type Principal } from './principal.ts';
import { credentialRefused, permissionDenied, unauthenticated } from '../errors.ts';
import { readReadOnlySession } from '../otp/readOnlySession.ts';
import type { Queryable } from '../store/db.ts';
import { findOrganizationPlace } from '../store/organizations.ts';
import { findUser } from '../store/users.ts';

/** The request header that carries a read-only session. */
export const READ_ONLY_SESSION_HEADER = 'X-Session';

type Headers = Record<string, string | string[] | undefined>;
const STAMP_HEADERS = ['x-stamp', 'x-stamp-webauthn', 'x-stamp-attested'];

/**
 * The X-Session token of a request that carries no stamp, or undefined: a request with a stamp is
 * the stamp's (the browser SDK may send both), one without either is told of the missing stamp.
 */
export function readOnlySessionOf(headers: Headers): string | undefined {
  if (STAMP_HEADERS.some((name) => headers[name] !== undefined)) return undefined;
  const value = headers['x-session'];
  if (value === undefined) return undefined;
  if (Array.isArray(value)) throw unauthenticated(`${READ_ONLY_SESSION_HEADER} was sent ${value.length} times; send it once`, 'malformed');
  return value;
}

/**
 * 401 for a token that is malformed, not Signet's, expired, or whose user was removed; 403 for a
 * session of another organization than the body's (or its parent).
 */
export async function authenticateReadOnlySession(
  db: Queryable,
  token: string,
  organizationId: string,
  options: { now: Date; sessionKeys: () => Promise<VerifyingKey[]>; cache?: CredentialCache },
): Promise<Principal> {
  // The signature first: it needs no database, so forged tokens cost no query.
  const reading = readReadOnlySession(token, await options.sessionKeys(), options.now);
  if ('problem' in reading) {
    const failure = reading.kind === 'malformed' ? 'malformed' : reading.kind === 'signature' ? 'bad_signature' : 'expired';
    throw unauthenticated(reading.problem, failure, reading.kind === 'expired' ? 'SESSION_EXPIRED' : undefined);
  }
  const { userId, organizationId: sessionOrganization, expiresAt } = reading.claims;
  const requested = organizationId.toLowerCase();
  if (sessionOrganization !== requested) {
    const parent = options.cache ? await options.cache.parentOf(db, requested) : (await findOrganizationPlace(db, requested))?.parentId;
    if (parent !== sessionOrganization) {
      const shown = organizationId.length > 64 ? `${organizationId.slice(0, 64)}…` : organizationId;
      throw permissionDenied(
        'WRONG_ORGANIZATION',
        `${READ_ONLY_SESSION_HEADER}: the read-only session is of organization ${sessionOrganization}, not ${shown}; set organizationId to that organization`,
        'wrong_organization',
      );
    }
  }
  const credential = { kind: 'readOnlySession' as const, organizationId: sessionOrganization, userId, expiresAt, now: options.now };
  const user = await findUser(db, sessionOrganization, userId);
  // A removed user's session ends with it: worded as the query's statement would word it.
  if (!user) throw credentialRefused({ scheme: READ_ONLY_SESSION, publicKey: '' }, { revokedAt: options.now, readOnlySession: true }, options.now);
  return {
    organizationId: sessionOrganization,
    userId,
    userName: user.userName,
    userEmail: user.email,
    userPhoneNumber: user.phoneNumber,
    userCreatedAt: user.createdAt,
    userUpdatedAt: user.updatedAt,
    scheme: READ_ONLY_SESSION,
    publicKey: '',
    signature: '',
    credentialType: READ_ONLY_SESSION,
    credential,
  };
}
