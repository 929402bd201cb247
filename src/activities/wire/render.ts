// The activity object on the wire: the nested shape of the API's reference plus the flat keys that
// existing clients read, written as JSON text directly. Its fields, their order and their types are
// declared once, by the schemas of activitySchema.ts; this file writes each field's text. Each large
// value is serialised once and the same text placed in both copies: the intent as stored (JSON text
// made at submission, under its intent key), and the signed body escaped once for every vote that
// signed it. One stored record renders the same bytes on every read.
import type { z } from 'zod';
import { apiKeyCredentialType } from '../../auth/principal.ts';
import { ECOSYSTEM_TRANSPORTS } from '../../keys/verifyAuthenticatorRegistration.ts';
import type { ActivityRecord, VoteRecord } from '../../store/activities.ts';
import type { LiveApiKey } from '../../store/apiKeys.ts';
import type { LiveAuthenticator } from '../../store/authenticators.ts';
import type { OauthProviderRecord } from '../../store/oauthProviders.ts';
import type { UserRecord } from '../../store/users.ts';
import { activitySchema, apiKeySchema, authenticatorSchema, nestedActivitySchema, oauthProviderSchema, userSchema, voteSchema } from './activitySchema.ts';
import type { Access } from '../lifecycle/decide.ts';

const quote = JSON.stringify;

/** The fields an object of this type may leave out. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- {} extends Pick<Fields, Key> exactly when Key is optional
type OptionalKeys<Fields> = { [Key in keyof Fields]-?: {} extends Pick<Fields, Key> ? Key : never }[keyof Fields];

/** The JSON text of each field of an object; an optional field's may be undefined, to leave it out. */
type FieldTexts<Fields> = { [Key in Exclude<keyof Fields, OptionalKeys<Fields>>]: string } & { [Key in OptionalKeys<Fields>]: string | undefined };

/**
 * Writes objects of `schema` as JSON text: the fields the schema declares, in its order, each from its
 * text (fields it does not declare are not written).
 */
function textWriter<Schema extends z.ZodObject>(schema: Schema): (fields: FieldTexts<z.output<Schema>>) => string {
  // Each key with its quoted name, made once: the writer runs for every activity, vote and user listed.
  const keys = Object.keys(schema.shape).map((key) => ({ key: key as keyof FieldTexts<z.output<Schema>>, name: `${quote(key)}:` }));
  return (fields) => {
    let text = '';
    for (const { key, name } of keys) {
      const value = fields[key];
      if (value !== undefined) text += (text === '' ? '{' : ',') + name + value;
    }
    return text === '' ? '{}' : `${text}}`;
  };
}

const writeUser = textWriter(userSchema);
const writeVote = textWriter(voteSchema);
const writeNestedActivity = textWriter(nestedActivitySchema);
const writeActivity = textWriter(activitySchema);

/** What userJson renders of a user (a vote's user, an organization's). */
export type UserFields = Pick<VoteRecord, 'userId' | 'userName' | 'userEmail' | 'userPhoneNumber' | 'userTags' | 'userCreatedAt' | 'userUpdatedAt'>;

/** A user as the store reads it, in the fields userJson renders. */
export function userFieldsOf(user: UserRecord): UserFields {
  return {
    userId: user.id,
    userName: user.userName,
    userEmail: user.email,
    userPhoneNumber: user.phoneNumber,
    userTags: user.userTags,
    userCreatedAt: user.createdAt,
    userUpdatedAt: user.updatedAt,
  };
}

/**
 * An API key or session key as the ecosystem's v1ApiKey. A key is never changed after it is made
 * (but for a session key's expiry, moved when its client logs in again with it), so updatedAt is its
 * creation; expirationSeconds is its lifetime from creation, as the ecosystem writes it (whole
 * seconds, a string), present for expiring keys only.
 */
export function apiKeyObject(key: LiveApiKey): z.output<typeof apiKeySchema> {
  return {
    credential: { publicKey: key.publicKey, type: apiKeyCredentialType(key.kind) },
    apiKeyId: key.id,
    apiKeyName: key.name,
    createdAt: key.createdAt.toISOString(),
    updatedAt: key.createdAt.toISOString(),
    ...(key.expiresAt === null ? {} : { expirationSeconds: String(Math.max(0, Math.round((key.expiresAt.getTime() - key.createdAt.getTime()) / 1000))) }),
  };
}

/** The ecosystem's transport names by the W3C values stored. */
const TRANSPORT_NAMES = new Map(
  Object.entries(ECOSYSTEM_TRANSPORTS).map(([name, value]) => [value, name as z.output<typeof authenticatorSchema>['transports'][number]]),
);

/**
 * A passkey as the ecosystem's v1Authenticator. Its public key is the hex of its COSE key (as a
 * vote's publicKey names it); transports the ecosystem has no name for are left out; Signet keeps
 * neither the attestation format nor a model, so both are "".
 */
