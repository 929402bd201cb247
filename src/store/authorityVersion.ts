// The version of an organization's authority (organizations.authority_version): raised by every
// statement that changes its root quorum, its policies or its users' tags, and checked by every
// activity's statement against the version it was decided under (store/authority.ts reads it).
import { sql, type Sql } from './sql.ts';

/** A guard condition: the organization's authority is still at `version`. */
export function authorityUnchanged(organizationId: string, version: string): Sql {
  return sql`EXISTS (SELECT 1 FROM organizations WHERE id = ${organizationId}::uuid AND authority_version = ${version}::bigint)`;
}

/** A statement part raising the organization's authority version once `after` (a row source) yields a row. */
export function authorityBump(organizationId: string, after: Sql): Sql {
  return sql`UPDATE organizations SET authority_version = authority_version + 1
              WHERE id = ${organizationId}::uuid AND EXISTS (SELECT 1 FROM ${after}) RETURNING id`;
}

/**
 * A lock on the organization's row, taken before the statement of every activity that changes its
 * authority (ActivityPlan.changesAuthority: the engine takes it) and by the admin API's replacement of
 * the root quorum: such changes run one after the other, each statement seeing what the one before
 * wrote, so the bounds on policies and tags are exact, a name is checked against the one written just
 * before, and a policy deleted twice at once is deleted by one and not found by the other. NO KEY:
 * writes that only reference the organization (KEY SHARE) do not wait.
 */
export function lockAuthority(organizationId: string): Sql {
  return sql`SELECT id FROM organizations WHERE id = ${organizationId}::uuid FOR NO KEY UPDATE`;
}
