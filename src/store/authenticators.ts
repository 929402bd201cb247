// WebAuthn authenticators (table authenticators): a passkey's credential id (base64url), COSE
// public key and signature counter, for a user of an organization.
import type { Gate } from './gate.ts';
import { runWithCredential, type CredentialState, type CredentialUse } from './credentials.ts';
import type { Queryable } from './db.ts';
import { sql, type Sql } from './sql.ts';

export interface AuthenticatorRecord {
  id: string;
  organizationId: string;
  userId: string;
  userName: string;
  /** The user's contacts and times, for the votes (store/users.ts). */
  userEmail: string | null;
  userPhoneNumber: string | null;
  userCreatedAt: Date;
  userUpdatedAt: Date;
  credentialId: string;
  /** COSE public key. */
  publicKey: Uint8Array;
  signCount: number;
  revokedAt: Date | null;
}

interface AuthenticatorRow {
  id: string;
  organization_id: string;
  user_id: string;
  user_name: string;
  user_email: string | null;
  user_phone_number: string | null;
  user_created_at: Date;
  user_updated_at: Date;
  credential_id: string;
  /** Buffer from pg, Uint8Array from PGlite. */
  public_key: Uint8Array;
  sign_count: number | string;
  revoked_at: Date | null;
}

export async function findAuthenticator(db: Queryable, credentialId: string): Promise<AuthenticatorRecord | undefined> {
  const [row] = await db.query<AuthenticatorRow>(
    `SELECT a.id, a.organization_id, a.user_id, u.user_name, u.email AS user_email, u.phone_number AS user_phone_number,
            u.created_at AS user_created_at, u.updated_at AS user_updated_at, a.credential_id, a.public_key, a.sign_count, a.revoked_at
       FROM authenticators a JOIN users u ON u.id = a.user_id
      WHERE a.credential_id = $1`,
    [credentialId],
  );
  if (!row) return undefined;
  return {
    id: row.id,
    organizationId: row.organization_id,
    userId: row.user_id,
    userName: row.user_name,
    userEmail: row.user_email,
    userPhoneNumber: row.user_phone_number,
    userCreatedAt: row.user_created_at,
    userUpdatedAt: row.user_updated_at,
    credentialId: row.credential_id,
    publicKey: new Uint8Array(row.public_key),
    signCount: Number(row.sign_count),
    revokedAt: row.revoked_at,
  };
}

/** False when the credential id is already registered. */
export async function insertAuthenticator(
  db: Queryable,
  authenticator: {
    id: string;
    organizationId: string;
    userId: string;
    name: string;
    credentialId: string;
    publicKey: Uint8Array;
    signCount: number;
    transports: string[];
    aaguid: string;
  },
): Promise<boolean> {
  const a = authenticator;
  const inserted = await db.query(
    `INSERT INTO authenticators (id, organization_id, user_id, name, credential_id, public_key, sign_count, transports, aaguid)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (credential_id) DO NOTHING RETURNING id`,
    [a.id, a.organizationId, a.userId, a.name, a.credentialId, Buffer.from(a.publicKey), a.signCount, a.transports, a.aaguid],
  );
  return inserted.length === 1;
}

/** A new user's authenticator, registered by an activity (create_users) from a verified attestation. */
export interface NewAuthenticator {
  id: string;
  userId: string;
  name: string;
  credentialId: string;
  publicKey: Uint8Array;
  signCount: number;
  transports: string[];
  aaguid: string;
}

/** A row of an activity's statement (`activity` yields the activity's row): the authenticators, created at `now`. */
export function insertAuthenticatorsOfActivity(activity: Sql, organizationId: string, authenticators: NewAuthenticator[], now: Date): Sql {
  const rows = authenticators.map((a) => ({
    id: a.id,
    user_id: a.userId,
    name: a.name,
    credential_id: a.credentialId,
    public_key: Buffer.from(a.publicKey).toString('hex'),
    sign_count: a.signCount,
    transports: a.transports,
    aaguid: a.aaguid,
  }));
  return sql`INSERT INTO authenticators (id, organization_id, user_id, name, credential_id, public_key, sign_count, transports, aaguid, created_at)
             SELECT a.id, ${organizationId}::uuid, a.user_id, a.name, a.credential_id, decode(a.public_key, 'hex'), a.sign_count,
                    ARRAY(SELECT jsonb_array_elements_text(a.transports)), a.aaguid, ${now}::timestamptz
               FROM ${activity}, jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
                    AS a (id uuid, user_id uuid, name text, credential_id text, public_key text, sign_count bigint, transports jsonb, aaguid text)
             RETURNING id`;
}

/**
 * A Gate that writes nothing: it passes when none of these credential ids is registered (in any
 * organization: a credential id is unique); its detail lists those that are.
 */
export function credentialIdsFree(credentialIds: string[]): Gate {
  const taken = sql`SELECT a.credential_id FROM authenticators a WHERE a.credential_id = ANY(${credentialIds}::text[])`;
  return {
    statement: (proceed) => sql`SELECT 1 WHERE ${proceed} AND NOT EXISTS (${taken})`,
    detail: sql`(SELECT coalesce(json_agg(t.credential_id), '[]') FROM (${taken}) t)`,
  };
}

/**
 * A statement part that moves the counter to `signCount` and yields a row, when the authenticator
 * is not revoked and the counter grows (or stays 0 for authenticators without one): a
 * compare-and-set, so one assertion is used once, by one request, in any process.
 */
export function advanceSignCount(id: string, signCount: number): Sql {
  return sql`UPDATE authenticators SET sign_count = ${signCount}
              WHERE id = ${id}::uuid AND revoked_at IS NULL AND (sign_count < ${signCount} OR (${signCount}::bigint = 0 AND sign_count = 0))
             RETURNING id`;
}


