// Votes (table votes): who approved or rejected an activity, with the stamp that says so, one per
// user and activity. The submitter's is written by the activity's own statement, its message the
// activity's raw body, kept once in activities.raw_body (message NULL); every later vote (an approval,
// a rejection) keeps the body it signed. Each vote records the credential that stamped it as policies
// see it, and what the policies said of the activity with that vote counted.
import { runWithCredential, type CredentialState, type CredentialUse } from './credentials.ts';
import type { Queryable } from './db.ts';
import { sql, type Sql } from './sql.ts';
import { userTagIdsJson } from './userTags.ts';

export interface VoteRecord {
  id: string;
  userId: string;
  userName: string;
  /** The user as it is now: its contacts and times (store/users.ts). */
  userEmail: string | null;
  userPhoneNumber: string | null;
  userCreatedAt: Date;
  userUpdatedAt: Date;
  /** Ids of the user's tags (store/userTags.ts), in the order they were created. */
  userTags: string[];
  /** The user has been removed since (users.removed_at). */
  userRemoved: boolean;
  selection: string;
  /** The stamping credential as policies see it; null for votes written before it was recorded. */
  credentialType: string | null;
  credentialId: string | null;
  webauthnCredentialId: string | null;
  /** [{policyId, outcome}]: what the policies said with this vote counted ([] when the root quorum decided). */
  policyEvaluations: Array<{ policyId: string; outcome: string }>;
  /** What the vote signed when it is not the activity's raw body (undefined: the raw body, stored once). */
  message?: string;
  publicKey: string;
  signature: string;
  scheme: string;
  /** A passkey vote's WebAuthn authenticatorData and clientDataJSON (base64url); null otherwise and for older votes. */
  authenticatorData: string | null;
  clientDataJson: string | null;
  createdAt: Date;
}

/** A vote to write: who, with which stamp, saying what, for which organization's activity. */
export interface NewVote {
  id: string;
  organizationId: string;
  userId: string;
  selection: string;
  publicKey: string;
  signature: string;
  scheme: string;
  /** What a passkey signed besides the challenge (base64url); null for other stamps. */
  authenticatorData: string | null;
  clientDataJson: string | null;
  credentialType: string;
  credentialId: string;
  webauthnCredentialId: string | null;
  policyEvaluations: Array<{ policyId: string; outcome: string }>;
  createdAt: Date;
  /** The body the vote signed; absent for the submitter's vote (the activity's raw body, stored once). */
  message?: string;
}

/**
 * A statement part writing a vote for each row `activity` yields: the activity's statement passes the
 * activity row it has just written (or changed), so the vote exists exactly when that write happened.
 */
export function voteInsert(vote: NewVote, activity: Sql): Sql {
  return sql`INSERT INTO votes (id, activity_id, organization_id, user_id, selection, message, public_key, signature, scheme,
                                authenticator_data, client_data_json, credential_type, credential_id, webauthn_credential_id, policy_evaluations, created_at)
    SELECT ${vote.id}::uuid, id, ${vote.organizationId}::uuid, ${vote.userId}::uuid, ${vote.selection}, ${vote.message ?? null}::text,
           ${vote.publicKey}, ${vote.signature}, ${vote.scheme}, ${vote.authenticatorData}::text, ${vote.clientDataJson}::text, ${vote.credentialType}, ${vote.credentialId}::uuid,
           ${vote.webauthnCredentialId}::text, ${JSON.stringify(vote.policyEvaluations)}::jsonb, ${vote.createdAt}::timestamptz
      FROM ${activity}`;
}

/**
 * An expression: the votes of the activity row aliased `a` as a JSON array, oldest first (then by
 * id), each with its user as it is now (removed or not); a NULL message is the activity's raw body, not read twice.
 */
export const VOTES_JSON = sql`coalesce((SELECT json_agg(json_build_object(
    'id', v.id, 'userId', v.user_id, 'userName', u.user_name, 'userEmail', u.email, 'userPhoneNumber', u.phone_number,
    'userCreatedAt', u.created_at, 'userUpdatedAt', u.updated_at, 'userTags', ${userTagIdsJson(sql`u.id`)}, 'userRemoved', u.removed_at IS NOT NULL, 'selection', v.selection, 'message', v.message,
    'publicKey', v.public_key, 'signature', v.signature, 'scheme', v.scheme,
    'authenticatorData', v.authenticator_data, 'clientDataJson', v.client_data_json, 'credentialType', v.credential_type,
    'credentialId', v.credential_id, 'webauthnCredentialId', v.webauthn_credential_id,
    'policyEvaluations', coalesce(v.policy_evaluations, '[]'), 'createdAt', v.created_at) ORDER BY v.created_at, v.id)
  FROM votes v JOIN users u ON u.id = v.user_id WHERE v.activity_id = a.id), '[]')`;

/** The votes of VOTES_JSON as records. */
export function votesFromJson(json: unknown): VoteRecord[] {
  type Dates = 'createdAt' | 'userCreatedAt' | 'userUpdatedAt';
  return (json as Array<Omit<VoteRecord, 'message' | Dates> & { message: string | null } & Record<Dates, string>>).map(
    ({ message, createdAt, userCreatedAt, userUpdatedAt, ...vote }) => ({
      ...vote,
      ...(message === null ? {} : { message }),
      userCreatedAt: new Date(userCreatedAt),
      userUpdatedAt: new Date(userUpdatedAt),
      createdAt: new Date(createdAt),
    }),
  );
}

/** What the policies said of an activity with one vote counted (get_policy_evaluations). */
export interface PolicyEvaluationRecord {
  voteId: string;
  activityId: string;
  organizationId: string;
  policyEvaluations: Array<{ policyId: string; outcome: string }>;
  createdAt: Date;
}

/**
 * The evaluations of the organization's activity, one per vote, oldest first, on behalf of a
 * credential checked in the same statement; undefined when the organization has no such activity.
 */
export async function policyEvaluationsFor(
  db: Queryable,
  use: CredentialUse,
  key: { organizationId: string; activityId: string },
): Promise<{ refused?: CredentialState; evaluations?: PolicyEvaluationRecord[] }> {
  const { refused, rows } = await runWithCredential<{ evaluations: Array<Omit<PolicyEvaluationRecord, 'createdAt'> & { createdAt: string }> }>(
    db,
    use,
    sql`SELECT coalesce((SELECT json_agg(json_build_object('voteId', v.id, 'activityId', v.activity_id, 'organizationId', v.organization_id,
                    'policyEvaluations', coalesce(v.policy_evaluations, '[]'), 'createdAt', v.created_at) ORDER BY v.created_at, v.id)
                  FROM votes v WHERE v.activity_id = a.id), '[]') AS evaluations
          FROM activities a WHERE a.organization_id = ${key.organizationId}::uuid AND a.id = ${key.activityId}::uuid`,
  );
  if (refused) return { refused };
  const [row] = rows;
  return row ? { evaluations: row.evaluations.map((e) => ({ ...e, createdAt: new Date(e.createdAt) })) } : {};
}
