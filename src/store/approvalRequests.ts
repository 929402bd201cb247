// Approval requests (table approval_requests): the email that asks a user to vote on a waiting
// activity, queued in the outbox by the statement that makes the activity wait (or keeps it waiting),
// once per activity and user. Here: the users a caller may weigh as voters (read before the
// decision's write), and the rows of the activity's statement that record the requests and queue
// their messages, each recipient's address and the organization's name selected in that statement.
import type { ApiKeyKind } from '../wire/credentialKind.ts';
import type { Queryable } from './db.ts';
import { queueMessagesTo } from './outbox.ts';
import { run, sql, type Sql } from './sql.ts';
import { userTagIdsJson } from './userTags.ts';

/** The outbox channel of approval emails. */
export const APPROVAL_CHANNEL = 'approval';

/** What an approval email's outbox payload holds: the activity's fields, and the recipient's and organization's the statement selects. */
export interface ApprovalEmailPayload {
  /** The recipient's address (selected from users). */
  to: string;
  /** The recipient's user name (selected from users). */
  userName: string;
  organizationId: string;
  /** The organization's name (selected from organizations). */
  organizationName: string;
  activityId: string;
  activityType: string;
  /** One line about the intent, without its secrets. */
  summary: string;
  /** What a signing activity signs, in words (a ReadableSummary of src/readable, at most 16 KiB), when its decision read one. */
  readable?: object;
  submitter: { userId: string; userName: string };
  /** When the activity was submitted (ISO 8601). */
  createdAt: string;
  /** Where the activity is read and voted on. */
  link: string;
}

/** What the caller puts in every request's payload; the statement adds the rest per recipient. */
export type ApprovalRequestContent = Omit<ApprovalEmailPayload, 'to' | 'userName' | 'organizationName'>;

/** A user as a policy's consensus sees a voter: its tags, email, name and live credentials. */
export interface VoterCandidate {
  id: string;
  email: string;
  name: string;
  tags: string[];
  apiKeys: Array<{ id: string; kind: ApiKeyKind; publicKey: string }>;
  authenticators: Array<{ id: string; credentialId: string }>;
}

/** Credentials of each kind read per candidate (the newest first): enough to tell what types a user holds. */
const CREDENTIALS_PER_CANDIDATE = 20;

/**
 * The organization's users not removed who have an email address proven for them (its verified
 * moment set), but those of `except`, oldest first, at most `limit`: those an approval email could
 * reach, for the caller to weigh against its policies.
 */
export async function readVoterCandidates(db: Queryable, organizationId: string, except: readonly string[], limit: number): Promise<VoterCandidate[]> {
  const rows = await run<{ id: string; email: string; user_name: string; tags: string[]; api_keys: VoterCandidate['apiKeys']; authenticators: VoterCandidate['authenticators'] }>(
    db,
    sql`SELECT u.id, u.email, u.user_name, ${userTagIdsJson(sql`u.id`)} AS tags,
               coalesce((SELECT json_agg(json_build_object('id', k.id, 'kind', k.kind, 'publicKey', k.public_key))
                           FROM (SELECT id, kind, public_key FROM api_keys
                                  WHERE user_id = u.id AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())
                                  ORDER BY created_at DESC LIMIT ${CREDENTIALS_PER_CANDIDATE}) k), '[]') AS api_keys,
               coalesce((SELECT json_agg(json_build_object('id', a.id, 'credentialId', a.credential_id))
                           FROM (SELECT id, credential_id FROM authenticators
                                  WHERE user_id = u.id AND revoked_at IS NULL
                                  ORDER BY created_at DESC LIMIT ${CREDENTIALS_PER_CANDIDATE}) a), '[]') AS authenticators
          FROM users u
         WHERE u.organization_id = ${organizationId}::uuid AND u.removed_at IS NULL AND u.email IS NOT NULL AND u.email_verified_at IS NOT NULL
           AND u.id <> ALL(${[...except]}::uuid[])
         ORDER BY u.created_at, u.id
         LIMIT ${limit}`,
  );
  return rows.map((row) => ({
    id: row.id,
    email: row.email,
    name: row.user_name,
    tags: row.tags,
    apiKeys: row.api_keys,
    authenticators: row.authenticators,
  }));
}

