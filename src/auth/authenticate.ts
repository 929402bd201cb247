// Turns a request's stamp into the Principal that signed it: verifies the signature, then checks that
// the credential is known, live and of the request's organization. API keys come from
// the credential cache when given one; the statements of the request check them again.
import type { VerifyingKey } from './authenticateAttested.ts';
import { apiKeyCredentialType, type Principal } from './principal.ts';
import { apiKeyExpired, apiKeyRevoked, authenticatorRevoked, permissionDenied, requestNotAuthorized, unauthenticated } from '../errors.ts';
import { advanceSignCount, authenticatorStateOf, findAuthenticator } from '../store/authenticators.ts';
import type { Queryable } from '../store/db.ts';
import { findOrganizationPlace } from '../store/organizations.ts';
import { run } from '../store/sql.ts';
import { findApiKeysByPublicKey } from '../store/apiKeys.ts';
import type { ApiKeyKind } from '../wire/credentialKind.ts';
import { authenticateAttested } from './authenticateAttested.ts';
import type { CredentialCache } from './credentialCache.ts';
import type { ApiKeyStamp, Stamp, WebAuthnStamp } from './parseStamp.ts';
import { rememberP256PublicKey } from '../keys/p256.ts';
import { verifyApiKeyStamp } from './verifyApiKeyStamp.ts';
import { verifyWebAuthnStamp } from './verifyWebAuthnStamp.ts';

export type { Principal } from './principal.ts';

export interface AuthenticateOptions {
  /** Origins a WebAuthn assertion may come from (SIGNET_WEBAUTHN_ORIGINS). */
  origins: string[];
  /** WebAuthn relying-party ID (SIGNET_WEBAUTHN_RP_ID). */
  rpId: string;
  /** The request's clock, for API key expiry. */
  now: Date;
  /** Where known credentials are kept between requests; without it every request looks them up. */
  cache?: CredentialCache;
  /**
   * A sub-organization's credential may be used with its parent's id (whoami, which tells the caller
   * about itself); everywhere else a sub-organization's credentials reach only their own organization.
   */
  fromSubOrganization?: boolean;
  /** The route takes a recovery key (recover_user); everywhere else one is refused, a 403. */
  recoveryKey?: boolean;
  /** The service's verification-token keys, which attested stamps (X-Stamp-Attested) are checked with; without them such stamps are refused. */
  verificationTokenKeys?: () => Promise<VerifyingKey[]>;
}

/**
 * 401 for a bad signature or an unknown, revoked or expired credential; 403 for a good credential of
 * another organization. A credential of the requested organization's parent is taken too: the
 * principal then is of the parent (its organizationId is the parent's). A WebAuthn assertion also
 * advances the credential's counter, once only; an attested stamp's token is used up by the login's
 * statement (authenticateAttested.ts).
 */
export async function authenticate(
  db: Queryable,
  body: Buffer,
  stamp: Stamp,
  organizationId: string,
  options: AuthenticateOptions,
): Promise<Principal> {
  switch (stamp.kind) {
    case 'apiKey':
      return authenticateApiKey(db, body, stamp, organizationId, options);
    case 'webauthn':
      return authenticateWebAuthn(db, body, stamp, organizationId, options);
    case 'attested': {
      const { verificationTokenKeys } = options;
      if (!verificationTokenKeys) throw unauthenticated('X-Stamp-Attested is not accepted here; stamp with X-Stamp or X-Stamp-WebAuthn', 'malformed');
      return authenticateAttested(db, body, stamp, organizationId, { now: options.now, verificationTokenKeys });
    }
  }
}

