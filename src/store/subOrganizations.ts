// Sub-organizations (organizations.parent_id, one level deep): the row create_sub_organization
// writes with its activity, the deletion that keeps the rows but revokes every credential at once,
// and a parent's sub-organizations found by their name or by their users' names, contacts and
// credentials. Each filter is read from an index that leads to few rows (a name, a contact, a key),
// never by visiting every sub-organization of the parent.
import { runWithCredential, type CredentialState, type CredentialUse } from './credentials.ts';
import type { Queryable } from './db.ts';
import { pageOf, pageStatement, type Page, type PageRequest } from './pages.ts';
import { run, sql, type Sql } from './sql.ts';

/** What list_suborgs filters on: the value is canonical (email lowercase, phone E.164, public key compressed hex). */
export type SubOrganizationFilter =
  | { kind: 'NAME' | 'USERNAME' | 'EMAIL' | 'PHONE_NUMBER' | 'CREDENTIAL_ID' | 'PUBLIC_KEY'; value: string }
  | { kind: 'VERIFIED_EMAIL' | 'VERIFIED_PHONE_NUMBER'; value: string }
  /** A user (not removed) bound to this OpenID Connect identity (oauth_providers). */
  | { kind: 'OIDC_SUBJECT'; issuer: string; subject: string };

/**
 * A guard condition: the organization may have sub-organizations (it is not one itself, one level
 * deep) and is not deleted.
 */
export function mayHaveSubOrganizations(organizationId: string): Sql {
  return sql`EXISTS (SELECT 1 FROM organizations WHERE id = ${organizationId}::uuid AND parent_id IS NULL AND deleted_at IS NULL)`;
}

/** A guard condition: the organization is a sub-organization, not deleted. */
export function isLiveSubOrganization(organizationId: string): Sql {
  return sql`EXISTS (SELECT 1 FROM organizations WHERE id = ${organizationId}::uuid AND parent_id IS NOT NULL AND deleted_at IS NULL)`;
}

/**
 * Rows of an activity's statement (`activity` yields its row): the sub-organization of `parentId`,
 * created at `now`, and its root quorum's row (the members are written with replaceRootQuorumOfActivity
 * after its users). Its authority version starts at 0 as every organization's.
 */
export function insertSubOrganizationOfActivity(activity: Sql, organization: { id: string; name: string; parentId: string; now: Date }): Sql {
  return sql`INSERT INTO organizations (id, name, parent_id, created_at)
             SELECT ${organization.id}::uuid, ${organization.name}, ${organization.parentId}::uuid, ${organization.now}::timestamptz FROM ${activity}
             RETURNING id`;
}

/** A guard condition: every wallet and private key of the organization was exported (none: true). */
export function organizationKeysExported(organizationId: string): Sql {
  return sql`NOT EXISTS (SELECT 1 FROM wallets WHERE organization_id = ${organizationId}::uuid AND NOT exported)
         AND NOT EXISTS (SELECT 1 FROM private_keys WHERE organization_id = ${organizationId}::uuid AND NOT exported)`;
}

/**
 * Rows of an activity's statement: the sub-organization is deleted at `now` and every API key
 * (session keys included) and passkey of it revoked, so its credentials are refused from the next
 * statement on, in every process; its wallets, their accounts and its private keys are deleted. Its
 * other rows (users, activities) stay, for its parent to audit.
 */
export function deleteSubOrganizationOfActivity(activity: Sql, organizationId: string, now: Date): Sql[] {
  return [
    // Its key material goes with it: nothing could sign with it any more.
    sql`DELETE FROM wallet_accounts WHERE organization_id = ${organizationId}::uuid AND EXISTS (SELECT 1 FROM ${activity})`,
    sql`DELETE FROM wallets WHERE organization_id = ${organizationId}::uuid AND EXISTS (SELECT 1 FROM ${activity})`,
    sql`DELETE FROM private_keys WHERE organization_id = ${organizationId}::uuid AND EXISTS (SELECT 1 FROM ${activity})`,
    sql`UPDATE organizations o SET deleted_at = ${now}::timestamptz FROM ${activity}
         WHERE o.id = ${organizationId}::uuid AND o.parent_id IS NOT NULL AND o.deleted_at IS NULL RETURNING o.id`,
    sql`UPDATE api_keys k SET revoked_at = ${now}::timestamptz FROM ${activity}
         WHERE k.organization_id = ${organizationId}::uuid AND k.revoked_at IS NULL RETURNING k.id`,
    sql`UPDATE authenticators c SET revoked_at = ${now}::timestamptz FROM ${activity}
         WHERE c.organization_id = ${organizationId}::uuid AND c.revoked_at IS NULL RETURNING c.id`,
  ];
}

