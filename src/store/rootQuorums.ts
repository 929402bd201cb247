// Root quorums (tables root_quorums and root_quorum_members): per organization, a threshold and the
// users who are its members. A member is a user of the same organization (a foreign key says so);
// threshold <= number of members is kept by insertRootQuorum, the one statement that writes a quorum.
import type { Queryable } from './db.ts';
import { runWithCredential, type CredentialState, type CredentialUse } from './credentials.ts';
import { run, sql, type Sql } from './sql.ts';

export interface RootQuorum {
  threshold: number;
  /** Oldest user first (then by id). */
  userIds: string[];
}

/**
 * Writes the quorum of an organization that has none yet, in one statement that writes nothing
 * unless every member is a user of the organization not removed, named once, and the threshold is
 * at most their number. It holds the members' rows (FOR SHARE) until the transaction ends, so a
 * concurrent removal waits for it. False when it wrote nothing.
 */
export async function insertRootQuorum(db: Queryable, organizationId: string, quorum: RootQuorum): Promise<boolean> {
  const rows = await run(
    db,
    sql`WITH members AS (
          SELECT id FROM users
           WHERE organization_id = ${organizationId}::uuid AND id = ANY(${quorum.userIds}::uuid[]) AND removed_at IS NULL
             FOR SHARE
        ), quorum AS (
          INSERT INTO root_quorums (organization_id, threshold)
          SELECT ${organizationId}::uuid, ${quorum.threshold}::int
           WHERE (SELECT count(*) FROM members) = cardinality(${quorum.userIds}::uuid[])
             AND ${quorum.threshold}::int <= cardinality(${quorum.userIds}::uuid[])
          RETURNING organization_id
        )
        INSERT INTO root_quorum_members (organization_id, user_id)
        SELECT q.organization_id, m.id FROM quorum q, members m
        RETURNING user_id`,
  );
  return rows.length > 0;
}

/** An expression: the quorum of the organization `organizationId` (an expression) as JSON {threshold, userIds}, NULL when it has none. */
export function rootQuorumJson(organizationId: Sql): Sql {
  return sql`(SELECT json_build_object('threshold', q.threshold, 'userIds', coalesce(
                (SELECT json_agg(m.user_id ORDER BY u.created_at, u.id)
                   FROM root_quorum_members m JOIN users u ON u.id = m.user_id
                  WHERE m.organization_id = q.organization_id), '[]'))
                FROM root_quorums q WHERE q.organization_id = ${organizationId})`;
}

/** The organization's root quorum, on behalf of a credential checked in the same statement. */
export async function findRootQuorumFor(
  db: Queryable,
  use: CredentialUse,
  organizationId: string,
): Promise<{ refused?: CredentialState; quorum?: RootQuorum }> {
  const { refused, rows } = await runWithCredential<{ quorum: RootQuorum | null }>(
    db,
    use,
    sql`SELECT ${rootQuorumJson(sql`${organizationId}::uuid`)} AS quorum`,
  );
  if (refused) return { refused };
  const quorum = rows[0]?.quorum;
  return quorum ? { quorum } : {};
}
