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