async function authenticateApiKey(
  db: Queryable,
  body: Buffer,
  stamp: ApiKeyStamp,
  organizationId: string,
  options: AuthenticateOptions,
): Promise<Principal> {
  // The signature first: it needs no database, so forged stamps cost no query.
  const { publicKey } = await verifyApiKeyStamp(body, stamp);
  const requested = organizationId.toLowerCase();
  // The organizations whose credentials may act in the requested one: itself, and its parent.
  const parent = await parentOf(db, requested, options);
  const reaching = parent ? [requested, parent] : [requested];
  const lookUp = () => (options.cache ? options.cache.apiKeysFor(db, publicKey, reaching) : findApiKeysByPublicKey(db, publicKey));
  let keys = await lookUp();
  let key = await keyFor(db, keys, requested, parent, options);
  // A remembered refusal is read again: a session key ends and lives again when its user logs in
  // once more with the same key pair.
  if (options.cache && key && refusalOf(key, publicKey, options.now)) {
    options.cache.forget({ publicKey });
    keys = await lookUp();
    key = await keyFor(db, keys, requested, parent, options);
  }
  if (keys.length === 0) {
    // The middle words are those @turnkey/core looks for to tell its app the session is gone.
    throw unauthenticated(
      `unknown API key: could not find public key in organization or its parent organization: no API key with ` +
        `public key ${publicKey} is registered; stamp with a key created by "signet org create" or ` +
        '"signet apikey create", or with the session key of an otp_login',
      'unknown_credential',
    );
  }
  if (!key) throw notOfOrganization(organizationId, 'API key');
  const refused = refusalOf(key, publicKey, options.now);
  if (refused) throw refused;
  if (key.kind === 'recovery' && !options.recoveryKey) {
    throw requestNotAuthorized(
      `the recovery key ${publicKey} stamps recover_user only (POST /public/v1/submit/recover_user, to add a passkey to its user); ` +
        'stamp this request with the passkey or another credential of the user',
    );
  }
  rememberP256PublicKey(stamp.publicKey);
  return {
    organizationId: key.organizationId,
    ...actingIn(key.organizationId, requested, parent),
    userId: key.userId,
    userName: key.userName,
    userEmail: key.userEmail,
    userPhoneNumber: key.userPhoneNumber,
    userCreatedAt: key.userCreatedAt,
    userUpdatedAt: key.userUpdatedAt,
    scheme: 'SIGNATURE_SCHEME_TK_API_P256',
    publicKey,
    signature: stamp.signature,
    credentialType: apiKeyCredentialType(key.kind),
    credential: { kind: 'apiKey', apiKeyId: key.id, now: options.now },
  };
}

async function authenticateWebAuthn(
  db: Queryable,
  body: Buffer,
  stamp: WebAuthnStamp,
  organizationId: string,
  options: AuthenticateOptions,
): Promise<Principal> {
  const registration = options.cache ? await options.cache.authenticatorFor(db, stamp.credentialId) : await findAuthenticator(db, stamp.credentialId);
  if (!registration) {
    throw unauthenticated(
      `unknown WebAuthn credential: no authenticator with credentialId ${stamp.credentialId} is registered; ` +
        'register the passkey with the admin API first',
      'unknown_credential',
    );
  }
  if (registration.revokedAt !== null) throw authenticatorRevoked(stamp.credentialId, registration.revokedAt);
  // The counter is judged where it is advanced, below: the library's own check is given 0.
  const { newSignCount } = await verifyWebAuthnStamp(
    body,
    stamp,
    { credentialId: stamp.credentialId, publicKey: registration.publicKey, signCount: 0 },
    options,
  );
  // Checked before the counter moves: a stamp for another organization must change nothing.
  const requested = organizationId.toLowerCase();
  const parent = await parentOf(db, requested, options);
  if (!(await reaches(db, registration.organizationId, requested, parent, options))) throw notOfOrganization(organizationId, 'passkey');

  // Compare-and-set, so two requests carrying the same assertion cannot both pass, on any process.
  const advanced = await run(db, advanceSignCount(registration.id, newSignCount));
  if (advanced.length === 0) {
    const state = await authenticatorStateOf(db, registration.id);
    options.cache?.forget({ credentialId: stamp.credentialId });
    if (state?.revokedAt) throw authenticatorRevoked(stamp.credentialId, state.revokedAt);
    const seen = state?.signCount ?? 0;
    // Valid when it was looked up, refused when set: another request used it in between.
    const raced = 'signCount' in registration && newSignCount > (registration as { signCount: number }).signCount;
    if (!raced && newSignCount <= seen && seen > 0) {
      throw unauthenticated(
        `counter went backwards: the authenticator's signature counter is ${newSignCount} but ${seen} was ` +
          'already seen; this assertion was replayed or the authenticator was cloned. Stamp a new request',
        'replayed',
      );
    }
    throw unauthenticated(
      `replayed assertion: the authenticator's counter ${newSignCount} was already used by another request; ` +
        'stamp the request again',
      'replayed',
    );
  }
  return {
    organizationId: registration.organizationId,
    ...actingIn(registration.organizationId, requested, parent),
    userId: registration.userId,
    userName: registration.userName,
    userEmail: registration.userEmail,
    userPhoneNumber: registration.userPhoneNumber,
    userCreatedAt: registration.userCreatedAt,
    userUpdatedAt: registration.userUpdatedAt,
    scheme: 'SIGNATURE_SCHEME_WEBAUTHN',
    publicKey: Buffer.from(registration.publicKey).toString('hex'),
    signature: stamp.signature,
    credentialId: stamp.credentialId,
    webauthn: { authenticatorData: stamp.authenticatorData, clientDataJson: stamp.clientDataJson },
    credentialType: 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR',
    credential: { kind: 'authenticator', authenticatorId: registration.id },
  };
}

