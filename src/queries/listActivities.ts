// list_activities: the organization's activities, newest first, filtered by status and type, in
// pages of 1–100 (default 10) with activity-id cursors (before: newer than; after: older than).
import { z } from 'zod';
import { activityHandlers } from '../activities/registry.ts';
import { renderActivity } from '../activities/render.ts';
import { invalidField } from '../errors.ts';
import { activityPosition, listActivities as listStored } from '../store/activities.ts';
import { handlerOf } from './getActivity.ts';
import type { QueryHandler } from './query.ts';

const STATUSES = ['ACTIVITY_STATUS_CREATED', 'ACTIVITY_STATUS_PENDING', 'ACTIVITY_STATUS_COMPLETED', 'ACTIVITY_STATUS_FAILED',
  'ACTIVITY_STATUS_CONSENSUS_NEEDED', 'ACTIVITY_STATUS_REJECTED'] as const;

const request = z.strictObject({
  organizationId: z.uuid({ message: 'must be the UUID of your organization' }),
  filterByStatus: z.array(z.enum(STATUSES)).max(STATUSES.length).optional(),
  filterByType: z
    .array(z.string().refine((t) => activityHandlers.some((h) => h.activityType === t), 'is not an activity type of this server'))
    .max(activityHandlers.length)
    .optional(),
  paginationOptions: z
    .strictObject({
      limit: z
        .string()
        .regex(/^(100|[1-9][0-9]?)$/, 'must be a string of digits from "1" to "100"')
        .optional(),
      before: z.uuid({ message: 'must be an activity id (a UUID)' }).optional(),
      after: z.uuid({ message: 'must be an activity id (a UUID)' }).optional(),
    })
    .optional(),
});

export const listActivities: QueryHandler = {
  path: 'list_activities',
  example: { organizationId: '9f5e7c2a-3b1d-4e6f-8a9b-0c1d2e3f4a5b', filterByStatus: ['ACTIVITY_STATUS_COMPLETED'], paginationOptions: { limit: '20' } },
  request,
  async run(db, query: z.output<typeof request>) {
    const { organizationId, paginationOptions: page = {} } = query;
    const cursor = async (field: 'before' | 'after') => {
      const id = page[field];
      if (id === undefined) return undefined;
      const position = await activityPosition(db, organizationId, id);
      if (!position) throw invalidField(`paginationOptions.${field}`, `no activity ${id} in this organization to page from`);
      return position;
    };
    const [before, after] = [await cursor('before'), await cursor('after')];
    const records = await listStored(db, {
      organizationId,
      limit: Number(page.limit ?? '10'),
      ...(query.filterByStatus ? { statuses: query.filterByStatus } : {}),
      ...(query.filterByType ? { types: query.filterByType } : {}),
      ...(before ? { before } : {}),
      ...(after ? { after } : {}),
    });
    return { activities: records.map((record) => renderActivity(handlerOf(record.type), record).activity) };
  },
};
