// get_activity: one activity of the organization, rendered as its submission answered.
import { z } from 'zod';
import { activityHandlers } from '../activities/registry.ts';
import { renderActivity } from '../activities/render.ts';
import { notFound } from '../errors.ts';
import { findActivity } from '../store/activities.ts';
import type { QueryHandler } from './query.ts';

export const getActivity: QueryHandler = {
  path: 'get_activity',
  example: { organizationId: '9f5e7c2a-3b1d-4e6f-8a9b-0c1d2e3f4a5b', activityId: '2d4f6a8c-1b3e-4d5f-9a7c-6e8b0d2f4a1c' },
  request: z.strictObject({
    organizationId: z.uuid({ message: 'must be the UUID of your organization' }),
    activityId: z.uuid({ message: 'must be an activity id (a UUID)' }),
  }),
  async run(db, request: { organizationId: string; activityId: string }) {
    const record = await findActivity(db, { organizationId: request.organizationId, id: request.activityId });
    // Another organization's activity is not found, never forbidden: its existence is not told.
    if (!record) throw notFound(`no activity ${request.activityId} in organization ${request.organizationId}`);
    return renderActivity(handlerOf(record.type), record);
  },
};

export function handlerOf(activityType: string) {
  const handler = activityHandlers.find((h) => h.activityType === activityType);
  if (!handler) throw new Error(`stored activity of unknown type ${activityType}`);
  return handler;
}
