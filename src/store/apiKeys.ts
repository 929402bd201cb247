// API keys (table api_keys): P-256 public keys (compressed SEC1, lowercase hex) that stamp requests
// for a user of an organization, until revoked or expired. Session keys are API keys too: otp_login
// registers them (kind 'session'), with the session's expiry; so are otp_auth's keys (kind 'otp_auth').
import type { Gate } from './gate.ts';
import type { ApiKeyKind } from '../wire/credentialKind.ts';
import { runWithCredential, type CredentialState, type CredentialUse } from './credentials.ts';
import type { Queryable } from './db.ts';
import { selectPage, type Page, type PageRequest } from './pages.ts';
import { run, sql, type Sql } from './sql.ts';


export interface ApiKeyRecord {
  id: string;
  organizationId: string;
  userId: string;
  userName: string;
  /** The user's contacts and times, for the votes (store/users.ts). */
  userEmail: string | null;
  userPhoneNumber: string | null;
  userCreatedAt: Date;
  userUpdatedAt: Date;
  /** Compressed SEC1, lowercase hex. */
  publicKey: string;
  expiresAt: Date | null;
  revokedAt: Date | null;
  kind: ApiKeyKind;
}

interface ApiKeyRow {
  id: string;
  organization_id: string;
  user_id: string;
  user_name: string;
  user_email: string | null;
  user_phone_number: string | null;
  user_created_at: Date;
  user_updated_at: Date;
  public_key: string;
  expires_at: Date | null;
  revoked_at: Date | null;
  kind: ApiKeyKind;
}

/**
 * Every registration of a public key, with its user: one per tree of organizations at most (a
 * top-level organization and its sub-organizations, where a key reaches), so at most one reaches any
 * organization; oldest first, the same order in every process.
 */
export async function findApiKeysByPublicKey(db: Queryable, publicKey: string): Promise<ApiKeyRecord[]> {
  const rows = await db.query<ApiKeyRow>(
    `SELECT k.id, k.organization_id, k.user_id, u.user_name, u.email AS user_email, u.phone_number AS user_phone_number,
            u.created_at AS user_created_at, u.updated_at AS user_updated_at, k.public_key, k.expires_at, k.revoked_at, k.kind
       FROM api_keys k JOIN users u ON u.id = k.user_id
      WHERE k.public_key = $1 AND k.tree_id IS NOT NULL
      ORDER BY k.created_at, k.id`,
    [publicKey],
  );
  return rows.map((row) => ({
    id: row.id,
    organizationId: row.organization_id,
    userId: row.user_id,
    userName: row.user_name,
    userEmail: row.user_email,
    userPhoneNumber: row.user_phone_number,
    userCreatedAt: row.user_created_at,
    userUpdatedAt: row.user_updated_at,
    publicKey: row.public_key,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    kind: row.kind,
  }));
}

/** False when the public key is already registered in the organization's tree (its own, its parent's, its sub-organizations'). */
export async function insertApiKey(
  db: Queryable,
  key: { id: string; organizationId: string; userId: string; name: string; publicKey: string; expiresAt: Date | null },
): Promise<boolean> {
  // A concurrent registration of the key in the tree, committed after this statement's snapshot, is
  // refused by the tree's unique index: nothing is inserted then either.
  const inserted = await run(
    db,
    sql`INSERT INTO api_keys (id, organization_id, user_id, name, public_key, expires_at)
        SELECT ${key.id}::uuid, ${key.organizationId}::uuid, ${key.userId}::uuid, ${key.name}, ${key.publicKey}, ${key.expiresAt}::timestamptz
         WHERE NOT EXISTS (SELECT 1 FROM api_keys k WHERE k.tree_id = ${treeOf(key.organizationId)} AND k.public_key = ${key.publicKey})
        ON CONFLICT DO NOTHING RETURNING id`,
  );
  return inserted.length === 1;
}

/** A new user's API key, registered by an activity (create_users). */
export interface NewApiKey {
  id: string;
  userId: string;
  name: string;
  /** Compressed SEC1, lowercase hex. */
  publicKey: string;
  expiresAt: Date | null;
  /** 'api_key' when left out. */
  kind?: ApiKeyKind;
}

/**
 * A row of an activity's statement (`activity` yields the activity's row): the keys, created at `now`.
 * Their tree is their organization's, or `treeId` (a sub-organization written by the same statement:
 * its parent).
 */
