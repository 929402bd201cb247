// Turns a request's stamp into the Principal that signed it: verifies the signature, then checks that
// the credential is known, live and of the request's organization (DESIGN §2.2).
import { permissionDenied, unauthenticated } from '../errors.ts';
import type { Queryable } from '../store/db.ts';
import type { ApiKeyStamp, Stamp, WebAuthnStamp } from './parseStamp.ts';
import { rememberP256PublicKey } from './publicKey.ts';
import { verifyApiKeyStamp } from './verifyApiKeyStamp.ts';
import { verifyWebAuthnStamp } from './verifyWebAuthnStamp.ts';

export interface Principal {
  organizationId: string;
  userId: string;
  userName: string;
  scheme: 'SIGNATURE_SCHEME_TK_API_P256' | 'SIGNATURE_SCHEME_WEBAUTHN';
  /** hex: the compressed P-256 key for API keys; for WebAuthn the hex of the stored COSE key. */
  publicKey: string;
  /** As sent in the stamp (hex DER for API keys, base64url for WebAuthn). */
  signature: string;
  /** base64url, WebAuthn only. */
  credentialId?: string;
}

export interface AuthenticateOptions {
  /** Origins a WebAuthn assertion may come from (SIGNET_WEBAUTHN_ORIGINS). */
  origins: string[];
  /** WebAuthn relying-party ID (SIGNET_WEBAUTHN_RP_ID). */
  rpId: string;
  /** The request's clock, for API key expiry. */
  now: Date;
}

/**
 * 401 for a bad signature or an unknown, revoked or expired credential; 403 for a good credential of
 * another organization. A WebAuthn assertion also advances the credential's counter, once only.
 */
export async function authenticate(
  db: Queryable,
  body: Buffer,
  stamp: Stamp,
  organizationId: string,
  options: AuthenticateOptions,
): Promise<Principal> {
  return stamp.kind === 'apiKey'
    ? authenticateApiKey(db, body, stamp, organizationId, options.now)
    : authenticateWebAuthn(db, body, stamp, organizationId, options);
}

interface ApiKeyRow {
  organization_id: string;
  user_id: string;
  user_name: string;
  expires_at: Date | null;
  revoked_at: Date | null;
}

async function authenticateApiKey(
  db: Queryable,
  body: Buffer,
  stamp: ApiKeyStamp,
  organizationId: string,
  now: Date,
): Promise<Principal> {
  // The signature first: it needs no database, so forged stamps cost no query.
  const { publicKey } = verifyApiKeyStamp(body, stamp);
  // The organization is compared here, not in SQL, so a malformed id cannot become a database error.
  const rows = await db.query<ApiKeyRow>(
    `SELECT k.organization_id::text AS organization_id, k.user_id::text AS user_id, u.user_name,
            k.expires_at, k.revoked_at
       FROM api_keys k JOIN users u ON u.id = k.user_id
      WHERE k.public_key = $1`,
    [publicKey],
  );
  if (rows.length === 0) {
    throw unauthenticated(
      `unknown API key: no API key with public key ${publicKey} is registered; stamp with a key created ` +
        'by "signet org create" or "signet apikey create"',
      'unknown_credential',
    );
  }
  const key = rows.find((row) => row.organization_id === organizationId.toLowerCase());
  if (!key) throw notOfOrganization(organizationId, 'API key');
  if (key.revoked_at !== null) {
    throw unauthenticated(
      `API key revoked: the API key ${publicKey} was revoked at ${key.revoked_at.toISOString()}; create a new API key`,
      'revoked',
    );
  }
  if (key.expires_at !== null && key.expires_at.getTime() <= now.getTime()) {
    throw unauthenticated(
      `API key expired: the API key ${publicKey} expired at ${key.expires_at.toISOString()}; create a new API key`,
      'expired',
    );
  }
  rememberP256PublicKey(stamp.publicKey);
  return {
    organizationId: key.organization_id,
    userId: key.user_id,
    userName: key.user_name,
    scheme: 'SIGNATURE_SCHEME_TK_API_P256',
    publicKey,
    signature: stamp.signature,
  };
}

interface AuthenticatorRow {
  id: string;
  organization_id: string;
  user_id: string;
  user_name: string;
  /** Buffer from pg, Uint8Array from PGlite. */
  public_key: Uint8Array;
  sign_count: number | string;
  revoked_at: Date | null;
}

async function authenticateWebAuthn(
  db: Queryable,
  body: Buffer,
  stamp: WebAuthnStamp,
  organizationId: string,
  options: AuthenticateOptions,
): Promise<Principal> {
  const [row] = await db.query<AuthenticatorRow>(
    `SELECT a.id::text AS id, a.organization_id::text AS organization_id, a.user_id::text AS user_id,
            u.user_name, a.public_key, a.sign_count, a.revoked_at
       FROM authenticators a JOIN users u ON u.id = a.user_id
      WHERE a.credential_id = $1`,
    [stamp.credentialId],
  );
  if (!row) {
    throw unauthenticated(
      `unknown WebAuthn credential: no authenticator with credentialId ${stamp.credentialId} is registered; ` +
        'register the passkey with the admin API first',
      'unknown_credential',
    );
  }
  if (row.revoked_at !== null) {
    throw unauthenticated(
      `WebAuthn credential revoked: the authenticator ${stamp.credentialId} was revoked at ` +
        `${row.revoked_at.toISOString()}; register a new passkey`,
      'revoked',
    );
  }
  const publicKey = new Uint8Array(row.public_key);
  const signCount = Number(row.sign_count);
  const { newSignCount } = await verifyWebAuthnStamp(
    body,
    stamp,
    { credentialId: stamp.credentialId, publicKey, signCount },
    options,
  );
  // Checked before the counter moves: a stamp for another organization must change nothing.
  if (row.organization_id !== organizationId.toLowerCase()) throw notOfOrganization(organizationId, 'passkey');

  // Compare-and-set, so two requests carrying the same assertion cannot both pass, on any process.
  const advanced = await db.query(
    `UPDATE authenticators SET sign_count = $1
      WHERE id = $2 AND (sign_count < $1 OR ($1 = 0 AND sign_count = 0))
      RETURNING id`,
    [newSignCount, row.id],
  );
  if (advanced.length === 0) {
    throw unauthenticated(
      `replayed assertion: the authenticator's counter ${newSignCount} was already used by another request; ` +
        'stamp the request again',
      'replayed',
    );
  }
  return {
    organizationId: row.organization_id,
    userId: row.user_id,
    userName: row.user_name,
    scheme: 'SIGNATURE_SCHEME_WEBAUTHN',
    publicKey: Buffer.from(publicKey).toString('hex'),
    signature: stamp.signature,
    credentialId: stamp.credentialId,
  };
}

function notOfOrganization(organizationId: string, credential: string) {
  const shown = organizationId.length > 64 ? `${organizationId.slice(0, 64)}…` : organizationId;
  return permissionDenied(
    `this credential does not belong to organization ${shown}: the ${credential} is registered to a user ` +
      'of another organization; set organizationId to that organization or stamp with one of its credentials',
    'wrong_organization',
  );
}
