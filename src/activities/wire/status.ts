// The statuses of an activity, as the ecosystem names them: declared once, here. Signet writes
// COMPLETED today; CONSENSUS_NEEDED (waiting for approvals), REJECTED and FAILED (an effect refused
// when it finally executes) come with authorization. CREATED, PENDING and AUTHENTICATORS_NEEDED are
// the ecosystem's too, which clients may filter by.
export const ACTIVITY_STATUS = Object.freeze({
  CREATED: 'ACTIVITY_STATUS_CREATED',
  PENDING: 'ACTIVITY_STATUS_PENDING',
  COMPLETED: 'ACTIVITY_STATUS_COMPLETED',
  FAILED: 'ACTIVITY_STATUS_FAILED',
  CONSENSUS_NEEDED: 'ACTIVITY_STATUS_CONSENSUS_NEEDED',
  REJECTED: 'ACTIVITY_STATUS_REJECTED',
  AUTHENTICATORS_NEEDED: 'ACTIVITY_STATUS_AUTHENTICATORS_NEEDED',
} as const);

export type ActivityStatus = (typeof ACTIVITY_STATUS)[keyof typeof ACTIVITY_STATUS];

/** Every status, for validating a filter. */
export const ACTIVITY_STATUSES = Object.values(ACTIVITY_STATUS) as [ActivityStatus, ...ActivityStatus[]];
