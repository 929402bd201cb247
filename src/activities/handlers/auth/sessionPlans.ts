// What every login shares (otp_login, stamp_login): the session parameters as they take them, the
// session JWT they answer with, and the plan that makes `publicKey` a session key of the user until
// the session ends, ending the user's other sessions when asked.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { invalidField } from '../../../errors.ts';
import { P256_PUBLIC_KEY_PATTERN, p256PointHex } from '../../../keys/p256.ts';
import { signSession } from '../../../otp/session.ts';
import { check, lock, write } from '../../../store/effects.ts';
import type { ActivityPlan, ExecutionContext } from '../../handler.ts';
import { trueOrFalse, wholeSeconds } from '../../wire/parameters.ts';
import { SERVICE_KEYS } from '../../lifecycle/serviceKeys.ts';

export const DEFAULT_SESSION_SECONDS = '900';
/** 30 days: a session key stamps for its user until then, unless revoked. */
export const MAX_SESSION_SECONDS = 2_592_000;

/** The parameters of a login that describe the session: its key, lifetime, and whether it ends the others. */
export const sessionParameterFields = {
  // Kept as the client wrote it: the session names the key by this string, and clients find
  // their key pair by it.
  publicKey: z
    .string({ error: 'must be a string: the session key, a P-256 public key in hex' })
    .refine((v) => p256PointHex(v) !== undefined, 'must be a P-256 public key in hex: 66 characters (compressed) or 130 (uncompressed), a point on the curve')
    .meta({
      pattern: P256_PUBLIC_KEY_PATTERN,
      description:
        'The session key, a P-256 public key in hex (compressed or uncompressed): it stamps requests (X-Stamp) as the user until the session ends. Not a key the organization already has',
    }),
  expirationSeconds: wholeSeconds(
    MAX_SESSION_SECONDS,
    DEFAULT_SESSION_SECONDS,
    `must be the session lifetime in whole seconds from 1 to ${MAX_SESSION_SECONDS} (30 days) written as digits, e.g. "${DEFAULT_SESSION_SECONDS}"`,
    `Lifetime of the session in seconds written as digits: "${DEFAULT_SESSION_SECONDS}" by default, at most "${MAX_SESSION_SECONDS}" (30 days). After it every request stamped with the session key is a 401 "session expired"`,
  )
    .default(DEFAULT_SESSION_SECONDS),
  invalidateExisting: trueOrFalse()
    .describe('true ends the user\'s other sessions at once (their keys then get 401 "session ended"); API keys are not touched')
    .default(false),
  sessionProfileId: z
    .string({ error: 'must be a string' })
    .max(64)
    .describe('Session profiles do not exist in Signet (sessions are read-write): any value is refused with a 400; leave it out')
    .optional(),
};

export interface SessionIntent {
  publicKey: string;
  expirationSeconds: string;
  invalidateExisting: boolean;
  sessionProfileId?: string | undefined;
}

export const sessionResultSchema = z.strictObject({
  session: z
    .string()
    .describe(
      "The session JWT in the ecosystem's format (claims exp in seconds, public_key exactly as sent, session_type SESSION_TYPE_READ_WRITE, user_id, organization_id), signed by sessionSignerPublicKey of /.well-known/signet-keys.json; the clients' parseSession / storeSession / loginWithSession take it",
    ),
});
export type SessionResult = z.infer<typeof sessionResultSchema>;

/** Refuses what Signet's sessions do not have, before anything else is read. */
export function checkSessionIntent(intent: SessionIntent): void {
  if (intent.sessionProfileId !== undefined) {
    throw invalidField('parameters.sessionProfileId', 'Signet has no session profiles; leave it out (sessions are read-write)');
  }
}

/**
 * The session of the organization's user `userId` for intent.publicKey: its JWT, the check that the
 * key may become the user's session key, and the rows that register it (and end the user's other
 * session keys when invalidateExisting says so). The caller adds what its own login checks.
 */
export async function planSession(context: ExecutionContext, userId: string, intent: SessionIntent): Promise<ActivityPlan<SessionResult>> {
  const { organizationId, now } = context;
  const sessionKey = p256PointHex(intent.publicKey)!.compressed;
  const expiresAt = new Date(now.getTime() + Number(intent.expirationSeconds) * 1000);
  const session = signSession(await context.keys.get(SERVICE_KEYS.session.purpose), {
    publicKey: intent.publicKey,
    userId,
    organizationId: organizationId.toLowerCase(),
    expiresAt,
  });
  return {
    result: { session },
    effects: [
      check(
        'sessionKeyAvailable',
        [organizationId, userId, sessionKey],
        invalidField(
          'parameters.publicKey',
          "is already a key of this organization, its parent or one of their sub-organizations (an API key, or another user's session key); create a new key pair for the session",
          'PUBLIC_KEY_TAKEN',
        ),
      ),
      write('registerSessionKey', { id: randomUUID(), organizationId, userId, publicKey: sessionKey, expiresAt, now }),
      ...(intent.invalidateExisting
        ? [
            write('revokeOtherSessionKeys', { organizationId, userId, keepPublicKey: sessionKey, now }),
            // Ending the other sessions and starting this one is one step per user: a concurrent login
            // holding the lock commits its session first, and this statement then sees it and ends it.
            lock('userApiKeys', organizationId, userId),
          ]
        : []),
    ],
  };
}
