// The stamp_login activity (ACTIVITY_TYPE_STAMP_LOGIN): the stamping user gets `publicKey` as a
// session key. Stamped with an API key, with a session key (how the clients refresh a session),
// with a passkey (passkey login), or with an attested stamp (X-Stamp-Attested: the key a
// verification token is bound to, for the user whose contact it names). The answer's session JWT is
// otp_login's.
import { z } from 'zod';
import { notFound, unauthenticated } from '../../../errors.ts';
import { check, take, write } from '../../../store/effects.ts';
import type { ActivityHandler, ActivityPlan, ExecutionContext } from '../../handler.ts';
import { objectExpected } from '../../wire/parameters.ts';
import { checkSessionIntent, planSession, sessionParameterFields, sessionResultSchema, type SessionIntent, type SessionResult } from './sessionPlans.ts';

export const stampLoginParameters = z.strictObject(sessionParameterFields, { error: objectExpected() });

export const stampLogin: ActivityHandler<typeof stampLoginParameters, SessionResult> = {
  path: 'stamp_login',
  activityType: 'ACTIVITY_TYPE_STAMP_LOGIN',
  resource: 'AUTH',
  action: 'CREATE',
  reasons: ['PUBLIC_KEY_TAKEN', 'USER_NOT_FOUND', 'VERIFICATION_TOKEN_USED', 'VERIFICATION_TOKEN_EXPIRED'],
  summary:
    '`{publicKey, expirationSeconds? = "900", invalidateExisting?}`: a session for the stamping user (an API key, the current session key to refresh, a passkey, or `X-Stamp-Attested`); result `stampLoginResult.session` ([Sessions](users.md#sessions))',
  // A passkey login sent to the app's organization logs the user into its own sub-organization.
  fromSubOrganization: true,
  description:
    "Starts a session for the stamping user: `publicKey` becomes the user's session key, which stamps requests (X-Stamp) until the session ends; the answer's `session` is a JWT in the ecosystem's format. " +
    'Stamp it with an API key, with the current session key (a refresh), with a passkey, or with X-Stamp-Attested (a verification token and the key it is bound to).',
  intentKey: 'stampLoginIntent',
  resultKey: 'stampLoginResult',
  parameters: stampLoginParameters,
  resultSchema: sessionResultSchema,
  // A real point (the curve's generator), so the example passes the schema it illustrates.
  example: { publicKey: '036b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296', expirationSeconds: '900', invalidateExisting: false },
  // The session is the submitter's: an activity that waited would be executed by its last approver.
  neverWaits: true,
  acceptsAttestedStamp: true,
  execute: planStampLogin,
};

async function planStampLogin(context: ExecutionContext, intent: SessionIntent): Promise<ActivityPlan<SessionResult>> {
  const { organizationId, principal, now } = context;
  checkSessionIntent(intent);
  const session = await planSession(context, principal.userId, intent);
  const credential = principal.credential;
  return {
    result: session.result,
    effects: [
      check('userActive', [organizationId, principal.userId], notFound('USER_NOT_FOUND', `user ${principal.userId} was removed; it can no longer log in`)),
      ...session.effects,
      // An attested stamp's verification token is used by the activity's statement itself: two
      // logins with one token, even at once, make one session.
      ...(credential.kind === 'verificationToken'
        ? [
            take('verificationToken', [{ id: credential.tokenId, organizationId, expiresAt: credential.expiresAt }, 'login', context.activityId, now], () =>
              unauthenticated('X-Stamp-Attested: the verification token was already used to log in; verify a new code to log in again', 'replayed', 'VERIFICATION_TOKEN_USED'),
            ),
          ]
        : []),
      // An attested stamp's token proves its contact for the user it logs in, as otp_login's does.
      ...(principal.attestedContact ? [write('markUserContactVerified', organizationId, principal.userId, principal.attestedContact, now)] : []),
    ],
  };
}
