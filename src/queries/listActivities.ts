// list_activities: the organization's activities, newest first, filtered by status and type, in
// pages (queries/pagination.ts) with activity-id cursors.
import { z } from 'zod';
import { activitySchema } from '../activities/wire/activitySchema.ts';
import { activityJson, summariesFieldJson } from '../activities/wire/render.ts';
import { ACTIVITY_STATUS, ACTIVITY_STATUSES } from '../activities/wire/status.ts';
import { summarySchema } from '../activities/wire/summarySchema.ts';
import { listActivitiesFor } from '../store/activities.ts';
import { pageRequest, pageRows, paginationOptions } from './pagination.ts';
import { granted, type QueryHandler } from './query.ts';

// A status is one of the ecosystem's (activities/status.ts), a type any well-formed one, as the hosted
// service takes them: a filter for one this server never records (a status it does not write yet, an
// activity type it does not implement) simply matches nothing.
const TYPE = /^ACTIVITY_TYPE_[A-Z0-9_]{1,96}$/;

const request = z.strictObject({
  organizationId: z.uuid({ message: 'must be the UUID of your organization' }).describe('Unique identifier of your organization'),
  filterByStatus: z
    .array(z.enum(ACTIVITY_STATUSES, { message: `must be an activity status: ${ACTIVITY_STATUSES.join(', ')}` }))
    .max(16)
    .describe(`Only activities with one of these statuses (at most 16), e.g. ${ACTIVITY_STATUS.COMPLETED}`)
    .optional(),
  filterByType: z
    .array(z.string().regex(TYPE, 'must be an activity type such as ACTIVITY_TYPE_INIT_OTP_AUTH_V3'))
    .max(64)
    .describe('Only activities of one of these types (at most 64); a type Signet does not implement matches nothing')
    .optional(),
  paginationOptions: paginationOptions('an activity'),
});

export const listActivities: QueryHandler = {
  path: 'list_activities',
  description: "The organization's activities, newest first, filtered by status and type, in pages (`@turnkey/http`'s `getActivities`).",
  example: { organizationId: '9f5e7c2a-3b1d-4e6f-8a9b-0c1d2e3f4a5b', filterByStatus: [ACTIVITY_STATUS.COMPLETED], paginationOptions: { limit: '20' } },
  request,
  answer: z.strictObject({
    activities: z.array(activitySchema).describe("The organization's activities, newest first: one page"),
    summaries: z
      .record(z.uuid(), summarySchema)
      .optional()
      .describe('What the signing activities of the page sign, in words, by activity id (those stored with a summary, as get_activity gives it); absent when none is'),
  }),
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
    const accesses = await Promise.all(records.map((record) => context.accessFor(record)));
    return `{"activities":[${records.map((record, i) => activityJson(record, accesses[i]!)).join(',')}]${summariesFieldJson(records)}}`;
  },
};
