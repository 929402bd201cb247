// What decides an organization's activities, read together: the version of its authority
// (organizations.authority_version), its root quorum and its policies. Every statement that changes
// any of them raises the version (authorityBump); an activity's statement checks the version it was
// decided under (authorityUnchanged), so a decision made with what a process remembered never
// outlives a change made by any process.
import { runWithCredential, type CredentialState, type CredentialUse } from './credentials.ts';
import type { Queryable } from './db.ts';
import { policiesFromJson, policiesJson, type StoredPolicy } from './policies.ts';
import { rootQuorumJson, type RootQuorum } from './rootQuorums.ts';
import { run, sql } from './sql.ts';
import { userTagIdsJson } from './userTags.ts';

export interface AuthorityRecord {
  /** organizations.authority_version, as text (a bigint). */
  version: string;
  rootQuorum: RootQuorum;
  policies: StoredPolicy[];
}

/** The organization's authority in one statement, or undefined when there is no such organization. */
export async function readAuthority(db: Queryable, organizationId: string): Promise<AuthorityRecord | undefined> {
  const [row] = await run<{ version: string; root_quorum: RootQuorum | null; policies: unknown }>(
    db,
    sql`SELECT o.authority_version::text AS version, ${rootQuorumJson(sql`o.id`)} AS root_quorum, ${policiesJson(sql`o.id`)} AS policies
          FROM organizations o WHERE o.id = ${organizationId}::uuid`,
  );
  if (!row) return undefined;
  return { version: row.version, rootQuorum: row.root_quorum ?? { threshold: 1, userIds: [] }, policies: policiesFromJson(row.policies) };
}

/** A user as policies see it: the ids of its tags (oldest tag first), its email and its name, as stored now. */
export async function readApproverUser(db: Queryable, userId: string): Promise<ApproverUser> {
  const [row] = await run<{ tags: string[] | null; email: string | null; user_name: string | null }>(
    db,
    sql`SELECT ${userTagIdsJson(sql`${userId}::uuid`)} AS tags, u.email, u.user_name
          FROM (SELECT 1) one LEFT JOIN users u ON u.id = ${userId}::uuid`,
  );
  return { tags: row?.tags ?? [], email: row?.email ?? null, name: row?.user_name ?? null };
}

/** What policies read of a user: its tags, email and name as stored now (null for a user not found). */
export interface ApproverUser {
  tags: string[];
  email: string | null;
  name: string | null;
}

/**
 * The organization's current authority version, on behalf of a credential checked in the same
 * statement: read before a refusal is answered, so that a refusal is never made with an authority
 * another process has changed, nor told to a credential that may no longer be used.
 */
export async function authorityVersionFor(
  db: Queryable,
  use: CredentialUse,
  organizationId: string,
): Promise<{ refused?: CredentialState; version?: string }> {
  const { refused, rows } = await runWithCredential<{ version: string }>(
    db,
    use,
    sql`SELECT authority_version::text AS version FROM organizations WHERE id = ${organizationId}::uuid`,
  );
  return refused ? { refused } : rows[0] ? { version: rows[0].version } : {};
}
