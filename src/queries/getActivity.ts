// get_activity: one activity of the organization, rendered as its submission answered.
import { z } from 'zod';
import { activityHandlers } from '../activities/registry.ts';
import { renderActivity } from '../activities/render.ts';
import { notFound } from '../errors.ts';
import { findActivity } from '../store/activities.ts';
import type { QueryHandler } from './query.ts';

export const getActivity: QueryHandler = {
  path: 'get_activity',
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