/** The organization's parent (null for none, undefined for an unknown organization). */
function parentOf(db: Queryable, organizationId: string, options: AuthenticateOptions): Promise<string | null | undefined> {
  return options.cache ? options.cache.parentOf(db, organizationId) : findOrganizationPlace(db, organizationId).then((place) => place?.parentId);
}

/**
 * Whether a credential of organization `owner` may act in organization `requested`: its own, a
 * sub-organization of it (the parent's reach: the engine and the queries bound what it may do there),
 * or, where the route allows it (whoami, stamp_login), the parent of the sub-organization it belongs to.
 */
async function reaches(db: Queryable, owner: string, requested: string, parent: string | null | undefined, options: AuthenticateOptions): Promise<boolean> {
  if (owner === requested || owner === parent) return true;
  return options.fromSubOrganization === true && (await parentOf(db, owner, options)) === requested;
}

/**
 * A sub-organization's credential sent with its parent's id (where the route allows it) acts in its
 * own sub-organization (Principal.actsIn); any other credential acts in the requested organization.
 */
function actingIn(owner: string, requested: string, parent: string | null | undefined): { actsIn?: string } {
  return owner === requested || owner === parent ? {} : { actsIn: owner };
}

/**
 * The registration of the key that may act in the requested organization. A public key is registered
 * once per tree of organizations (a parent and its sub-organizations, where credentials reach), so at
 * most one reaches it, whichever process looks and whether or not it had the key cached; `keys` come
 * oldest first, so the choice is the same everywhere even so.
 */
async function keyFor<K extends { organizationId: string }>(
  db: Queryable,
  keys: K[],
  requested: string,
  parent: string | null | undefined,
  options: AuthenticateOptions,
): Promise<K | undefined> {
  const own = keys.find((key) => key.organizationId === requested);
  if (own) return own;
  for (const key of keys) if (await reaches(db, key.organizationId, requested, parent, options)) return key;
  return undefined;
}

/** Why an API key may not be used at `now` (revoked, then expired), or undefined when it may. */
function refusalOf(key: { revokedAt: Date | null; expiresAt: Date | null; kind: ApiKeyKind }, publicKey: string, now: Date) {
  if (key.revokedAt !== null) return apiKeyRevoked(publicKey, key.revokedAt, key.kind);
  if (key.expiresAt !== null && key.expiresAt.getTime() <= now.getTime()) return apiKeyExpired(publicKey, key.expiresAt, key.kind);
  return undefined;
}

function notOfOrganization(organizationId: string, credential: string) {
  const shown = organizationId.length > 64 ? `${organizationId.slice(0, 64)}…` : organizationId;
  return permissionDenied(
    'WRONG_ORGANIZATION',
    `this credential does not belong to organization ${shown}: the ${credential} is registered to a user ` +
      'of another organization; set organizationId to that organization or stamp with one of its credentials',
    'wrong_organization',
  );
}
