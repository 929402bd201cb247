// Which changes of an activity's status exist, as one table. A new activity is written allowed
// (COMPLETED) or waiting for approvals (CONSENSUS_NEEDED); only a waiting one changes after that, by
// a vote: executed (COMPLETED), refused when it executed or could no longer be allowed (FAILED),
// rejected (REJECTED), or still waiting (CONSENSUS_NEEDED, the vote recorded). commit.ts asks here
// before it writes, and hands the statuses a change may start from to the store, whose statement
// changes the activity only while it still has one of them: of two votes that race, one writes.
import { ACTIVITY_STATUS, type ActivityStatus } from '../wire/status.ts';

/** The status of an activity not written yet. */
export const NEW = 'new';

/** A status an activity changes from: one it has, or none yet. */
export type FromStatus = typeof NEW | ActivityStatus;

/** Every change of status there is: from each status, the statuses it may change to. */
export const TRANSITIONS: ReadonlyMap<FromStatus, readonly ActivityStatus[]> = new Map<FromStatus, readonly ActivityStatus[]>([
  [NEW, [ACTIVITY_STATUS.COMPLETED, ACTIVITY_STATUS.CONSENSUS_NEEDED]],
  [ACTIVITY_STATUS.CONSENSUS_NEEDED, [ACTIVITY_STATUS.COMPLETED, ACTIVITY_STATUS.FAILED, ACTIVITY_STATUS.REJECTED, ACTIVITY_STATUS.CONSENSUS_NEEDED]],
]);

/** Whether the table has the change from `from` to `to`. */
export function isTransition(from: FromStatus, to: ActivityStatus): boolean {
  return TRANSITIONS.get(from)?.includes(to) ?? false;
}

/** The status of a new activity, checked against the table: a status no new activity takes is a defect, thrown. */
export function newStatus(to: ActivityStatus): ActivityStatus {
  if (!isTransition(NEW, to)) throw new Error(`no transition from a new activity to ${to}`);
  return to;
}

/**
 * The stored statuses from which an activity may change to `to`, for the store's guarded update
 * (the change is written only while the activity still has one of them). A status nothing stored
 * changes to is a defect, thrown.
 */
export function statusesChangingTo(to: ActivityStatus): ActivityStatus[] {
  const from = [...TRANSITIONS].filter(([status, targets]) => status !== NEW && targets.includes(to)).map(([status]) => status as ActivityStatus);
  if (from.length === 0) throw new Error(`no transition of a stored activity to ${to}`);
  return from;
}