/** A condition on the sub-organization `a`: it matches the filter. */
function matches(filter: SubOrganizationFilter): Sql {
  const user = (condition: Sql) => sql`EXISTS (SELECT 1 FROM users u WHERE u.organization_id = a.id AND u.removed_at IS NULL AND ${condition})`;
  if (filter.kind === 'OIDC_SUBJECT') {
    return sql`EXISTS (SELECT 1 FROM oauth_providers p JOIN users u ON u.id = p.user_id
                        WHERE p.organization_id = a.id AND p.issuer = ${filter.issuer} AND p.subject = ${filter.subject} AND u.removed_at IS NULL)`;
  }
  const value = filter.value;
  switch (filter.kind) {
    case 'NAME':
      return sql`a.name = ${value}`;
    case 'USERNAME':
      return user(sql`u.user_name = ${value}`);
    case 'EMAIL':
      return user(sql`u.email = ${value}`);
    case 'PHONE_NUMBER':
      return user(sql`u.phone_number = ${value}`);
    case 'VERIFIED_EMAIL':
      return user(sql`u.email = ${value} AND u.email_verified_at IS NOT NULL`);
    case 'VERIFIED_PHONE_NUMBER':
      return user(sql`u.phone_number = ${value} AND u.phone_number_verified_at IS NOT NULL`);
    case 'CREDENTIAL_ID':
      return sql`EXISTS (SELECT 1 FROM authenticators c WHERE c.organization_id = a.id AND c.credential_id = ${value} AND c.revoked_at IS NULL)`;
    case 'PUBLIC_KEY':
      return sql`EXISTS (SELECT 1 FROM api_keys k WHERE k.organization_id = a.id AND k.public_key = ${value} AND k.revoked_at IS NULL)`;
  }
}

export interface SubOrganizationRecord {
  id: string;
  name: string;
  createdAt: Date;
  deletedAt: Date | null;
}

interface Row {
  id: string;
  name: string;
  created_at: Date;
  deleted_at: Date | null;
}

function fromRow(row: Row): SubOrganizationRecord {
  return { id: row.id, name: row.name, createdAt: new Date(row.created_at), deletedAt: row.deleted_at ? new Date(row.deleted_at) : null };
}

/** The page statement of the parent's sub-organizations, newest first; deleted ones only when asked. */
function subOrganizationsPage(parentId: string, page: PageRequest, options: { filter?: SubOrganizationFilter; deleted?: boolean }): Sql {
  return pageStatement(
    {
      table: 'organizations',
      scopeColumn: 'parent_id',
      columns: sql`a.id, a.name, a.created_at, a.deleted_at`,
      organizationId: parentId,
      where: [...(options.deleted ? [] : [sql`a.deleted_at IS NULL`]), ...(options.filter ? [matches(options.filter)] : [])],
      size: sql`256 + octet_length(a.name)`,
    },
    page,
  );
}

/**
 * A page of the parent's sub-organizations not deleted, newest first, that match the filter, on behalf
 * of a credential checked in the same statement.
 */
export async function listSubOrganizationsFor(
  db: Queryable,
  use: CredentialUse,
  query: { parentId: string; filter?: SubOrganizationFilter; page: PageRequest },
): Promise<{ refused?: CredentialState; page?: Page<SubOrganizationRecord> }> {
  const statement = subOrganizationsPage(query.parentId, query.page, query.filter ? { filter: query.filter } : {});
  const { refused, rows } = await runWithCredential<Record<string, unknown>>(db, use, statement);
  if (refused) return { refused };
  const found = pageOf<Row>(rows, query.page);
  return { page: { ...found, rows: found.rows.map(fromRow) } };
}

/** The operator's list: a page of the parent's sub-organizations, deleted ones included, newest first. */
export async function listSubOrganizations(db: Queryable, parentId: string, page: PageRequest): Promise<Page<SubOrganizationRecord>> {
  const found = pageOf<Row>(await run<Record<string, unknown>>(db, subOrganizationsPage(parentId, page, { deleted: true })), page);
  return { ...found, rows: found.rows.map(fromRow) };
}

/** The statement list_suborgs runs without the credential check, for EXPLAIN (the benchmark's plans). */
export function subOrganizationsStatement(parentId: string, filter: SubOrganizationFilter | undefined, page: PageRequest): Sql {
  return subOrganizationsPage(parentId, page, filter ? { filter } : {});
}
