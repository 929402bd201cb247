// The activity object on the wire, declared once, field by field: the flat object with the nested copy
// under result.activity, its votes with their user, and App Proofs. render.ts writes its JSON text
// from these schemas (their fields, in their order), and the OpenAPI document describes it with them;
// the engine never parses an answer with them (test/openapi.test.ts checks real answers against them).
// `activityObject` takes the intent and result of one activity type.
import { z } from 'zod';
import { APP_PROOF_SCHEME } from '../lifecycle/appProofs.ts';
import type { ActivityHandler } from '../handler.ts';
import { ACTIVITY_STATUS, ACTIVITY_STATUSES } from './status.ts';
import { timestamp, uuid } from '../../wire/describedFields.ts';

/** An array Signet always leaves empty, kept because the ecosystem's clients require the field. */
const alwaysEmpty = (description: string) => z.array(z.unknown()).max(0).describe(`${description}; always empty`);

/** A credential's public key and type, as the ecosystem's credential object. */
const credentialSchema = (types: [string, ...string[]], publicKey: string) =>
  z
    .strictObject({
      publicKey: z.string().describe(publicKey),
      type: z.enum(types).describe(types.join(' or ')),
    })
    .describe('The credential: its public key and type');

/** An API key or session key as the ecosystem's v1ApiKey (render.ts's apiKeyObject). */
export const apiKeySchema = z
  .strictObject({
    credential: credentialSchema(
      ['CREDENTIAL_TYPE_API_KEY_P256', 'CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256', 'CREDENTIAL_TYPE_OTP_AUTH_KEY_P256', 'CREDENTIAL_TYPE_EMAIL_AUTH_KEY_P256', 'CREDENTIAL_TYPE_RECOVER_USER_KEY_P256'],
      'The P-256 public key, compressed, in hex; the type says an API key, a session key (otp_login\'s) a key of otp_auth or email_auth, or a recovery key',
    ),
    apiKeyId: uuid('Unique identifier of the key'),
    apiKeyName: z.string().describe('Name of the key ("session" for a session key)'),
    createdAt: timestamp('When the key was made'),
    updatedAt: timestamp('The same as createdAt: a key is not changed after it is made'),
    expirationSeconds: z
      .string()
      .regex(/^\d+$/)
      .optional()
      .describe('For an expiring key: its lifetime from createdAt, in whole seconds (a string); absent for a key that never expires'),
  })
  .meta({ id: 'ApiKey', description: "An API key or session key in the shape of the ecosystem's v1ApiKey" });

/** A passkey as the ecosystem's v1Authenticator (render.ts's authenticatorObject). */
export const authenticatorSchema = z
  .strictObject({
    transports: z
      .array(z.enum(['AUTHENTICATOR_TRANSPORT_BLE', 'AUTHENTICATOR_TRANSPORT_INTERNAL', 'AUTHENTICATOR_TRANSPORT_NFC', 'AUTHENTICATOR_TRANSPORT_USB', 'AUTHENTICATOR_TRANSPORT_HYBRID']))
      .describe('How the passkey is reached, as registered (transports with no name here are left out)'),
    attestationType: z.literal('').describe('Always "": Signet does not keep the attestation format'),
    aaguid: z.string().describe("The authenticator model's AAGUID as its attestation gave it (\"\" when unknown)"),
    credentialId: z.string().describe('The WebAuthn credential ID, base64url'),
    model: z.literal('').describe('Always "": Signet does not keep a model name'),
    credential: credentialSchema(['CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR'], "The hex of the passkey's COSE public key (as a vote's publicKey names it)"),
    authenticatorId: uuid('Unique identifier of the authenticator'),
    authenticatorName: z.string().describe('Name of the authenticator'),
    createdAt: timestamp('When the authenticator was registered'),
    updatedAt: timestamp('The same as createdAt: an authenticator is not changed after it is registered'),
  })
  .meta({ id: 'Authenticator', description: "A passkey in the shape of the ecosystem's v1Authenticator" });

/** An OpenID Connect identity bound to a user, as the ecosystem's v1OauthProvider (render.ts's oauthProviderObject). */
export const oauthProviderSchema = z
  .strictObject({
    providerId: uuid('Unique identifier of the OAuth provider'),
    providerName: z.string().describe('Its name, as given when it was bound'),
    issuer: z.string().describe("The id token's issuer (iss), one of SIGNET_OIDC_ISSUERS"),
    audience: z.string().describe("The audience (aud) the token was issued to, your app's client id: oauth_login's tokens must be issued to it"),
    subject: z.string().describe("The user's identifier at the issuer (sub)"),
    createdAt: timestamp('When the identity was bound'),
    updatedAt: timestamp('The same as createdAt: a binding is not changed'),
  })
  .meta({ id: 'OauthProvider', description: "An OpenID Connect identity bound to a user, in the shape of the ecosystem's v1OauthProvider" });

