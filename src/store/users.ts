// Users (table users): the people and services of an organization that credentials belong to, with
// their contacts (an email in lowercase, a phone number in E.164: canonicalEmailAddress and
// normalizePhoneNumber of src/otp/contact.ts, applied by the callers), unique among the
// organization's users not removed; and their removal, which revokes every credential of the user at once.
import type { Database, Queryable } from './db.ts';
import type { Gate } from './gate.ts';
import { liveApiKeysFromJson, usableApiKeysJson, type LiveApiKey } from './apiKeys.ts';
import { liveAuthenticatorsFromJson, liveAuthenticatorsJson, type LiveAuthenticator } from './authenticators.ts';
import { runWithCredential, type CredentialState, type CredentialUse } from './credentials.ts';
import { deleteUsersOauthProvidersOfActivity, oauthProvidersFromJson, oauthProvidersJson, type OauthProviderRecord } from './oauthProviders.ts';
import { selectPage, type Page, type PageRequest } from './pages.ts';
import { join, raw, run, sql, type Sql } from './sql.ts';
import { userTagIdsJson } from './userTags.ts';

export interface UserRecord {
  id: string;
  userName: string;
  /** In lowercase (canonicalEmailAddress). */
  email: string | null;
  /** E.164. */
  phoneNumber: string | null;
  /** Ids of the user's tags (store/userTags.ts), in the order they were created. */
  userTags: string[];
  createdAt: Date;
  updatedAt: Date;
}

/** A new user: email validated and in lowercase, phone number normalised to E.164, by the caller. */
export interface NewUser {
  id: string;
  userName: string;
  email?: string | undefined;
  phoneNumber?: string | undefined;
  /** The contact counts as verified from its creation (a verification token named it: create_sub_organization). */
  emailVerified?: boolean;
  phoneNumberVerified?: boolean;
}

/** The contact a unique index refused: another user of the organization, not removed, has it. */
export type TakenContact = 'email' | 'phoneNumber';

