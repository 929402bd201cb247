// Votes: who approved an activity, with the stamp that says so. Signet records one, the
// submitter's, kept in the activity's own row (activities.vote_*, migration 017); its message is the
// activity's raw body, kept once in activities.raw_body (vote_message NULL).
import { sql, type Sql } from './sql.ts';

export interface VoteRecord {
  id: string;
  userId: string;
  userName: string;
  /** The user as it is now: its contacts and times (store/users.ts). */
  userEmail: string | null;
  userPhoneNumber: string | null;
  userCreatedAt: Date;
  userUpdatedAt: Date;
  selection: string;
  /** What the vote signed when it is not the activity's raw body (undefined: the raw body, stored once). */
  message?: string;
  publicKey: string;
  signature: string;
  scheme: string;
  createdAt: Date;
}

/** The columns of activities that hold its vote, in the order of voteValues. */
export const VOTE_COLUMNS = sql`vote_id, vote_user_id, vote_selection, vote_message, vote_public_key, vote_signature, vote_scheme, vote_created_at`;

/** The values of VOTE_COLUMNS for the vote of the stamp that submitted the activity (its message: the raw body). */
export function voteValues(vote: { id: string; userId: string; selection: string; publicKey: string; signature: string; scheme: string; createdAt: Date }): Sql {
  return sql`${vote.id}::uuid, ${vote.userId}::uuid, ${vote.selection}, NULL, ${vote.publicKey}, ${vote.signature}, ${vote.scheme},
             ${vote.createdAt}::timestamptz`;
}

/**
 * An expression: the votes of the activity row aliased `a` as a JSON array — its one vote with its
 * user as it is now, or none; a NULL message is the activity's raw body, not read twice.
 */
export const VOTES_JSON = sql`coalesce((SELECT json_build_array(json_build_object(
    'id', a.vote_id, 'userId', a.vote_user_id, 'userName', u.user_name, 'userEmail', u.email, 'userPhoneNumber', u.phone_number,
    'userCreatedAt', u.created_at, 'userUpdatedAt', u.updated_at, 'selection', a.vote_selection, 'message', a.vote_message,
    'publicKey', a.vote_public_key, 'signature', a.vote_signature, 'scheme', a.vote_scheme, 'createdAt', a.vote_created_at))
  FROM users u WHERE a.vote_id IS NOT NULL AND u.id = a.vote_user_id), '[]')`;

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
