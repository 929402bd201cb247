// The events an activity's change of status sends to the organization's webhook endpoints: when it
// starts waiting for approvals and when it ends (completed, failed, rejected), one ACTIVITY_UPDATES
// event, queued in the outbox by the very statement that writes the status (store's
// queueEndpointEvents), so an event is sent exactly when its change commits. An organization without
// endpoints queues nothing. A signing activity's event carries its summary in words (what it signs,
// decoded), when its decision read one.
import { NEW_ACTIVITY } from '../../store/activities.ts';
import type { Sql } from '../../store/sql.ts';
import { queueEndpointEvents } from '../../store/webhookEndpoints.ts';
import { ACTIVITY_STATUS } from '../wire/status.ts';

/** The statuses an event is sent for. */
const NOTIFIED: ReadonlySet<string> = new Set([ACTIVITY_STATUS.CONSENSUS_NEEDED, ACTIVITY_STATUS.COMPLETED, ACTIVITY_STATUS.FAILED, ACTIVITY_STATUS.REJECTED]);

/** The activity as an ACTIVITY_UPDATES event shows it. */
export interface ActivityUpdate {
  id: string;
  organizationId: string;
  status: string;
  type: string;
  fingerprint: string;
  createdAt: Date;
  updatedAt: Date;
  /** What it signs in words (a ReadableSummary), as stored with it. */
  summary?: object;
}

/** An ACTIVITY_UPDATES event's body, as posted. */
export function activityUpdateEvent(activity: ActivityUpdate): object {
  return {
    type: 'ACTIVITY_UPDATES',
    activity: {
      id: activity.id,
      organizationId: activity.organizationId,
      status: activity.status,
      type: activity.type,
      fingerprint: activity.fingerprint,
      createdAt: activity.createdAt.toISOString(),
      updatedAt: activity.updatedAt.toISOString(),
      ...(activity.summary ? { summary: activity.summary } : {}),
    },
  };
}

/**
 * The rows of the statement writing the activity's status (it yields NEW_ACTIVITY) that queue its
 * event: none when the status is not one events are sent for, or did not change (`from`: a vote that
 * leaves the activity waiting).
 */
export function activityEventRows(activity: ActivityUpdate, from?: string): Sql[] {
  if (!NOTIFIED.has(activity.status) || activity.status === from) return [];
  return [queueEndpointEvents(NEW_ACTIVITY, activity.organizationId, 'ACTIVITY_UPDATES', activityUpdateEvent(activity))];
}
