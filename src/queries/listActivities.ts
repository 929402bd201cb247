// list_activities: the organization's activities, newest first, filtered by status and type, in
// pages (queries/pagination.ts) with activity-id cursors.
import { z } from 'zod';
import { activityHandlers } from '../activities/registry.ts';
import { activityJson } from '../activities/render.ts';
import { listActivitiesFor } from '../store/activities.ts';
import { handlerOf } from './getActivity.ts';
import { pageRequest, pageRows, paginationOptions } from './pagination.ts';
import { granted, type QueryHandler } from './query.ts';

const STATUSES = ['ACTIVITY_STATUS_CREATED', 'ACTIVITY_STATUS_PENDING', 'ACTIVITY_STATUS_COMPLETED', 'ACTIVITY_STATUS_FAILED',
  'ACTIVITY_STATUS_CONSENSUS_NEEDED', 'ACTIVITY_STATUS_REJECTED'] as const;

const request = z.strictObject({
  organizationId: z.uuid({ message: 'must be the UUID of your organization' }),
  filterByStatus: z.array(z.enum(STATUSES)).max(STATUSES.length).optional(),
  filterByType: z
    .array(z.string().refine((t) => activityHandlers.some((h) => h.activityType === t), 'is not an activity type of this server'))
    .max(activityHandlers.length)
    .optional(),
  paginationOptions: paginationOptions('an activity'),
});

export const listActivities: QueryHandler = {
  path: 'list_activities',
  example: { organizationId: '9f5e7c2a-3b1d-4e6f-8a9b-0c1d2e3f4a5b', filterByStatus: ['ACTIVITY_STATUS_COMPLETED'], paginationOptions: { limit: '20' } },
  request,
  async run(context, query: z.output<typeof request>) {
    const { page } = granted(
      context,
      await listActivitiesFor(context.db, context.principal.credential, {
        organizationId: query.organizationId,
        ...pageRequest(query.paginationOptions),
        ...(query.filterByStatus ? { statuses: query.filterByStatus } : {}),
        ...(query.filterByType ? { types: query.filterByType } : {}),
      }),
    );
    const records = pageRows(page!, query.paginationOptions);
    return `{"activities":[${records.map((record) => activityJson(handlerOf(record.type), record)).join(',')}]}`;
  },
};