/** A user as the ecosystem's v1User (render.ts's userJson): a voter, an organization's user. */
export const userSchema = z
  .strictObject({
    userId: uuid('Unique identifier of the user'),
    userName: z.string().describe('Name of the user'),
    userEmail: z.string().optional().describe('Email address of the user, when it has one'),
    userPhoneNumber: z.string().optional().describe('Phone number of the user in E.164, when it has one'),
    authenticators: z
      .array(authenticatorSchema)
      .describe("get_user and list_users: the user's passkeys not revoked, oldest first (a bounded number: get_authenticators lists them all). Empty in a vote's user and in get_organization"),
    apiKeys: z
      .array(apiKeySchema)
      .describe(
        "get_user and list_users: the user's API keys and session keys that may still stamp, oldest first (a bounded number: get_api_keys lists them all). " +
          "Empty in a vote's user (its publicKey names the key that signed) and in get_organization",
      ),
    userTags: z.array(z.uuid()).describe("Ids of the user's tags (create_user_tag, list_user_tags), in the order the tags were created"),
    oauthProviders: z
      .array(oauthProviderSchema)
      .describe("get_user and list_users: the OpenID Connect identities bound to the user (create_oauth_providers), oldest first (a bounded number). Empty in a vote's user and in get_organization"),
    mfaPolicies: alwaysEmpty('MFA policies (Signet has none)'),
    createdAt: timestamp('When the user was created'),
    updatedAt: timestamp('When the user was last changed'),
  })
  .meta({ id: 'User', description: "A user in the shape of the ecosystem's v1User" });

export const voteSchema = z
  .strictObject({
    id: uuid('Unique identifier of the vote'),
    userId: uuid('The user whose credential stamped the request'),
    user: userSchema,
    activityId: uuid('The activity voted on'),
    selection: z
      .enum(['VOTE_SELECTION_APPROVED', 'VOTE_SELECTION_REJECTED'])
      .describe("The submitter's vote approves its own request; later votes approve (approve_activity) or reject (reject_activity) it"),
    message: z
      .string()
      .describe(
        'The signed request body as text (the submission, or the approve_activity/reject_activity body); a secret it carried in clear ' +
          '(a verified OTP code) is replaced by "[redacted]", the fingerprint still being over the bytes as signed',
      ),
    publicKey: z
      .string()
      .describe('The credential that signed: an API key, session key or attested key as a compressed P-256 key in hex, or the hex of a passkey\'s COSE public key'),
    signature: z.string().describe('The signature as the stamp carried it: DER hex for an API key, base64url for a passkey'),
    scheme: z
      .enum(['SIGNATURE_SCHEME_TK_API_P256', 'SIGNATURE_SCHEME_WEBAUTHN', 'STAMP_ATTESTED_SCHEME_P256_VERIFICATION_TOKEN'])
      .describe('How the request was stamped: X-Stamp (API key or session key), X-Stamp-WebAuthn (passkey) or X-Stamp-Attested (a verification token and the key it is bound to; stamp_login only)'),
    authenticatorData: z
      .string()
      .optional()
      .describe(
        "A passkey vote only (absent for votes recorded before Signet kept it): the assertion's WebAuthn authenticatorData, base64url as the stamp carried it. " +
          'The signature is over authenticatorData followed by the SHA-256 of clientDataJson',
      ),
    clientDataJson: z
      .string()
      .optional()
      .describe(
        "A passkey vote only (absent for votes recorded before Signet kept it): the assertion's clientDataJSON, base64url as the stamp carried it; " +
          'its type is "webauthn.get" and its challenge the base64url of the UTF-8 lowercase hex SHA-256 of message',
      ),
    createdAt: timestamp('When the vote was recorded'),
  })
  .meta({ id: 'Vote', description: "A record of a user's approval or rejection of a request, with its metadata: the submitter's stamp" });

export const appProofSchema = z
  .strictObject({
    scheme: z.literal(APP_PROOF_SCHEME).describe('Signature scheme of the proof'),
    publicKey: z
      .string()
      .regex(/^04[0-9a-f]{128}04[0-9a-f]{128}$/)
      .describe('260 hex characters: the proof key, an uncompressed P-256 point, twice (get_app_proof_keys lists it in this form)'),
    proofPayload: z
      .string()
      .describe('JSON {type: "APP_PROOF_TYPE_ACTIVITY_RESULT", timestampMs, activityResultProof: {activityId, activityType, organizationId, fingerprint, resultDigest}}; resultDigest is "sha256:" + hex SHA-256 of the result object as JSON with keys sorted at every level'),
    signature: z.string().regex(/^[0-9a-f]{128}$/).describe('Raw r‖s ECDSA P-256 signature over SHA-256 of the proofPayload bytes, hex (128 characters)'),
  })
  .meta({ id: 'AppProof', description: "An artifact that lets anyone check offline that this service produced the activity's result (@turnkey/crypto's verifyAppProofSignature checks it)" });