export function authenticatorObject(authenticator: LiveAuthenticator): z.output<typeof authenticatorSchema> {
  return {
    transports: authenticator.transports.flatMap((t) => TRANSPORT_NAMES.get(t) ?? []),
    attestationType: '',
    aaguid: authenticator.aaguid ?? '',
    credentialId: authenticator.credentialId,
    model: '',
    credential: { publicKey: authenticator.publicKey, type: 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR' },
    authenticatorId: authenticator.id,
    authenticatorName: authenticator.name,
    createdAt: authenticator.createdAt.toISOString(),
    updatedAt: authenticator.createdAt.toISOString(),
  };
}

/** An OpenID Connect identity bound to a user as the ecosystem's v1OauthProvider; a binding is never changed, so updatedAt is its creation. */
export function oauthProviderObject(provider: OauthProviderRecord): z.output<typeof oauthProviderSchema> {
  return {
    providerId: provider.id,
    providerName: provider.providerName,
    issuer: provider.issuer,
    audience: provider.audience,
    subject: provider.subject,
    createdAt: provider.createdAt.toISOString(),
    updatedAt: provider.createdAt.toISOString(),
  };
}

/**
 * A user as the ecosystem's v1User: every field it requires, the contacts when the user has them,
 * the ids of its tags, and the credentials the reader lists. A vote's user and get_organization's
 * users list none on purpose: a user may hold any number of keys and sessions, and a vote names the
 * one that signed it (publicKey) already; get_user and list_users give them.
 */
export function userJson(user: UserFields, credentials?: { apiKeys: LiveApiKey[]; authenticators: LiveAuthenticator[]; oauthProviders: OauthProviderRecord[] }): string {
  return writeUser({
    userId: quote(user.userId),
    userName: quote(user.userName),
    userEmail: user.userEmail === null ? undefined : quote(user.userEmail),
    userPhoneNumber: user.userPhoneNumber === null ? undefined : quote(user.userPhoneNumber),
    authenticators: credentials ? quote(credentials.authenticators.map(authenticatorObject)) : '[]',
    apiKeys: credentials ? quote(credentials.apiKeys.map(apiKeyObject)) : '[]',
    userTags: quote(user.userTags),
    oauthProviders: credentials ? quote(credentials.oauthProviders.map(oauthProviderObject)) : '[]',
    mfaPolicies: '[]',
    createdAt: quote(user.userCreatedAt.toISOString()),
    updatedAt: quote(user.userUpdatedAt.toISOString()),
  });
}

function voteJson(vote: VoteRecord, activityId: string, escapedBody: string): string {
  return writeVote({
    id: quote(vote.id),
    userId: quote(vote.userId),
    user: userJson(vote),
    activityId: quote(activityId),
    selection: quote(vote.selection),
    message: vote.message === undefined ? escapedBody : quote(vote.message),
    publicKey: quote(vote.publicKey),
    signature: quote(vote.signature),
    scheme: quote(vote.scheme),
    authenticatorData: vote.authenticatorData === null ? undefined : quote(vote.authenticatorData),
    clientDataJson: vote.clientDataJson === null ? undefined : quote(vote.clientDataJson),
    createdAt: quote(vote.createdAt.toISOString()),
  });
}

/**
 * The activity object as JSON text (what `{"activity": …}` and activity lists hold), as `access` says
 * its reader may still approve or reject it.
 */
export function activityJson(record: ActivityRecord, access: Access): string {
  const escapedBody = quote(record.rawBody);
  // Both are stored under their keys: {"<intentKey>": …} and {"<resultKey>": …}.
  const result = record.result ? quote(record.result) : '{}';
  const fields = {
    id: quote(record.id),
    organizationId: quote(record.organizationId),
    status: quote(record.status),
    type: quote(record.type),
    timestampMs: quote(record.timestampMs),
    intent: record.intentJson,
    result,
    votes: `[${record.votes.map((vote) => voteJson(vote, record.id, escapedBody)).join(',')}]`,
    fingerprint: quote(record.fingerprint),
    canApprove: String(access.canApprove),
    canReject: String(access.canReject),
    failure: record.failure ? quote({ code: record.failure.code, message: record.failure.message, details: [] }) : undefined,
    createdAt: quote(record.createdAt.toISOString()),
    updatedAt: quote(record.updatedAt.toISOString()),
    appProofs: record.appProofs ? quote(record.appProofs) : undefined,
  };
  // The nested copy writes the fields its schema declares: no timestampMs, no appProofs.
  const nested = writeNestedActivity(fields);
  // The flat result holds the nested activity and the result keys beside it. Set in place: a field
  // written after a spread of the others would take V8's slow path (some microseconds on Node 20).
  fields.result = result === '{}' ? `{"activity":${nested}}` : `{"activity":${nested},${result.slice(1)}`;
  return writeActivity(fields);
}

/** The answer to a submission: `{"activity": …}`. */
export function activityResponseJson(record: ActivityRecord, access: Access): string {
  return `{"activity":${activityJson(record, access)}}`;
}

/**
 * get_activity's answer: `{"activity": …}`, and beside it, for an activity stored with a summary of
 * what it signs, `"summary"`. Beside, not in: the activity object keeps the ecosystem's shape.
 */
export function activityReadJson(record: ActivityRecord, access: Access): string {
  const activity = activityJson(record, access);
  return record.summary ? `{"activity":${activity},"summary":${quote(record.summary)}}` : `{"activity":${activity}}`;
}

/** list_activities' `summaries` field (`,"summaries":{"<activity id>": …}`) for the listed activities stored with a summary; "" when none was. */
export function summariesFieldJson(records: readonly ActivityRecord[]): string {
  const entries = records.flatMap((record) => (record.summary ? [`${quote(record.id)}:${quote(record.summary)}`] : []));
  return entries.length > 0 ? `,"summaries":{${entries.join(',')}}` : '';
}
