// get_mfa_status (@turnkey/http's getMfaStatus): the state of the MFA policies that apply to an
// activity's voters. Signet has no MFA policies, so the list is always empty; the activity must still
// be one of the organization's (else 404, as get_activity answers), so a client polling a wrong id
// learns it at once rather than reading "nothing to satisfy".
import { z } from 'zod';
import { notFound } from '../errors.ts';
import { findActivityFor } from '../store/activities.ts';
import { granted, type QueryHandler } from './query.ts';

export const getMfaStatus: QueryHandler = {
  path: 'get_mfa_status',
  description:
    "The MFA statuses of an activity's voters (`@turnkey/http`'s `getMfaStatus`): always empty, Signet has no MFA policies. " +
    "An activity that is not the organization's is a 404; `userId`, when given, only narrows the (empty) list.",
  example: { organizationId: '9f5e7c2a-3b1d-4e6f-8a9b-0c1d2e3f4a5b', activityId: '2d4f6a8c-1b3e-4d5f-9a7c-6e8b0d2f4a1c' },
  request: z.strictObject({
    organizationId: z.uuid({ message: 'must be the UUID of your organization' }).describe('Unique identifier of your organization'),
    activityId: z.uuid({ message: 'must be an activity id (a UUID)' }).describe("The activity; another organization's is a 404"),
    userId: z.uuid({ message: 'must be a user id (a UUID)' }).optional().describe('Only this user\'s statuses'),
  }),
  answer: z.strictObject({
    mfaStatuses: z.array(z.unknown()).max(0).describe('MFA statuses of the activity\'s voters: Signet has no MFA policies; always empty'),
  }),
  async run(context, request: { organizationId: string; activityId: string }) {
    const { activity } = granted(
      context,
      await findActivityFor(context.db, context.principal.credential, { organizationId: request.organizationId, id: request.activityId }),
    );
    if (!activity) throw notFound('ACTIVITY_NOT_FOUND', `no activity ${request.activityId} in organization ${request.organizationId}`);
    return { mfaStatuses: [] };
  },
};
