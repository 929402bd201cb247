// Policies (table policies): an organization's ALLOW and DENY rules, each with its condition and
// consensus expressions kept as written ('' when absent) and checked before they are stored. A name is
// unique in its organization (a unique index); every write of an organization's policies locks the
// organization's row first (the engine's lockAuthority), so concurrent ones see each other's effect.
import { runWithCredential, type CredentialState, type CredentialUse } from './credentials.ts';
import type { Queryable } from './db.ts';
import { sql, type Sql } from './sql.ts';

export type PolicyEffect = 'EFFECT_ALLOW' | 'EFFECT_DENY';

/** A policy as stored: what decides the organization's activities, and what the queries answer. */
export interface StoredPolicy {
  policyId: string;
  policyName: string;
  effect: PolicyEffect;
  /** '' when the policy has none: it is about every activity. */
  condition: string;
  /** '' when the policy has none: any approvers will do. */
  consensus: string;
  notes: string;
  createdAt: Date;
  updatedAt: Date;
}

/** A policy to write: its expressions already checked, '' for one absent. */
export type NewPolicy = Omit<StoredPolicy, 'createdAt' | 'updatedAt'>;

/** What update_policy changes: each field given is set, each absent kept. */
export type PolicyChange = Partial<Omit<NewPolicy, 'policyId'>>;

interface PolicyRow {
  policy_id: string;
  name: string;
  effect: PolicyEffect;
  condition: string;
  consensus: string;
  notes: string;
  created_at: Date | string;
  updated_at: Date | string;
}

function fromRow(row: PolicyRow): StoredPolicy {
  return {
    policyId: row.policy_id,
    policyName: row.name,
    effect: row.effect,
    condition: row.condition,
    consensus: row.consensus,
    notes: row.notes,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

const COLUMNS = sql`p.policy_id, p.name, p.effect, p.condition, p.consensus, p.notes, p.created_at, p.updated_at`;

/** The organization's policies in their one order: oldest first, then by id. */
function policiesOf(organizationId: Sql): Sql {
  return sql`SELECT ${COLUMNS} FROM policies p WHERE p.organization_id = ${organizationId} ORDER BY p.created_at, p.policy_id`;
}

/** A guard condition: the organization has no policy of this name (but `except`, the one being renamed). */
export function policyNameFree(organizationId: string, name: string, except?: string): Sql {
  return sql`NOT EXISTS (SELECT 1 FROM policies WHERE organization_id = ${organizationId}::uuid AND name = ${name}
                            AND policy_id IS DISTINCT FROM ${except ?? null}::uuid)`;
}

/** A guard condition: the organization has room for `adding` more policies with at most `max` in all. */
export function policiesRoomFor(organizationId: string, adding: number, max: number): Sql {
  return sql`(SELECT count(*) FROM policies WHERE organization_id = ${organizationId}::uuid) + ${adding}::int <= ${max}::int`;
}

/** A guard condition: the policy is one of the organization's. `policyId` must be a UUID. */
export function policyOfOrganization(organizationId: string, policyId: string): Sql {
  return sql`EXISTS (SELECT 1 FROM policies WHERE policy_id = ${policyId}::uuid AND organization_id = ${organizationId}::uuid)`;
}

/** A row of an activity's statement (`activity` yields its row): the new policies, created at `now`. */
export function insertPoliciesOfActivity(activity: Sql, organizationId: string, policies: readonly NewPolicy[], now: Date): Sql {
  const rows = policies.map((p) => ({
    policy_id: p.policyId,
    name: p.policyName,
    effect: p.effect,
    condition: p.condition,
    consensus: p.consensus,
    notes: p.notes,
  }));
  return sql`INSERT INTO policies (policy_id, organization_id, name, effect, condition, consensus, notes, created_at, updated_at)
             SELECT p.policy_id, ${organizationId}::uuid, p.name, p.effect, p.condition, p.consensus, p.notes,
                    ${now}::timestamptz, ${now}::timestamptz
               FROM ${activity},
                    jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
                      AS p (policy_id uuid, name text, effect text, condition text, consensus text, notes text)`;
}

/** A row of an activity's statement: sets the fields of the organization's policy that `change` gives, updated at `now`. */
export function updatePolicyOfActivity(activity: Sql, organizationId: string, policyId: string, change: PolicyChange, now: Date): Sql {
  const value = (field: keyof PolicyChange) => sql`${change[field] ?? null}::text`;
  return sql`UPDATE policies
                SET name = coalesce(${value('policyName')}, name),
                    effect = coalesce(${value('effect')}, effect),
                    condition = coalesce(${value('condition')}, condition),
                    consensus = coalesce(${value('consensus')}, consensus),
                    notes = coalesce(${value('notes')}, notes),
                    updated_at = ${now}::timestamptz
              WHERE organization_id = ${organizationId}::uuid AND policy_id = ${policyId}::uuid AND EXISTS (SELECT 1 FROM ${activity})`;
}

/** A row of an activity's statement: removes the organization's policies among `policyIds`. */
export function deletePoliciesOfActivity(activity: Sql, organizationId: string, policyIds: readonly string[]): Sql {
  return sql`DELETE FROM policies
              WHERE organization_id = ${organizationId}::uuid AND policy_id = ANY(${policyIds}::uuid[]) AND EXISTS (SELECT 1 FROM ${activity})`;
}

/**
 * An expression: the policies of the organization whose id is `organizationId` (an SQL expression)
 * as a JSON array policiesFromJson reads, oldest first (policiesOf's order). For a statement that reads an
 * organization with its policies (get_organization, an organization's authority).
 */
export function policiesJson(organizationId: Sql): Sql {
  return sql`(SELECT coalesce(json_agg(f ORDER BY f.created_at, f.policy_id), '[]') FROM (${policiesOf(organizationId)}) f)`;
}

/** The policies of policiesJson as records. */
export function policiesFromJson(json: unknown): StoredPolicy[] {
  return ((json ?? []) as PolicyRow[]).map(fromRow);
}

/** The organization's policies, oldest first, on behalf of a credential checked in the same statement. */
export async function listPoliciesFor(
  db: Queryable,
  use: CredentialUse,
  organizationId: string,
): Promise<{ refused?: CredentialState; policies?: StoredPolicy[] }> {
  const { refused, rows } = await runWithCredential<PolicyRow>(db, use, policiesOf(sql`${organizationId}::uuid`));
  // The credential check wraps the statement in a join, which need not keep its order: sorted again (ids are lowercase hex).
  const inOrder = (a: StoredPolicy, b: StoredPolicy) =>
    a.createdAt.getTime() - b.createdAt.getTime() || (a.policyId < b.policyId ? -1 : a.policyId > b.policyId ? 1 : 0);
  return refused ? { refused } : { policies: rows.map(fromRow).sort(inOrder) };
}

/** The organization's policy, on behalf of a credential checked in the same statement; none when it has no such policy. */
export async function findPolicyFor(
  db: Queryable,
  use: CredentialUse,
  organizationId: string,
  policyId: string,
): Promise<{ refused?: CredentialState; policy?: StoredPolicy }> {
  const { refused, rows } = await runWithCredential<PolicyRow>(
    db,
    use,
    sql`SELECT ${COLUMNS} FROM policies p WHERE p.organization_id = ${organizationId}::uuid AND p.policy_id = ${policyId}::uuid`,
  );
  return refused ? { refused } : rows[0] ? { policy: fromRow(rows[0]) } : {};
}