export function insertApiKeysOfActivity(activity: Sql, organizationId: string, keys: NewApiKey[], now: Date, treeId?: string): Sql {
  const rows = keys.map((k) => ({
    id: k.id,
    user_id: k.userId,
    name: k.name,
    public_key: k.publicKey,
    expires_at: k.expiresAt?.toISOString() ?? null,
    kind: k.kind ?? 'api_key',
  }));
  return sql`INSERT INTO api_keys (id, organization_id, user_id, name, public_key, expires_at, kind, created_at, tree_id)
             SELECT k.id, ${organizationId}::uuid, k.user_id, k.name, k.public_key, k.expires_at, k.kind, ${now}::timestamptz,
                    ${treeId ?? null}::uuid
               FROM ${activity}, jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
                    AS k (id uuid, user_id uuid, name text, public_key text, expires_at timestamptz, kind text)
             RETURNING id`;
}

/**
 * An expression: the tree of organizations the organization belongs to, where its keys reach: its
 * parent, or itself when it has none (api_keys.tree_id).
 */
function treeOf(organizationId: string): Sql {
  return sql`(SELECT coalesce(o.parent_id, o.id) FROM organizations o WHERE o.id = ${organizationId}::uuid)`;
}

/**
 * A Gate that writes nothing: it passes when no organization of the tree of `organizationId` (it,
 * its parent, their sub-organizations) has any of these public keys (compressed hex), revoked ones
 * included; its detail lists those taken.
 */
export function apiKeysFree(organizationId: string, publicKeys: string[]): Gate {
  const taken = sql`SELECT k.public_key FROM api_keys k
                     WHERE k.tree_id = ${treeOf(organizationId)} AND k.public_key = ANY(${publicKeys}::text[])`;
  return {
    statement: (proceed) => sql`SELECT 1 WHERE ${proceed} AND NOT EXISTS (${taken})`,
    detail: sql`(SELECT coalesce(json_agg(t.public_key), '[]') FROM (${taken}) t)`,
  };
}

