// The create_read_only_session activity (ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION): a read-only session
// of the stamping user for an hour, a token (otp/readOnlySession.ts) that the client sends in the
// X-Session header, as the ecosystem's browser SDK sends its readOnlySession, to read as the user
// (queries only, auth/authenticateReadOnlySession.ts); an activity sent with it is refused.
import { z } from 'zod';
import { credentialRefused, notFound } from '../../../errors.ts';
import { signReadOnlySession } from '../../../otp/readOnlySession.ts';
import { check } from '../../../store/effects.ts';
import { findWhoamiFor } from '../../../store/users.ts';
import type { ActivityHandler } from '../../handler.ts';
import { SERVICE_KEYS } from '../../lifecycle/serviceKeys.ts';
import { objectExpected } from '../../wire/parameters.ts';

/** A read-only session lasts this long (the request has no lifetime to ask for). */
export const READ_ONLY_SESSION_SECONDS = 3600;

const parameters = z.strictObject({}, { error: objectExpected('must be an object; create_read_only_session takes no parameters: send {}') });

const resultSchema = z.strictObject({
  organizationId: z.uuid().describe('The organization of the session'),
  organizationName: z.string().describe('Its name'),
  userId: z.uuid().describe('The user the session reads as: the one who stamped the request'),
  username: z.string().describe("That user's name"),
  session: z
    .string()
    .describe(
      'The read-only session: send it in the X-Session header (as @turnkey/sdk-browser sends its readOnlySession), without a stamp, to read as the user with the queries (POST /public/v1/query/...) until sessionExpiry; an activity sent with it is a 403. Whoever holds it reads as the user: it is in this answer only (the stored activity holds "")',
    ),
  sessionExpiry: z.string().describe(`When the session ends, whole epoch seconds as digits: ${READ_ONLY_SESSION_SECONDS} seconds after it was made`),
});
type ReadOnlySessionResult = z.infer<typeof resultSchema>;

export const createReadOnlySession: ActivityHandler<typeof parameters, ReadOnlySessionResult> = {
  path: 'create_read_only_session',
  activityType: 'ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION',
  resource: 'AUTH',
  action: 'CREATE',
  reasons: ['USER_NOT_FOUND'],
  summary:
    '`{}`: a read-only session of the stamping user for an hour; result `createReadOnlySessionResult {organizationId, organizationName, userId, username, session, sessionExpiry}`, the session sent in `X-Session` to read with the queries, in this answer only ([Sessions](users.md#read-only-sessions-x-session))',
  description:
    "Starts a read-only session of the stamping user for an hour: the answer's `session`, sent in the `X-Session` header without a stamp (as @turnkey/sdk-browser sends its `readOnlySession`), authenticates the queries as that user until `sessionExpiry`; an activity sent with it is a 403 `READ_ONLY_SESSION`.",
  intentKey: 'createReadOnlySessionIntent',
  resultKey: 'createReadOnlySessionResult',
  parameters,
  resultSchema,
  example: {},
  // The session is the submitter's: an activity that waited would be executed by its last approver.
  neverWaits: true,

  async execute(context) {
    const { organizationId, principal, now } = context;
    const read = await findWhoamiFor(context.db, principal.credential, organizationId, principal.userId);
    if (read.refused) throw credentialRefused(principal, read.refused, now);
    if (!read.whoami) throw notFound('USER_NOT_FOUND', `user ${principal.userId} was removed; it can no longer start a session`);
    const expiresAt = new Date((Math.floor(now.getTime() / 1000) + READ_ONLY_SESSION_SECONDS) * 1000);
    const session = signReadOnlySession(
      await context.keys.get(SERVICE_KEYS.session.purpose),
      { userId: principal.userId, organizationId: organizationId.toLowerCase(), expiresAt },
      now,
    );
    return {
      result: {
        organizationId: organizationId.toLowerCase(),
        organizationName: read.whoami.organizationName,
        userId: principal.userId,
        username: read.whoami.userName,
        session,
        sessionExpiry: String(expiresAt.getTime() / 1000),
      },
      // Whoever holds the token reads as the user: it is not stored.
      secretFields: ['session'],
      effects: [check('userActive', [organizationId, principal.userId], notFound('USER_NOT_FOUND', `user ${principal.userId} was removed; it can no longer start a session`))],
    };
  },
};
