// Organizations (table organizations): the tenants.
import { runWithCredential, type CredentialState, type CredentialUse } from './credentials.ts';
import type { Queryable } from './db.ts';
import { selectPage, type Page, type PageRequest } from './pages.ts';
import { policiesFromJson, policiesJson, type StoredPolicy } from './policies.ts';
import { rootQuorumJson, type RootQuorum } from './rootQuorums.ts';
import { sql } from './sql.ts';
import { firstUsersJson, usersFromJson, type UserRecord } from './users.ts';
import { UUID_PATTERN } from '../wire/uuid.ts';

export interface OrganizationRecord {
  id: string;
  name: string;
  createdAt: Date;
  /** The parent, for a sub-organization. */
  parentId: string | null;
  /** When the sub-organization was deleted (delete_sub_organization). */
  deletedAt: Date | null;
}

export async function insertOrganization(db: Queryable, organization: { id: string; name: string }): Promise<void> {
  await db.query('INSERT INTO organizations (id, name) VALUES ($1, $2)', [organization.id, organization.name]);
}

export async function organizationExists(db: Queryable, id: string): Promise<boolean> {
  return (await db.query('SELECT 1 FROM organizations WHERE id = $1', [id])).length > 0;
}

/** Where an organization stands: its parent (null for a top-level organization) and when it was deleted (null while it lives). */
export interface OrganizationPlace {
  parentId: string | null;
  deletedAt: Date | null;
}

/** The organization's parent and deletion, or undefined when there is no such organization (an id that is not a UUID names none). */
export async function findOrganizationPlace(db: Queryable, id: string): Promise<OrganizationPlace | undefined> {
  if (!UUID_PATTERN.test(id)) return undefined;
  const [row] = await db.query<{ parent_id: string | null; deleted_at: Date | null }>('SELECT parent_id, deleted_at FROM organizations WHERE id = $1', [id]);
  return row ? { parentId: row.parent_id, deletedAt: row.deleted_at } : undefined;
}

export async function countOrganizations(db: Queryable): Promise<number> {
  const [row] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM organizations');
  return row!.n;
}

/** Every organization, newest first, in pages. */
export async function listOrganizations(db: Queryable, page: PageRequest): Promise<Page<OrganizationRecord>> {
  const found = await selectPage<{ id: string; name: string; created_at: Date; parent_id: string | null; deleted_at: Date | null }>(
    db,
    { table: 'organizations', columns: sql`a.id, a.name, a.created_at, a.parent_id, a.deleted_at`, organizationId: null, size: sql`512 + octet_length(a.name)` },
    page,
  );
  return {
    ...found,
    rows: found.rows.map((r) => ({ id: r.id, name: r.name, createdAt: r.created_at, parentId: r.parent_id, deletedAt: r.deleted_at })),
  };
}

/** An organization with its root quorum, its first users (not removed) and its policies, oldest first. */
export interface OrganizationData {
  id: string;
  name: string;
  rootQuorum: RootQuorum;
  users: UserRecord[];
  policies: StoredPolicy[];
}

/**
 * The organization, its root quorum, its first `usersLimit` users and its policies, on behalf of a credential
 * checked in the same statement; undefined when the organization (or its quorum) is not there.
 */
export async function findOrganizationFor(
  db: Queryable,
  use: CredentialUse,
  organizationId: string,
  usersLimit: number,
): Promise<{ refused?: CredentialState; organization?: OrganizationData }> {
  const { refused, rows } = await runWithCredential<{ id: string; name: string; root_quorum: RootQuorum | null; users: unknown; policies: unknown }>(
    db,
    use,
    sql`SELECT o.id, o.name, ${rootQuorumJson(sql`o.id`)} AS root_quorum, ${firstUsersJson(sql`o.id`, usersLimit)} AS users,
               ${policiesJson(sql`o.id`)} AS policies
          FROM organizations o WHERE o.id = ${organizationId}::uuid`,
  );
  if (refused) return { refused };
  const [row] = rows;
  if (!row?.root_quorum) return {};
  return {
    organization: { id: row.id, name: row.name, rootQuorum: row.root_quorum, users: usersFromJson(row.users), policies: policiesFromJson(row.policies) },
  };
}
