// The create_read_write_session activity (ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2): a session key
// for a user of the organization (the stamping user by default), made here: its public half is
// registered as the user's session key (CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256) until it
// expires, its private half answered sealed to the client's targetPublicKey in the ecosystem's
// credential bundle, in this answer only.
import { z } from 'zod';
import { credentialRefused, notFound } from '../../../errors.ts';
import { check } from '../../../store/effects.ts';
import { findWhoamiFor } from '../../../store/users.ts';
import type { ActivityHandler } from '../../handler.ts';
import { name, objectExpected, trueOrFalse, wholeSeconds } from '../../wire/parameters.ts';
import { planBundledKey, targetPublicKeyParameter } from './credentialKeys.ts';
import { DEFAULT_SESSION_SECONDS, MAX_SESSION_SECONDS } from './sessionPlans.ts';

/** The key's name when apiKeyName is left out: this, a space and the moment it was made (ISO 8601). */
const DEFAULT_NAME_PREFIX = 'Read Write Session -';

const parameters = z.strictObject(
  {
    targetPublicKey: targetPublicKeyParameter,
    userId: z
      .uuid({ message: 'must be a user id (a UUID)' })
      .transform((id) => id.toLowerCase())
      .describe("The user of the organization (not removed) the session is for; without it, the stamping user. Another user's session is decided by the organization's policies like any activity")
      .optional(),
    apiKeyName: name.describe(`Name of the session key; not blank. Without it "${DEFAULT_NAME_PREFIX} <the moment it was made, ISO 8601>"`).optional(),
    expirationSeconds: wholeSeconds(
      MAX_SESSION_SECONDS,
      DEFAULT_SESSION_SECONDS,
      `must be the session lifetime in whole seconds from 1 to ${MAX_SESSION_SECONDS} (30 days) written as digits, e.g. "${DEFAULT_SESSION_SECONDS}"`,
      `Lifetime of the session key in seconds written as digits: "${DEFAULT_SESSION_SECONDS}" (15 minutes) by default, at most "${MAX_SESSION_SECONDS}" (30 days). After it every request stamped with the key is a 401 "session expired"`,
    ).default(DEFAULT_SESSION_SECONDS),
    invalidateExisting: trueOrFalse()
      .describe("true ends the user's other session keys at once (otp_login's and stamp_login's too); API keys are not touched")
      .default(false),
  },
  { error: objectExpected() },
);

const resultSchema = z.strictObject({
  organizationId: z.uuid().describe('The organization of the session'),
  organizationName: z.string().describe('Its name'),
  userId: z.uuid().describe('The user the session key stamps as'),
  username: z.string().describe("That user's name"),
  apiKeyId: z.uuid().describe('The new session key (CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256), expiring after expirationSeconds'),
  credentialBundle: z
    .string()
    .describe(
      "The session key's private half, HPKE-encrypted to targetPublicKey, base58check: @turnkey/crypto's decryptCredentialBundle(credentialBundle, <targetPublicKey's private key>) gives it in hex. Signet keeps only the public half, and this bundle only in this answer: the stored activity holds \"\"",
    ),
});
type ReadWriteSessionResult = z.infer<typeof resultSchema>;

export const createReadWriteSession: ActivityHandler<typeof parameters, ReadWriteSessionResult> = {
  path: 'create_read_write_session',
  activityType: 'ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2',
  resource: 'AUTH',
  action: 'CREATE',
  reasons: ['USER_NOT_FOUND'],
  summary:
    '`{targetPublicKey, userId?, apiKeyName?, expirationSeconds? = "900", invalidateExisting? = false}`: a new session key of the user (the stamping user by default), its private half encrypted to `targetPublicKey`; result `createReadWriteSessionResultV2 {organizationId, organizationName, userId, username, apiKeyId, credentialBundle}`, the bundle in this answer only ([Sessions](users.md#read-write-sessions-with-a-credential-bundle))',
  description:
    "Makes a session key for a user of the organization (the stamping user when `userId` is left out): the key stamps requests (X-Stamp) as that user until it expires after `expirationSeconds`; its private half comes back encrypted to `targetPublicKey` (`credentialBundle`, which @turnkey/crypto's `decryptCredentialBundle` opens), in this answer only.",
  intentKey: 'createReadWriteSessionIntentV2',
  resultKey: 'createReadWriteSessionResultV2',
  parameters,
  resultSchema,
  // The curve's generator: a real point, so the example passes the schema it illustrates.
  example: { targetPublicKey: '036b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296', expirationSeconds: '900' },
  // The bundle is for the submitter: an activity that waited would be executed by its last approver,
  // and the bundle is not kept.
  neverWaits: true,

  async execute(context, intent) {
    const { organizationId, principal, now } = context;
    const userId = intent.userId ?? principal.userId;
    const read = await findWhoamiFor(context.db, principal.credential, organizationId, userId);
    if (read.refused) throw credentialRefused(principal, read.refused, now);
    if (!read.whoami) throw notFound('USER_NOT_FOUND', `no user ${userId} in organization ${organizationId}; give the id of a user of this organization, or leave userId out for your own session`);
    const key = await planBundledKey(context, {
      userId,
      kind: 'session',
      name: intent.apiKeyName ?? `${DEFAULT_NAME_PREFIX} ${now.toISOString()}`,
      targetPublicKey: intent.targetPublicKey,
      expirationSeconds: intent.expirationSeconds,
      invalidateExisting: intent.invalidateExisting,
    });
    return {
      result: {
        organizationId: organizationId.toLowerCase(),
        organizationName: read.whoami.organizationName,
        userId,
        username: read.whoami.userName,
        apiKeyId: key.apiKeyId,
        credentialBundle: key.credentialBundle,
      },
      // Whoever reads the bundle with the target's private key holds the key: it is not stored.
      secretFields: ['credentialBundle'],
      effects: [check('userActive', [organizationId, userId], notFound('USER_NOT_FOUND', `user ${userId} was removed; no session can be made for it`)), ...key.effects],
    };
  },
};
