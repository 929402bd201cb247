// The activity object on the wire: the nested shape of the API's reference plus the flat keys that
// existing clients read, written as JSON text directly. Each large value is serialised once and the
// same text placed in both copies: the intent as stored (JSON text made at submission, under its
// intent key), and the signed body escaped once for every vote that signed it. One stored record
// renders the same bytes on every read.
import type { ActivityRecord, VoteRecord } from '../store/activities.ts';
import type { Access } from './authorization.ts';

const quote = JSON.stringify;

/** What userJson renders of a user (a vote's user, an organization's). */
export type UserFields = Pick<VoteRecord, 'userId' | 'userName' | 'userEmail' | 'userPhoneNumber' | 'userTags' | 'userCreatedAt' | 'userUpdatedAt'>;

/**
 * A user as the ecosystem's v1User (a voter, an organization's user): every field it requires, the
 * contacts when the user has them, the ids of its tags. The credential lists are left empty on
 * purpose: a user may hold any number of keys and sessions, and a vote names the one that signed it
 * (publicKey) already.
 */
export function userJson(user: UserFields): string {
  return (
    `{"userId":${quote(user.userId)},"userName":${quote(user.userName)},` +
    (user.userEmail === null ? '' : `"userEmail":${quote(user.userEmail)},`) +
    (user.userPhoneNumber === null ? '' : `"userPhoneNumber":${quote(user.userPhoneNumber)},`) +
    `"authenticators":[],"apiKeys":[],"userTags":${quote(user.userTags)},"oauthProviders":[],"mfaPolicies":[],` +
    `"createdAt":${quote(user.userCreatedAt.toISOString())},"updatedAt":${quote(user.userUpdatedAt.toISOString())}}`
  );
}

function voteJson(vote: VoteRecord, activityId: string, escapedBody: string): string {
  return (
    `{"id":${quote(vote.id)},"userId":${quote(vote.userId)},"user":${userJson(vote)},` +
    `"activityId":${quote(activityId)},"selection":${quote(vote.selection)},` +
    `"message":${vote.message === undefined ? escapedBody : quote(vote.message)},` +
    `"publicKey":${quote(vote.publicKey)},"signature":${quote(vote.signature)},"scheme":${quote(vote.scheme)},` +
    `"createdAt":${quote(vote.createdAt.toISOString())}}`
  );
}

/**
 * The activity object as JSON text (what `{"activity": …}` and activity lists hold), as `access` says
 * its reader may still approve or reject it.
 */
export function activityJson(record: ActivityRecord, access: Access): string {
  const escapedBody = quote(record.rawBody);
  // Both are stored under their keys: {"<intentKey>": …} and {"<resultKey>": …}.
  const intent = record.intentJson;
  const result = record.result ? quote(record.result) : '{}';
  const votes = `[${record.votes.map((vote) => voteJson(vote, record.id, escapedBody)).join(',')}]`;
  const common =
    `"id":${quote(record.id)},"organizationId":${quote(record.organizationId)},` +
    `"status":${quote(record.status)},"type":${quote(record.type)}`;
  const bookkeeping =
    `"votes":${votes},"fingerprint":${quote(record.fingerprint)},"canApprove":${access.canApprove},"canReject":${access.canReject},` +
    (record.failure ? `"failure":${quote({ code: record.failure.code, message: record.failure.message, details: [] })},` : '') +
    `"createdAt":${quote(record.createdAt.toISOString())},"updatedAt":${quote(record.updatedAt.toISOString())}`;
  const nested = `{${common},"intent":${intent},"result":${result},${bookkeeping}}`;
  // The flat result holds the nested activity and the result keys beside it.
  const flatResult = result === '{}' ? `{"activity":${nested}}` : `{"activity":${nested},${result.slice(1)}`;
  return (
    `{${common},"timestampMs":${quote(record.timestampMs)},"intent":${intent},"result":${flatResult},${bookkeeping}` +
    `${record.appProofs ? `,"appProofs":${quote(record.appProofs)}` : ''}}`
  );
}

/** The answer to a submission or get_activity: `{"activity": …}`. */
export function activityResponseJson(record: ActivityRecord, access: Access): string {
  return `{"activity":${activityJson(record, access)}}`;
}
