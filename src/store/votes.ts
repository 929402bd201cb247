// Votes (table votes): who approved or rejected an activity, with the stamp that says so, one per
// user and activity. Today Signet records one, the submitter's, written by the activity's own
// statement; its message is the activity's raw body, kept once in activities.raw_body (message NULL).
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
  selection: string;
  /** What the vote signed when it is not the activity's raw body (undefined: the raw body, stored once). */
  message?: string;
  publicKey: string;
  signature: string;
  scheme: string;
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
  createdAt: Date;
}

/**
 * A statement part writing the vote of the stamp that submitted an activity (its message: the raw
 * body, stored once) for each row `activity` yields: the activity's statement passes the activity
 * row it has just written, so the vote exists exactly when the activity was written.
 */
export function submitterVoteInsert(vote: NewVote, activity: Sql): Sql {
  return sql`INSERT INTO votes (id, activity_id, organization_id, user_id, selection, message, public_key, signature, scheme, created_at)
    SELECT ${vote.id}::uuid, id, ${vote.organizationId}::uuid, ${vote.userId}::uuid, ${vote.selection}, NULL, ${vote.publicKey},
           ${vote.signature}, ${vote.scheme}, ${vote.createdAt}::timestamptz
      FROM ${activity}`;
}

/**
 * An expression: the votes of the activity row aliased `a` as a JSON array, oldest first (then by
 * id), each with its user as it is now; a NULL message is the activity's raw body, not read twice.
 */
export const VOTES_JSON = sql`coalesce((SELECT json_agg(json_build_object(
    'id', v.id, 'userId', v.user_id, 'userName', u.user_name, 'userEmail', u.email, 'userPhoneNumber', u.phone_number,
    'userCreatedAt', u.created_at, 'userUpdatedAt', u.updated_at, 'userTags', ${userTagIdsJson(sql`u.id`)}, 'selection', v.selection, 'message', v.message,
    'publicKey', v.public_key, 'signature', v.signature, 'scheme', v.scheme, 'createdAt', v.created_at) ORDER BY v.created_at, v.id)
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
