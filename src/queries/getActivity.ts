// get_activity: one activity of the organization, rendered as its submission answered.
import { z } from 'zod';
import { activitySchema } from '../activities/wire/activitySchema.ts';
import { activityReadJson } from '../activities/wire/render.ts';
import { summarySchema } from '../activities/wire/summarySchema.ts';
import { notFound } from '../errors.ts';
import { findActivityFor } from '../store/activities.ts';
import { granted, type QueryHandler } from './query.ts';

export const getActivity: QueryHandler = {
  path: 'get_activity',
  description:
    'One activity of the organization, exactly as its submission answered (`@turnkey/http`\'s `getActivity`); beside it, for a signing activity whose decision ' +
    'read what it signs, `summary`: that in words.',
  example: { organizationId: '9f5e7c2a-3b1d-4e6f-8a9b-0c1d2e3f4a5b', activityId: '2d4f6a8c-1b3e-4d5f-9a7c-6e8b0d2f4a1c' },
  request: z.strictObject({
    organizationId: z.uuid({ message: 'must be the UUID of your organization' }).describe('Unique identifier of your organization'),
    activityId: z.uuid({ message: 'must be an activity id (a UUID)' }).describe("The activity to read; another organization's is a 404"),
  }),
  answer: z.strictObject({
    activity: activitySchema,
    summary: summarySchema.optional().describe("What the activity signs, in words, as its last decision read it: present for a signing activity decided under policies or a root quorum of more than one"),
  }),
  async run(context, request: { organizationId: string; activityId: string }) {
    const { activity } = granted(
      context,
      await findActivityFor(context.db, context.principal.credential, { organizationId: request.organizationId, id: request.activityId }),
    );
    // Another organization's activity is not found, never forbidden: its existence is not told.
    if (!activity) throw notFound('ACTIVITY_NOT_FOUND', `no activity ${request.activityId} in organization ${request.organizationId}`);
    return activityReadJson(activity, await context.accessFor(activity));
  },
};