/** An API key as an operator lists it: no user, just whose it is. */
export interface ListedApiKey {
  id: string;
  userId: string;
  name: string;
  /** Compressed SEC1, lowercase hex. */
  publicKey: string;
  kind: ApiKeyKind;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

/** The organization's API keys (session keys and revoked ones included), newest first, in pages; of one user when `userId` is given. */
export async function listApiKeys(db: Queryable, organizationId: string, page: PageRequest, userId?: string): Promise<Page<ListedApiKey>> {
  const found = await selectPage<{
    id: string;
    user_id: string;
    name: string;
    public_key: string;
    kind: ApiKeyKind;
    created_at: Date;
    expires_at: Date | null;
    revoked_at: Date | null;
  }>(
    db,
    {
      table: 'api_keys',
      columns: sql`a.id, a.user_id, a.name, a.public_key, a.kind, a.created_at, a.expires_at, a.revoked_at`,
      organizationId,
      ...(userId !== undefined ? { where: [sql`a.user_id = ${userId}::uuid`] } : {}),
      size: sql`512 + octet_length(a.name)`,
    },
    page,
  );
  return {
    ...found,
    rows: found.rows.map((r) => ({
      id: r.id,
      userId: r.user_id,
      name: r.name,
      publicKey: r.public_key,
      kind: r.kind,
      createdAt: r.created_at,
      expiresAt: r.expires_at,
      revokedAt: r.revoked_at,
    })),
  };
}

/** Revokes at once (keeping the first revocation time); undefined when the organization has no such key. */
export async function revokeApiKey(db: Queryable, organizationId: string, id: string): Promise<Date | undefined> {
  const [row] = await db.query<{ revoked_at: Date }>(
    `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now())
      WHERE id = $1 AND organization_id = $2 RETURNING revoked_at`,
    [id, organizationId],
  );
  return row?.revoked_at;
}



/**
 * A guard condition: `publicKey` may become a session key of the user, being no key of the
 * organization's tree yet (its own, its parent's, their sub-organizations'), or already a session key
 * of this same user (a client that keeps its key pair logs in again with it).
 */
export function sessionKeyAvailable(organizationId: string, userId: string, publicKey: string): Sql {
  return sql`NOT EXISTS (SELECT 1 FROM api_keys
                          WHERE tree_id = ${treeOf(organizationId)}
                            AND public_key = ${publicKey}
                            AND NOT (organization_id = ${organizationId}::uuid AND kind = 'session' AND user_id = ${userId}::uuid))`;
}

/**
 * A row of the activity's statement: registers the session key of the user until `expiresAt`, or,
 * when it is already the user's session key, makes it live again until then.
 */
export function registerSessionKey(
  activity: Sql,
  key: { id: string; organizationId: string; userId: string; publicKey: string; expiresAt: Date; now: Date },
): Sql {
  return sql`INSERT INTO api_keys (id, organization_id, user_id, name, public_key, expires_at, kind, created_at)
             SELECT ${key.id}::uuid, ${key.organizationId}::uuid, ${key.userId}::uuid, 'session', ${key.publicKey},
                    ${key.expiresAt}::timestamptz, 'session', ${key.now}::timestamptz
               FROM ${activity}
             ON CONFLICT (organization_id, public_key) DO UPDATE SET expires_at = EXCLUDED.expires_at, revoked_at = NULL
              WHERE api_keys.kind = 'session' AND api_keys.user_id = EXCLUDED.user_id
             RETURNING id`;
}

/**
 * A lock (ActivityPlan.locks) on the user's row, held until the activity commits, that an activity
 * counting or replacing the user's keys takes (a login ending the user's other sessions, a creation
 * of API keys bounded in number): concurrent ones then run one after another, each seeing the keys
 * the others committed, whatever the process. NO KEY: inserts that reference the user (its keys,
 * its activities) are not held up.
 */
export function lockUserApiKeys(organizationId: string, userId: string): Sql {
  return sql`SELECT id FROM users WHERE id = ${userId}::uuid AND organization_id = ${organizationId}::uuid FOR NO KEY UPDATE`;
}

/**
 * A guard condition: the user's live API keys (kind 'api_key', not revoked) that expire (`expiring`:
 * an expiry after `now`) or do not, with `adding` more, are at most `max`. Read in the statement,
 * after lockUserApiKeys, so concurrent creations count each other's keys.
 */
export function userApiKeysWithin(userId: string, now: Date, expiring: boolean, adding: number, max: number): Sql {
  const lifetime = expiring ? sql`expires_at IS NOT NULL AND expires_at > ${now}::timestamptz` : sql`expires_at IS NULL`;
  return sql`(SELECT count(*) FROM api_keys WHERE user_id = ${userId}::uuid AND kind = 'api_key' AND revoked_at IS NULL
                AND ${lifetime}) + ${adding}::int <= ${max}::int`;
}

/** A guard condition: the key is the user's, of the organization, and not revoked (expired or not; a session key too). */
export function apiKeyOfUserNotRevoked(organizationId: string, userId: string, id: string): Sql {
  return sql`EXISTS (SELECT 1 FROM api_keys WHERE id = ${id}::uuid AND user_id = ${userId}::uuid
                        AND organization_id = ${organizationId}::uuid AND revoked_at IS NULL)`;
}

/**
 * A row of the activity's statement: revokes the user's keys `ids` at `now` (never deleted: votes
 * name the keys that stamped them). Every later statement stamped with one of them refuses it.
 */
export function revokeApiKeysOfActivity(activity: Sql, user: { organizationId: string; userId: string; ids: string[]; now: Date }): Sql {
  return sql`UPDATE api_keys SET revoked_at = ${user.now}::timestamptz
              WHERE id = ANY(${user.ids}::uuid[]) AND user_id = ${user.userId}::uuid AND organization_id = ${user.organizationId}::uuid
                AND revoked_at IS NULL AND EXISTS (SELECT 1 FROM ${activity})
             RETURNING id`;
}

/** A row of the activity's statement: revokes the user's other live session keys (otp_login's invalidateExisting). */
export function revokeOtherSessionKeys(activity: Sql, user: { organizationId: string; userId: string; keepPublicKey: string; now: Date }): Sql {
  return revokeOtherKeysOfKind(activity, 'session', user);
}

/** A row of the activity's statement: revokes the user's other live otp_auth keys (otp_auth's invalidateExisting). */
export function revokeOtherOtpAuthKeys(activity: Sql, user: { organizationId: string; userId: string; keepPublicKey: string; now: Date }): Sql {
  return revokeOtherKeysOfKind(activity, 'otp_auth', user);
}

/** A row of the activity's statement: revokes the user's other live email_auth keys (email_auth's invalidateExisting). */
export function revokeOtherEmailAuthKeys(activity: Sql, user: { organizationId: string; userId: string; keepPublicKey: string; now: Date }): Sql {
  return revokeOtherKeysOfKind(activity, 'email_auth', user);
}

/** A row of the activity's statement: revokes the user's other live recovery keys (a new recovery email ends the one before). */
export function revokeOtherRecoveryKeys(activity: Sql, user: { organizationId: string; userId: string; keepPublicKey: string; now: Date }): Sql {
  return revokeOtherKeysOfKind(activity, 'recovery', user);
}

function revokeOtherKeysOfKind(activity: Sql, kind: ApiKeyKind, user: { organizationId: string; userId: string; keepPublicKey: string; now: Date }): Sql {
  return sql`UPDATE api_keys SET revoked_at = ${user.now}::timestamptz
              WHERE user_id = ${user.userId}::uuid AND organization_id = ${user.organizationId}::uuid AND kind = ${kind}
                AND revoked_at IS NULL AND public_key <> ${user.keepPublicKey} AND EXISTS (SELECT 1 FROM ${activity})
             RETURNING id`;
}

/** An API key or session key as the queries read it: not revoked; whose it is, but not its user's fields. */
export type LiveApiKey = Omit<ListedApiKey, 'revokedAt'>;

interface LiveApiKeyRow {
  id: string;
  user_id: string;
  name: string;
  public_key: string;
  kind: ApiKeyKind;
  created_at: Date | string;
  expires_at: Date | string | null;
}

function liveApiKeyFromRow(row: LiveApiKeyRow): LiveApiKey {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    publicKey: row.public_key,
    kind: row.kind,
    createdAt: new Date(row.created_at),
    expiresAt: row.expires_at === null ? null : new Date(row.expires_at),
  };
}