interface UserRow {
  id: string;
  user_name: string;
  email: string | null;
  phone_number: string | null;
  /** Absent where the user cannot have tags yet (just inserted). */
  user_tags?: string[];
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = sql`a.id, a.user_name, a.email, a.phone_number, ${userTagIdsJson(sql`a.id`)} AS user_tags, a.created_at, a.updated_at`;

function fromRow(row: UserRow): UserRecord {
  return {
    id: row.id,
    userName: row.user_name,
    email: row.email,
    phoneNumber: row.phone_number,
    userTags: row.user_tags ?? [],
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

/**
 * Inserts the user, or says which contact another user of the organization already has (a unique
 * index refused it; nothing was written, and a transaction around it stays usable).
 */
export async function insertUser(
  db: Queryable,
  user: NewUser & { organizationId: string },
): Promise<{ user: UserRecord } | { taken: TakenContact | undefined }> {
  const [row] = await db.query<UserRow>(
    `INSERT INTO users (id, organization_id, user_name, email, phone_number) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT DO NOTHING
     RETURNING id, user_name, email, phone_number, created_at, updated_at`,
    [user.id, user.organizationId, user.userName, user.email ?? null, user.phoneNumber ?? null],
  );
  if (row) return { user: fromRow(row) };
  // The holder of the contact committed before ON CONFLICT gave up, so it is visible now, unless it
  // was removed in between (then the contact is free again and `taken` is undefined).
  const [taken] = await run<{ field: TakenContact }>(db, contactsTaken(user.organizationId, [{ email: user.email, phoneNumber: user.phoneNumber }]));
  return { taken: taken?.field };
}

/** The user, when it is of the organization and not removed. */
export async function findUser(db: Queryable, organizationId: string, id: string): Promise<UserRecord | undefined> {
  const [row] = await run<UserRow>(
    db,
    sql`SELECT ${COLUMNS} FROM users a WHERE a.id = ${id}::uuid AND a.organization_id = ${organizationId}::uuid AND a.removed_at IS NULL`,
  );
  return row ? fromRow(row) : undefined;
}

/** True when the organization has or had (removed) this user. */
export async function userExists(db: Queryable, organizationId: string, id: string): Promise<boolean> {
  return (await db.query('SELECT 1 FROM users WHERE id = $1 AND organization_id = $2', [id, organizationId])).length > 0;
}

/**
 * Holds the user (of the organization, not removed) until the transaction ends, so a concurrent
 * removal waits for it, then revokes what the transaction added. False when there is no such user.
 */
export async function holdActiveUser(tx: Queryable, organizationId: string, id: string): Promise<boolean> {
  const rows = await tx.query('SELECT 1 FROM users WHERE id = $1 AND organization_id = $2 AND removed_at IS NULL FOR SHARE', [id, organizationId]);
  return rows.length > 0;
}

/**
 * An expression: the first `limit` users (not removed) of the organization `organizationId` (an
 * expression), oldest first (then by id), as a JSON array usersFromJson reads; read from the
 * (organization_id, created_at, id) index, never sorting all of them.
 */
export function firstUsersJson(organizationId: Sql, limit: number): Sql {
  return sql`(SELECT coalesce(json_agg(f ORDER BY f.created_at, f.id), '[]') FROM (
                SELECT u.id, u.user_name, u.email, u.phone_number, ${userTagIdsJson(sql`u.id`)} AS user_tags, u.created_at, u.updated_at
                  FROM users u
                 WHERE u.organization_id = ${organizationId} AND u.removed_at IS NULL
                 ORDER BY u.created_at, u.id LIMIT ${limit}::int) f)`;
}

/** The users of firstUsersJson as records. */
export function usersFromJson(json: unknown): UserRecord[] {
  return (json as UserRow[]).map(fromRow);
}

/** The organization's users not removed, newest first, in pages. */
export async function listUsers(db: Queryable, organizationId: string, page: PageRequest): Promise<Page<UserRecord>> {
  const found = await selectPage<UserRow>(
    db,
    { table: 'users', columns: COLUMNS, organizationId, where: [sql`a.removed_at IS NULL`], size: sql`1024` },
    page,
  );
  return { ...found, rows: found.rows.map(fromRow) };
}

export interface RemovedUser {
  removedAt: Date;
  /** API keys (session keys included) and authenticators that were live and are now revoked. */
  revokedApiKeys: number;
  revokedAuthenticators: number;
}

/** Thrown (and nothing changed) when the user to remove is a member of its organization's root quorum. */
export class RootQuorumMember extends Error {
  override name = 'RootQuorumMember';
}

/**
 * Removes the user and revokes all its API keys and authenticators, in one transaction, so every
 * credential of the user is refused at once by the checks every statement makes. The user row is
 * changed first, which waits for transactions holding it (holdActiveUser, userActive) to end; the
 * revocations, read after, see what those added. Undefined when there is no such user (or it was
 * removed already); a member of the root quorum is not removed (RootQuorumMember).
 */
export async function removeUser(db: Database, organizationId: string, id: string): Promise<RemovedUser | undefined> {
  return db.transaction(async (tx) => {
    const [removed] = await tx.query<{ removed_at: Date }>(
      `UPDATE users SET removed_at = now(), updated_at = now()
        WHERE id = $1 AND organization_id = $2 AND removed_at IS NULL RETURNING removed_at`,
      [id, organizationId],
    );
    if (!removed) return undefined;
    // Read after the user's row is changed, so a quorum change that held it (FOR SHARE) has committed.
    const [member] = await tx.query('SELECT 1 FROM root_quorum_members WHERE organization_id = $1 AND user_id = $2', [organizationId, id]);
    if (member) throw new RootQuorumMember();
    const keys = await tx.query('UPDATE api_keys SET revoked_at = $2 WHERE user_id = $1 AND revoked_at IS NULL RETURNING id', [id, removed.removed_at]);
    const authenticators = await tx.query(
      'UPDATE authenticators SET revoked_at = $2 WHERE user_id = $1 AND revoked_at IS NULL RETURNING id',
      [id, removed.removed_at],
    );
    await tx.query('DELETE FROM oauth_providers WHERE user_id = $1', [id]);
    return { removedAt: removed.removed_at, revokedApiKeys: keys.length, revokedAuthenticators: authenticators.length };
  });
}

/** The organization's (not removed) user whose email (in lowercase) or phone number (E.164) is this. */
export async function findUserByContact(
  db: Queryable,
  organizationId: string,
  contact: { email: string } | { phoneNumber: string },
): Promise<{ id: string; userName: string } | undefined> {
  const [row] =
    'email' in contact
      ? await db.query<{ id: string; user_name: string }>(
          `SELECT id, user_name FROM users
            WHERE organization_id = $1 AND email = $2 AND removed_at IS NULL AND email IS NOT NULL`,
          [organizationId, contact.email],
        )
      : await db.query<{ id: string; user_name: string }>(
          `SELECT id, user_name FROM users
            WHERE organization_id = $1 AND phone_number = $2 AND removed_at IS NULL AND phone_number IS NOT NULL`,
          [organizationId, contact.phoneNumber],
        );
  return row ? { id: row.id, userName: row.user_name } : undefined;
}

/**
 * The users (not removed) with this contact **proven for them** (its verified moment set: a token
 * given with it, or a code checked for that user) in the live (not deleted) sub-organizations of
 * `parentId`, as {organizationId, userId}, the first `limit` by organization id. A copy of the contact
 * that no one proved is not found.
 */
export async function findSubOrganizationUsersByProvenContact(
  db: Queryable,
  parentId: string,
  contact: { email: string } | { phoneNumber: string },
  limit: number,
): Promise<Array<{ organizationId: string; userId: string }>> {
  const [column, value] = 'email' in contact ? ['email', contact.email] : ['phone_number', contact.phoneNumber];
  const rows = await db.query<{ organization_id: string; id: string }>(
    `SELECT u.organization_id, u.id FROM users u JOIN organizations o ON o.id = u.organization_id
      WHERE u.${column} = $1 AND u.${column}_verified_at IS NOT NULL AND u.removed_at IS NULL AND o.parent_id = $2 AND o.deleted_at IS NULL
      ORDER BY u.organization_id LIMIT $3`,
    [value, parentId, limit],
  );
  return rows.map((row) => ({ organizationId: row.organization_id, userId: row.id }));
}

/**
 * A guard condition (Sql yielding a boolean) for an activity's statement: the user exists in the
 * organization and is not removed. It holds the user's row (FOR SHARE) until the statement commits,
 * so a removal running meanwhile waits and then revokes what the statement registered for the user.
 * `userId` must be a UUID.
 */
export function userActive(organizationId: string, userId: string): Sql {
  return sql`EXISTS (SELECT 1 FROM users WHERE id = ${userId}::uuid AND organization_id = ${organizationId}::uuid
                        AND removed_at IS NULL FOR SHARE)`;
}

/**
 * A guard condition, as userActive for several users: each of them exists in the organization and
 * is not removed. Their rows are held (FOR SHARE, in id order) until the statement commits, so a
 * removal running meanwhile waits for it; one that committed after the statement's snapshot is seen
 * (the locked rows are read as they are now) and makes the condition false. `userIds` must be UUIDs.
 */
export function usersActive(organizationId: string, userIds: readonly string[]): Sql {
  const ids = [...new Set(userIds.map((id) => id.toLowerCase()))];
  return sql`(SELECT count(*) FROM (SELECT id FROM users WHERE organization_id = ${organizationId}::uuid AND id = ANY(${ids}::uuid[])
                                       AND removed_at IS NULL ORDER BY id FOR SHARE) held) = ${ids.length}::int`;
}

/**
 * A row of an activity's statement (`activity` yields the activity's row): the contact (an email in
 * lowercase, a phone number in E.164) counts as proven at `now` for this one user, a code sent to it
 * having been checked for this user (a login into it). Only while the user (not removed) still has
 * that contact; no other user who has the same contact is touched.
 */
export function markUserContactVerified(activity: Sql, organizationId: string, userId: string, contact: { email: string } | { phoneNumber: string }, now: Date): Sql {
  const user = sql`u.id = ${userId}::uuid AND u.organization_id = ${organizationId}::uuid AND u.removed_at IS NULL`;
  return 'email' in contact
    ? sql`UPDATE users u SET email_verified_at = ${now}::timestamptz FROM ${activity}
           WHERE ${user} AND u.email = ${contact.email} RETURNING u.id`
    : sql`UPDATE users u SET phone_number_verified_at = ${now}::timestamptz FROM ${activity}
           WHERE ${user} AND u.phone_number = ${contact.phoneNumber} RETURNING u.id`;
}

/** A guard condition: the organization's users not removed, with `adding` more, are at most `limit`. */
export function usersWithin(organizationId: string, adding: number, limit: number): Sql {
  return sql`(SELECT count(*) FROM users WHERE organization_id = ${organizationId}::uuid AND removed_at IS NULL) + ${adding}::int <= ${limit}::int`;
}

/**
 * A lock on the organization's row, taken before a statement that creates users in it: concurrent
 * creations count the organization's users one after the other, so a bound on them is exact.
 */
export function lockOrganizationUsers(organizationId: string): Sql {
  return sql`SELECT id FROM organizations WHERE id = ${organizationId}::uuid FOR NO KEY UPDATE`;
}

/**
 * A row of an activity's statement (`activity` yields the activity's row): the new users, created
 * at `now`, a contact flagged verified counting as verified at `now`. Their contacts must be free (usersContactsFree); the unique indexes stop a concurrent
 * request that took one meanwhile.
 */
export function insertUsersOfActivity(activity: Sql, organizationId: string, users: NewUser[], now: Date): Sql {
  const rows = users.map((u) => ({
    id: u.id,
    user_name: u.userName,
    email: u.email ?? null,
    phone_number: u.phoneNumber ?? null,
    email_verified: u.email !== undefined && u.emailVerified === true,
    phone_number_verified: u.phoneNumber !== undefined && u.phoneNumberVerified === true,
  }));
  return sql`INSERT INTO users (id, organization_id, user_name, email, phone_number, email_verified_at, phone_number_verified_at, created_at, updated_at)
             SELECT u.id, ${organizationId}::uuid, u.user_name, u.email, u.phone_number,
                    CASE WHEN u.email_verified THEN ${now}::timestamptz END, CASE WHEN u.phone_number_verified THEN ${now}::timestamptz END,
                    ${now}::timestamptz, ${now}::timestamptz
               FROM ${activity}, jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
                    AS u (id uuid, user_name text, email text, phone_number text, email_verified boolean, phone_number_verified boolean)
             RETURNING id`;
}

/** Which of the contacts (by their index in the list) users of the organization not removed already have. */
function contactsTaken(
  organizationId: string,
  contacts: Array<{ email?: string | undefined; phoneNumber?: string | undefined }>,
  exceptUserId?: string,
): Sql {
  // The user whose own contacts these may already be (an update) does not take them from itself.
  const other = exceptUserId === undefined ? sql`` : sql` AND u.id <> ${exceptUserId}::uuid`;
  const wanted = contacts.flatMap((c, index) => [
    ...(c.email !== undefined ? [{ index, field: 'email', email: c.email }] : []),
    ...(c.phoneNumber !== undefined ? [{ index, field: 'phoneNumber', phone_number: c.phoneNumber }] : []),
  ]);
  return sql`SELECT w.index, w.field FROM jsonb_to_recordset(${JSON.stringify(wanted)}::jsonb) AS w (index int, field text, email text, phone_number text)
              WHERE EXISTS (SELECT 1 FROM users u WHERE u.organization_id = ${organizationId}::uuid AND u.removed_at IS NULL
                               AND u.email IS NOT NULL AND u.email = w.email${other})
                 OR EXISTS (SELECT 1 FROM users u WHERE u.organization_id = ${organizationId}::uuid AND u.removed_at IS NULL
                               AND u.phone_number IS NOT NULL AND u.phone_number = w.phone_number${other})
              ORDER BY w.index, w.field`;
}

/**
 * A Gate that writes nothing: it passes when no user of the organization (not removed) has any of
 * these contacts; its detail lists those taken, as [{index, field}] (field "email" or "phoneNumber").
 */
export function usersContactsFree(
  organizationId: string,
  contacts: Array<{ email?: string | undefined; phoneNumber?: string | undefined }>,
): Gate {
  const taken = contactsTaken(organizationId, contacts);
  return {
    statement: (proceed) => sql`SELECT 1 WHERE ${proceed} AND NOT EXISTS (${taken})`,
    detail: sql`(SELECT coalesce(json_agg(t), '[]') FROM (${taken}) t)`,
  };
}

/** A user with its credentials as the queries read them (each list bounded by the reader). */
export interface UserWithCredentials extends UserRecord {
  /** API keys and session keys that may still stamp, oldest first. */
  apiKeys: LiveApiKey[];
  /** Passkeys not revoked, oldest first. */
  authenticators: LiveAuthenticator[];
  /** OAuth providers (OpenID Connect identities bound), oldest first. */
  oauthProviders: OauthProviderRecord[];
}

interface UserWithCredentialsRow extends UserRow {
  api_keys: unknown;
  authenticators: unknown;
  oauth_providers: unknown;
}

/** The columns of a user (`a`) with its credentials usable at `now`, the first `limit` of each kind. */
function withCredentials(now: Date, limit: number): Sql {
  return sql`${COLUMNS}, ${usableApiKeysJson(sql`a.id`, now, limit)} AS api_keys, ${liveAuthenticatorsJson(sql`a.id`, limit)} AS authenticators,
             ${oauthProvidersJson(sql`a.id`, limit)} AS oauth_providers`;
}

function withCredentialsFromRow(row: UserWithCredentialsRow): UserWithCredentials {
  return {
    ...fromRow(row),
    apiKeys: liveApiKeysFromJson(row.api_keys),
    authenticators: liveAuthenticatorsFromJson(row.authenticators),
    oauthProviders: oauthProvidersFromJson(row.oauth_providers),
  };
}

/**
 * The user (of the organization, not removed) with its credentials usable at `now`, the first
 * `credentialsLimit` of each kind, on behalf of a credential checked in the same statement.
 */
export async function findUserFor(
  db: Queryable,
  use: CredentialUse,
  query: { organizationId: string; userId: string; now: Date; credentialsLimit: number },
): Promise<{ refused?: CredentialState; user?: UserWithCredentials }> {
  const { refused, rows } = await runWithCredential<UserWithCredentialsRow>(db, use, userStatement(query));
  return refused ? { refused } : rows[0] ? { user: withCredentialsFromRow(rows[0]) } : {};
}

/** What findUserFor reads, without the credential check around it. */
export function userStatement(query: { organizationId: string; userId: string; now: Date; credentialsLimit: number }): Sql {
  return sql`SELECT ${withCredentials(query.now, query.credentialsLimit)} FROM users a
              WHERE a.id = ${query.userId}::uuid AND a.organization_id = ${query.organizationId}::uuid AND a.removed_at IS NULL`;
}

/**
 * The first `limit` users (not removed) of the organization, oldest first (then by id, from the
 * (organization_id, created_at, id) index), each with its credentials as findUserFor reads them, on
 * behalf of a credential checked in the same statement.
 */
export async function listUsersFor(
  db: Queryable,
  use: CredentialUse,
  query: { organizationId: string; now: Date; limit: number; credentialsLimit: number },
): Promise<{ refused?: CredentialState; users?: UserWithCredentials[] }> {
  const { refused, rows } = await runWithCredential<UserWithCredentialsRow>(
    db,
    use,
    sql`SELECT ${withCredentials(query.now, query.credentialsLimit)} FROM users a
         WHERE a.organization_id = ${query.organizationId}::uuid AND a.removed_at IS NULL
         ORDER BY a.created_at, a.id LIMIT ${query.limit}::int`,
  );
  return refused ? { refused } : { users: rows.map(withCredentialsFromRow) };
}

/**
 * The users among `userIds` (UUIDs) that are of the organization and not removed, each with its
 * credentials as findUserFor reads them, in one statement on behalf of a credential checked in it.
 */
export async function findUsersFor(
  db: Queryable,
  use: CredentialUse,
  query: { organizationId: string; userIds: readonly string[]; now: Date; credentialsLimit: number },
): Promise<{ refused?: CredentialState; users?: UserWithCredentials[] }> {
  const ids = [...new Set(query.userIds.map((id) => id.toLowerCase()))];
  const { refused, rows } = await runWithCredential<UserWithCredentialsRow>(
    db,
    use,
    sql`SELECT ${withCredentials(query.now, query.credentialsLimit)} FROM users a
         WHERE a.organization_id = ${query.organizationId}::uuid AND a.id = ANY(${ids}::uuid[]) AND a.removed_at IS NULL`,
  );
  return refused ? { refused } : { users: rows.map(withCredentialsFromRow) };
}

/** What findWhoamiFor reads, without the credential check around it. */
export function whoamiStatement(organizationId: string, userId: string): Sql {
  return sql`SELECT o.name AS organization_name, u.user_name FROM users u JOIN organizations o ON o.id = u.organization_id
              WHERE u.id = ${userId}::uuid AND u.organization_id = ${organizationId}::uuid AND u.removed_at IS NULL`;
}

/** Who the user is: its name and its organization's, when it is of the organization and not removed; on behalf of a credential checked in the same statement. */
export async function findWhoamiFor(
  db: Queryable,
  use: CredentialUse,
  organizationId: string,
  userId: string,
): Promise<{ refused?: CredentialState; whoami?: { organizationName: string; userName: string } }> {
  const { refused, rows } = await runWithCredential<{ organization_name: string; user_name: string }>(db, use, whoamiStatement(organizationId, userId));
  if (refused) return { refused };
  const [row] = rows;
  return row ? { whoami: { organizationName: row.organization_name, userName: row.user_name } } : {};
}

/** A change of one user by an activity: each field given is set; a contact of null removes it. */
export interface UserChange {
  userName?: string | undefined;
  /** In lowercase (canonicalEmailAddress); null removes the email. */
  email?: string | null | undefined;
  /** E.164; null removes the phone number. */
  phoneNumber?: string | null | undefined;
  /** The new email was proved by a verification token: it counts as verified from `now`. */
  emailVerified?: boolean;
  phoneNumberVerified?: boolean;
}

/**
 * The SET of a contact column and its verified moment: the new value, verified at `now` when it was
 * proved; otherwise the moment is kept when the value stays the same and cleared when it changes.
 */
function contactAssignment(column: 'email' | 'phone_number', value: string | null, verified: boolean, now: Date): Sql {
  const name = raw(column);
  const verifiedAt = raw(`${column}_verified_at`);
  const moment = verified
    ? sql`${now}::timestamptz`
    : sql`CASE WHEN u.${name} IS NOT DISTINCT FROM ${value}::text THEN u.${verifiedAt} END`;
  return sql`${name} = ${value}::text, ${verifiedAt} = ${moment}`;
}

/**
 * A row of an activity's statement (`activity` yields the activity's row): the user (of the
 * organization, not removed; the caller's guard) changed as `change` says, updated at `now`. New
 * contacts must be free (userContactsFree); the unique indexes stop a concurrent request that took
 * one meanwhile.
 */
export function updateUserOfActivity(activity: Sql, organizationId: string, userId: string, change: UserChange, now: Date): Sql {
  const sets: Sql[] = [sql`updated_at = ${now}::timestamptz`];
  if (change.userName !== undefined) sets.push(sql`user_name = ${change.userName}`);
  if (change.email !== undefined) sets.push(contactAssignment('email', change.email, change.emailVerified === true, now));
  if (change.phoneNumber !== undefined) sets.push(contactAssignment('phone_number', change.phoneNumber, change.phoneNumberVerified === true, now));
  return sql`UPDATE users u SET ${join(sets)} FROM ${activity}
              WHERE u.id = ${userId}::uuid AND u.organization_id = ${organizationId}::uuid AND u.removed_at IS NULL
             RETURNING u.id`;
}

/**
 * A Gate that writes nothing: it passes when no other user of the organization (not removed) than
 * `userId` has the contacts; its detail lists those taken, as usersContactsFree's does (index 0).
 */
export function userContactsFree(organizationId: string, userId: string, contact: { email?: string | undefined; phoneNumber?: string | undefined }): Gate {
  const taken = contactsTaken(organizationId, [contact], userId);
  return {
    statement: (proceed) => sql`SELECT 1 WHERE ${proceed} AND NOT EXISTS (${taken})`,
    detail: sql`(SELECT coalesce(json_agg(t), '[]') FROM (${taken}) t)`,
  };
}

/** A guard condition: the user is not a member of the organization's root quorum. */
export function userOutsideRootQuorum(organizationId: string, userId: string): Sql {
  return sql`NOT EXISTS (SELECT 1 FROM root_quorum_members WHERE organization_id = ${organizationId}::uuid AND user_id = ${userId}::uuid)`;
}

/**
 * A lock (ActivityPlan.locks) on the users' rows, taken before the statement that changes or removes
 * them: a write holding one (userActive, holdActiveUser) commits first, so the statement sees what it
 * wrote (a removal revokes the credentials it registered); one starting after waits, then sees this
 * statement's change. NO KEY: inserts that reference the users are not held up.
 */
export function lockUsers(organizationId: string, userIds: string[]): Sql {
  return sql`SELECT id FROM users WHERE organization_id = ${organizationId}::uuid AND id = ANY(${userIds}::uuid[]) ORDER BY id FOR NO KEY UPDATE`;
}

/**
 * Rows of an activity's statement (`activity` yields its row): the users (of the organization, not
 * removed; the caller's guards) removed at `now`, and every API key (session keys included) and
 * authenticator of theirs revoked at that moment, as removeUser does.
 */
export function removeUsersOfActivity(activity: Sql, organizationId: string, userIds: string[], now: Date): Sql[] {
  return [
    sql`UPDATE users SET removed_at = ${now}::timestamptz, updated_at = ${now}::timestamptz
         WHERE organization_id = ${organizationId}::uuid AND id = ANY(${userIds}::uuid[]) AND removed_at IS NULL
           AND EXISTS (SELECT 1 FROM ${activity})
        RETURNING id`,
    sql`UPDATE api_keys SET revoked_at = ${now}::timestamptz
         WHERE organization_id = ${organizationId}::uuid AND user_id = ANY(${userIds}::uuid[]) AND revoked_at IS NULL
           AND EXISTS (SELECT 1 FROM ${activity})
        RETURNING id`,
    sql`UPDATE authenticators SET revoked_at = ${now}::timestamptz
         WHERE organization_id = ${organizationId}::uuid AND user_id = ANY(${userIds}::uuid[]) AND revoked_at IS NULL
           AND EXISTS (SELECT 1 FROM ${activity})
        RETURNING id`,
    // A removed user's identities are unbound: they may be bound to another user.
    deleteUsersOauthProvidersOfActivity(activity, organizationId, userIds),
  ];
}