const common = {
  id: uuid('Unique identifier of the activity'),
  organizationId: uuid('Unique identifier of the organization'),
  status: z
    .enum(ACTIVITY_STATUSES)
    .describe(
      `Activity status: ${ACTIVITY_STATUS.COMPLETED} when it executed; ${ACTIVITY_STATUS.CONSENSUS_NEEDED} while it waits for approvals ` +
        `(nothing executed yet); ${ACTIVITY_STATUS.REJECTED} once a voter rejected it; ${ACTIVITY_STATUS.FAILED} when its effect was refused ` +
        'at the approval that allowed it (see failure)',
    ),
  type: z.string().describe('Activity type, the same value as in the request'),
};
const bookkeeping = {
  votes: z.array(voteSchema).describe("The users' approvals and rejections, oldest first: the submitter's first, then each approve_activity and reject_activity"),
  fingerprint: z
    .string()
    .regex(/^sha256:[0-9a-f]{64}$/)
    .describe('Activity fingerprint: "sha256:" + hex SHA-256 of the exact request body. Submitting the same body again answers this same activity'),
  canApprove: z
    .boolean()
    .describe("Whether the reader may approve it: it waits, its submitter was not removed, and the reader may vote on it (a root quorum user, or one a matching policy's consensus counts) and has not"),
  canReject: z.boolean().describe('Whether the reader may reject it: it waits and the reader may vote on it and has not (its submitter removed or not), or it is its submitter'),
  failure: z
    .strictObject({
      code: z.number().int().describe('gRPC code of the refusal (3 invalid argument, 5 not found, 7 denied, 8 rate limited …)'),
      message: z.string().describe('Why its effect was refused'),
      details: z.array(z.unknown()).describe('Always empty'),
    })
    .optional()
    .describe(`Present when the activity is ${ACTIVITY_STATUS.FAILED}: the refusal its effect met when an approval allowed it`),
  createdAt: timestamp('Creation time'),
  updatedAt: timestamp('Time of the last update'),
};

const anyObject = (description: string) => z.record(z.string(), z.unknown()).describe(description);

/** The copy of the activity under result.activity, as the API's reference nests it. */
export const nestedActivitySchema = z
  .strictObject({
    ...common,
    intent: anyObject('Echo of the submitted parameters, under the intent key of the activity type (e.g. initOtpAuthIntentV3), defaults filled in'),
    result: anyObject('Outcome, under the result key of the activity type (e.g. initOtpAuthResultV2)'),
    ...bookkeeping,
  })
  .meta({ id: 'NestedActivity', description: 'The activity again, nested in result.activity as the API reference shows it' });

/**
 * The activity object for one activity type (`intent` and `result` its own), or any type with the
 * defaults. `type` lists the type strings it answers with.
 */
export function activityObject(of?: { types: readonly string[]; intent: z.ZodType; result: z.ZodType; resultKey: string }) {
  const result = of
    ? z
        .strictObject({
          activity: nestedActivitySchema,
          [of.resultKey]: (of.result.description ? of.result : of.result.describe(`The outcome of ${of.types[0]}`)).optional(),
        })
        .describe(`Outcome: ${of.resultKey} (absent until the activity executed), and the nested activity`)
    : z
        .object({ activity: nestedActivitySchema })
        .catchall(z.unknown())
        .describe('Outcome: the nested activity, and beside it the result key of the activity type (e.g. initOtpAuthResultV2) with its fields');
  return z.strictObject({
    ...common,
    ...(of ? { type: z.enum(of.types as [string, ...string[]]).describe('Activity type, the same value as in the request') } : {}),
    timestampMs: z.string().regex(/^\d{1,16}$/).describe("The request's timestampMs: milliseconds since the Unix epoch, as a string"),
    intent: of ? of.intent : anyObject('Echo of the submitted parameters, under the intent key of the activity type (e.g. initOtpAuthIntentV3), defaults filled in'),
    result,
    ...bookkeeping,
    appProofs: z.array(appProofSchema).optional().describe('App Proofs, present when the request set generateAppProofs: true'),
  });
}

/**
 * The answer to a submission of `handler`'s type: `{activity}`. The intent is left open here (any
 * value under the intent key): the OpenAPI document puts the parameters' own schema there.
 */
export function activityAnswer(handler: ActivityHandler) {
  return z.strictObject({
    activity: activityObject({
      types: [handler.activityType, ...(handler.otherActivityTypes ?? [])],
      intent: z.strictObject({ [handler.intentKey]: z.unknown() }).describe(`Echo of the submitted parameters under ${handler.intentKey}, defaults filled in`),
      result: handler.resultSchema ?? z.record(z.string(), z.unknown()),
      resultKey: handler.resultKey,
    }).describe(`The activity: new, or the stored one when the same body was submitted before`),
  });
}

/** Any activity, as get_activity and list_activities answer. */
export const activitySchema = activityObject().meta({ id: 'Activity', description: 'An activity of any type, as its submission answered' });