/** The keys that `filter` (a condition on `k`) keeps, not revoked, and not expired at `now`; oldest first, `limit` at most. */
function usableApiKeys(filter: Sql, now: Date, limit: number): Sql {
  return sql`SELECT k.id, k.user_id, k.name, k.public_key, k.kind, k.created_at, k.expires_at FROM api_keys k
              WHERE ${filter} AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > ${now}::timestamptz)
              ORDER BY k.created_at, k.id LIMIT ${limit}::int`;
}

/**
 * An expression: the keys of the user whose id is `userId` (an SQL expression) that may still stamp
 * at `now`, oldest first, the first `limit`, as a JSON array liveApiKeysFromJson reads.
 */
export function usableApiKeysJson(userId: Sql, now: Date, limit: number): Sql {
  return sql`(SELECT coalesce(json_agg(f ORDER BY f.created_at, f.id), '[]') FROM (${usableApiKeys(sql`k.user_id = ${userId}`, now, limit)}) f)`;
}

/** The keys of usableApiKeysJson as records. */
export function liveApiKeysFromJson(json: unknown): LiveApiKey[] {
  return (json as LiveApiKeyRow[]).map(liveApiKeyFromRow);
}

/**
 * The organization's keys (of one user when `userId` is given) that may still stamp at `now`,
 * oldest first, the first `limit`, on behalf of a credential checked in the same statement.
 */
export async function listUsableApiKeysFor(
  db: Queryable,
  use: CredentialUse,
  query: { organizationId: string; userId?: string | undefined; now: Date; limit: number },
): Promise<{ refused?: CredentialState; apiKeys?: LiveApiKey[] }> {
  const ofUser = query.userId === undefined ? sql`` : sql` AND k.user_id = ${query.userId}::uuid`;
  const { refused, rows } = await runWithCredential<LiveApiKeyRow>(
    db,
    use,
    usableApiKeys(sql`k.organization_id = ${query.organizationId}::uuid${ofUser}`, query.now, query.limit),
  );
  return refused ? { refused } : { apiKeys: rows.map(liveApiKeyFromRow) };
}

/** The organization's key, when not revoked (expired or not), on behalf of a credential checked in the same statement. */
export async function findLiveApiKeyFor(
  db: Queryable,
  use: CredentialUse,
  organizationId: string,
  apiKeyId: string,
): Promise<{ refused?: CredentialState; apiKey?: LiveApiKey }> {
  const { refused, rows } = await runWithCredential<LiveApiKeyRow>(
    db,
    use,
    sql`SELECT k.id, k.user_id, k.name, k.public_key, k.kind, k.created_at, k.expires_at FROM api_keys k
         WHERE k.id = ${apiKeyId}::uuid AND k.organization_id = ${organizationId}::uuid AND k.revoked_at IS NULL`,
  );
  return refused ? { refused } : rows[0] ? { apiKey: liveApiKeyFromRow(rows[0]) } : {};
}