/** The authenticator's revocation and counter as the store has them now. */
export async function authenticatorStateOf(db: Queryable, id: string): Promise<{ revokedAt: Date | null; signCount: number } | undefined> {
  const [row] = await db.query<{ revoked_at: Date | null; sign_count: number | string }>(
    'SELECT revoked_at, sign_count FROM authenticators WHERE id = $1',
    [id],
  );
  return row ? { revokedAt: row.revoked_at, signCount: Number(row.sign_count) } : undefined;
}


/** A passkey as the queries read it: not revoked; whose it is, but not its user's fields. */
export interface LiveAuthenticator {
  id: string;
  userId: string;
  name: string;
  /** base64url. */
  credentialId: string;
  /** The COSE public key, in hex. */
  publicKey: string;
  /** W3C values (internal, usb, nfc, ble, hybrid, …), as registered. */
  transports: string[];
  aaguid: string | null;
  createdAt: Date;
}

interface LiveAuthenticatorRow {
  id: string;
  user_id: string;
  name: string;
  credential_id: string;
  public_key: string;
  transports: string[];
  aaguid: string | null;
  created_at: Date | string;
}

function liveFromRow(row: LiveAuthenticatorRow): LiveAuthenticator {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    credentialId: row.credential_id,
    publicKey: row.public_key,
    transports: row.transports,
    aaguid: row.aaguid,
    createdAt: new Date(row.created_at),
  };
}

/** The authenticators that `filter` (a condition on `au`) keeps, not revoked; oldest first, `limit` at most. */
function liveAuthenticators(filter: Sql, limit: number): Sql {
  return sql`SELECT au.id, au.user_id, au.name, au.credential_id, encode(au.public_key, 'hex') AS public_key, au.transports, au.aaguid, au.created_at
               FROM authenticators au
              WHERE ${filter} AND au.revoked_at IS NULL
              ORDER BY au.created_at, au.id LIMIT ${limit}::int`;
}

/**
 * An expression: the authenticators (not revoked) of the user whose id is `userId` (an SQL
 * expression), oldest first, the first `limit`, as a JSON array liveAuthenticatorsFromJson reads.
 */
export function liveAuthenticatorsJson(userId: Sql, limit: number): Sql {
  return sql`(SELECT coalesce(json_agg(f ORDER BY f.created_at, f.id), '[]') FROM (${liveAuthenticators(sql`au.user_id = ${userId}`, limit)}) f)`;
}

/** The authenticators of liveAuthenticatorsJson as records. */
export function liveAuthenticatorsFromJson(json: unknown): LiveAuthenticator[] {
  return (json as LiveAuthenticatorRow[]).map(liveFromRow);
}

/** The user's authenticators (not revoked) in the organization, oldest first, the first `limit`, on behalf of a credential checked in the same statement. */
export async function listLiveAuthenticatorsFor(
  db: Queryable,
  use: CredentialUse,
  query: { organizationId: string; userId: string; limit: number },
): Promise<{ refused?: CredentialState; authenticators?: LiveAuthenticator[] }> {
  const { refused, rows } = await runWithCredential<LiveAuthenticatorRow>(
    db,
    use,
    liveAuthenticators(sql`au.organization_id = ${query.organizationId}::uuid AND au.user_id = ${query.userId}::uuid`, query.limit),
  );
  return refused ? { refused } : { authenticators: rows.map(liveFromRow) };
}

/** The organization's authenticator, when not revoked, on behalf of a credential checked in the same statement. */
export async function findLiveAuthenticatorFor(
  db: Queryable,
  use: CredentialUse,
  organizationId: string,
  authenticatorId: string,
): Promise<{ refused?: CredentialState; authenticator?: LiveAuthenticator }> {
  const { refused, rows } = await runWithCredential<LiveAuthenticatorRow>(
    db,
    use,
    liveAuthenticators(sql`au.id = ${authenticatorId}::uuid AND au.organization_id = ${organizationId}::uuid`, 1),
  );
  return refused ? { refused } : rows[0] ? { authenticator: liveFromRow(rows[0]) } : {};
}

/**
 * A guard condition: the user's authenticators not revoked, with `adding` more, are at most `max`.
 * Read in the statement, after the user's lock (store/apiKeys.ts lockUserApiKeys), so concurrent
 * registrations count each other's.
 */
export function userAuthenticatorsWithin(userId: string, adding: number, max: number): Sql {
  return sql`(SELECT count(*) FROM authenticators WHERE user_id = ${userId}::uuid AND revoked_at IS NULL) + ${adding}::int <= ${max}::int`;
}

/** A guard condition: the authenticator is the user's, of the organization, and not revoked. */
export function authenticatorOfUserNotRevoked(organizationId: string, userId: string, id: string): Sql {
  return sql`EXISTS (SELECT 1 FROM authenticators WHERE id = ${id}::uuid AND user_id = ${userId}::uuid
                        AND organization_id = ${organizationId}::uuid AND revoked_at IS NULL)`;
}

/**
 * A row of an activity's statement: revokes the user's authenticators `ids` at `now` (kept, since
 * votes name the credentials that stamped them); every later statement stamped with one refuses it.
 */
export function revokeAuthenticatorsOfActivity(activity: Sql, user: { organizationId: string; userId: string; ids: string[]; now: Date }): Sql {
  return sql`UPDATE authenticators SET revoked_at = ${user.now}::timestamptz
              WHERE id = ANY(${user.ids}::uuid[]) AND user_id = ${user.userId}::uuid AND organization_id = ${user.organizationId}::uuid
                AND revoked_at IS NULL AND EXISTS (SELECT 1 FROM ${activity})
             RETURNING id`;
}
