// Root quorums (tables root_quorums and root_quorum_members): per organization, a threshold and the
// users who are its members. A member is a user of the same organization (a foreign key says so);
// threshold <= number of members is kept by the statements that write a quorum: insertRootQuorum for
// a new organization, replaceRootQuorumOfActivity's rows, whose activity's guards check it, and
// replaceRootQuorum (the operator's), which checks it itself.
import { authorityBump, lockAuthority } from './authorityVersion.ts';
import type { Database, Queryable } from './db.ts';
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
    sql`WITH members AS (${heldMembers(organizationId, quorum.userIds)}), quorum AS (
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

/**
 * The ids among `userIds` of users of the organization not removed, their rows held (FOR SHARE) until
 * the transaction ends, so a concurrent removal of one waits for it (and then finds it a member).
 */
function heldMembers(organizationId: string, userIds: string[]): Sql {
  return sql`SELECT id FROM users
              WHERE organization_id = ${organizationId}::uuid AND id = ANY(${userIds}::uuid[]) AND removed_at IS NULL
                FOR SHARE`;
}

/**
 * Rows of an activity's statement (`activity` yields its row): the organization's quorum becomes
 * `quorum`, at `now`. The caller's guards check each member is a user of the organization not
 * removed, named once, and the threshold between 1 and their number. Members that stay are kept,
 * the others deleted and the new ones added, so no row is deleted and inserted again in one statement.
 */
export function replaceRootQuorumOfActivity(activity: Sql, organizationId: string, quorum: RootQuorum, now: Date): Sql[] {
  return [
    sql`INSERT INTO root_quorums (organization_id, threshold, updated_at)
        SELECT ${organizationId}::uuid, ${quorum.threshold}::int, ${now}::timestamptz FROM ${activity}
        ON CONFLICT (organization_id) DO UPDATE SET threshold = EXCLUDED.threshold, updated_at = EXCLUDED.updated_at`,
    sql`DELETE FROM root_quorum_members
         WHERE organization_id = ${organizationId}::uuid AND NOT (user_id = ANY(${quorum.userIds}::uuid[])) AND EXISTS (SELECT 1 FROM ${activity})`,
    sql`INSERT INTO root_quorum_members (organization_id, user_id)
        SELECT ${organizationId}::uuid, m.user_id FROM ${activity}, unnest(${quorum.userIds}::uuid[]) AS m (user_id)
        ON CONFLICT DO NOTHING`,
  ];
}

/** What replaceRootQuorum did: the quorum written, or why nothing was. */
export type RootQuorumReplacement =
  | { replaced: RootQuorum }
  | { noOrganization: true }
  /** The index in `userIds` of the first id that is not a user of the organization not removed. */
  | { notAUser: number };

/**
 * The operator's replacement of the organization's quorum, without an activity: in one transaction,
 * after the lock update_root_quorum and policy writes take (lockAuthority), so it runs after or
 * before them, never between; the members' rows held (FOR SHARE); the rows replaceRootQuorumOfActivity
 * writes; and the organization's authority version raised, so every process decides its activities
 * with the new quorum. Nothing is written for an unknown organization or a member that is not a
 * user of it (or was removed). `quorum.userIds` are lowercase, each once, and 1 <= threshold <= their number.
 */
export async function replaceRootQuorum(db: Database, organizationId: string, quorum: RootQuorum): Promise<RootQuorumReplacement> {
  return db.transaction(async (tx) => {
    if ((await run(tx, lockAuthority(organizationId))).length === 0) return { noOrganization: true };
    const found = new Set((await run<{ id: string }>(tx, heldMembers(organizationId, quorum.userIds))).map((row) => row.id));
    const missing = quorum.userIds.findIndex((id) => !found.has(id));
    if (missing >= 0) return { notAUser: missing };
    // The statements of update_root_quorum's activity, each written once its row source yields a row: here, always.
    const always = sql`(SELECT 1) AS operator`;
    for (const statement of replaceRootQuorumOfActivity(always, organizationId, quorum, new Date())) await run(tx, statement);
    await run(tx, authorityBump(organizationId, always));
    const [row] = await run<{ quorum: RootQuorum }>(tx, sql`SELECT ${rootQuorumJson(sql`${organizationId}::uuid`)} AS quorum`);
    return { replaced: row!.quorum };
  });
}

/** The organization's root quorum; undefined when there is no such organization. */
export async function findRootQuorum(db: Queryable, organizationId: string): Promise<RootQuorum | undefined> {
  const [row] = await run<{ quorum: RootQuorum | null }>(
    db,
    sql`SELECT ${rootQuorumJson(sql`o.id`)} AS quorum FROM organizations o WHERE o.id = ${organizationId}::uuid`,
  );
  if (!row) return undefined;
  // Every organization has its quorum row; one without would be decided as readAuthority reads it: threshold 1, no member.
  return row.quorum ?? { threshold: 1, userIds: [] };
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