/** At most `count` approval emails to one address within `windowSeconds`. */
export interface ApprovalEmailBound {
  count: number;
  windowSeconds: number;
}

/**
 * A lock (ActivityPlan.locks, or taken in the vote's transaction before its statement) on the
 * addresses of `voterIds`, in one order: statements that may email one address run one after the
 * other, so each counts the emails of the others and the bound is exact, in every process. A
 * transaction-level advisory lock, released at commit.
 */
export function lockApprovalAddresses(organizationId: string, voterIds: readonly string[]): Sql {
  return sql`SELECT pg_advisory_xact_lock(k) FROM (
               SELECT DISTINCT hashtextextended('approval:' || u.email, 0) AS k FROM users u
                WHERE u.id = ANY(${[...voterIds]}::uuid[]) AND u.organization_id = ${organizationId}::uuid AND u.email IS NOT NULL
                ORDER BY k) a`;
}

/**
 * The rows of the activity's statement (`activity` yields its row's `id` when the statement writes
 * it) that ask `voterIds` to vote: for each of them who is a user of the organization not removed,
 * has an email address proven for it (its verified moment set), is not one of `exceptIds` (who voted
 * already) and was not asked before for this activity, a request recorded at `now` with the address,
 * and one message queued on the approval channel, unless `bound` emails went to that address in the
 * window before `now`: then the request is recorded without a message (outbox_id NULL), skipped. Both
 * rows read the statement's one snapshot, so they agree. The message's id is derived from the
 * activity and the user, so even two statements that raced past the check queue it once.
 */
export function requestApprovalsOfActivity(
  activity: Sql,
  request: {
    organizationId: string;
    voterIds: readonly string[];
    exceptIds: readonly string[];
    content: ApprovalRequestContent;
    now: Date;
    bound: ApprovalEmailBound;
  },
): Sql[] {
  const { now, bound } = request;
  const recipients = sql`SELECT md5(a.id::text || ':' || u.id::text)::uuid AS id, a.id AS activity_id, u.id AS user_id, u.email AS address,
                                (SELECT count(*) FROM approval_requests s
                                  WHERE s.address = u.email AND s.outbox_id IS NOT NULL
                                    AND s.created_at > ${now}::timestamptz - make_interval(secs => ${bound.windowSeconds}::int)) < ${bound.count}::int AS sent,
                                jsonb_build_object('to', u.email, 'userName', u.user_name, 'organizationName', o.name) AS fields
                           FROM ${activity} a
                           JOIN users u ON u.id = ANY(${[...request.voterIds]}::uuid[]) AND u.organization_id = ${request.organizationId}::uuid
                           JOIN organizations o ON o.id = u.organization_id
                          WHERE u.removed_at IS NULL AND u.email IS NOT NULL AND u.email <> '' AND u.email_verified_at IS NOT NULL
                            AND u.id <> ALL(${[...request.exceptIds]}::uuid[])
                            AND NOT EXISTS (SELECT 1 FROM approval_requests r WHERE r.activity_id = a.id AND r.user_id = u.id)`;
  return [
    sql`INSERT INTO approval_requests (activity_id, user_id, outbox_id, address, created_at)
        SELECT activity_id, user_id, CASE WHEN sent THEN id END, address, ${now}::timestamptz FROM (${recipients}) r
        ON CONFLICT DO NOTHING`,
    queueMessagesTo(sql`SELECT * FROM (${recipients}) r WHERE r.sent`, { organizationId: request.organizationId, channel: APPROVAL_CHANNEL, payload: request.content }),
  ];
}

/** The users whose approval email for the activity, requested at `at`, was skipped (past the bound). */
export async function skippedApprovalRequests(db: Queryable, activityId: string, at: Date): Promise<string[]> {
  const rows = await run<{ user_id: string }>(
    db,
    sql`SELECT user_id FROM approval_requests WHERE activity_id = ${activityId}::uuid AND created_at = ${at}::timestamptz AND outbox_id IS NULL ORDER BY user_id`,
  );
  return rows.map((row) => row.user_id);
}
