// The table of an activity's status changes (src/activities/lifecycle/transitions.ts): which exist,
// what a new activity may be written with, and the statuses the store's guarded update is given.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isTransition, NEW, newStatus, statusesChangingTo, TRANSITIONS, type FromStatus } from '../src/activities/lifecycle/transitions.ts';
import { ACTIVITY_STATUS, ACTIVITY_STATUSES } from '../src/activities/wire/status.ts';

const { COMPLETED, CONSENSUS_NEEDED, FAILED, REJECTED } = ACTIVITY_STATUS;

test('the table: a new activity is completed or waits; only a waiting one changes, to any end or to waiting still', () => {
  assert.deepEqual([...TRANSITIONS.keys()], [NEW, CONSENSUS_NEEDED]);
  const changes = ACTIVITY_STATUSES.flatMap((to) => ([NEW, ...ACTIVITY_STATUSES] as FromStatus[]).filter((from) => isTransition(from, to)).map((from) => `${from} → ${to}`));
  assert.deepEqual(changes.sort(), [
    `${CONSENSUS_NEEDED} → ${COMPLETED}`,
    `${CONSENSUS_NEEDED} → ${CONSENSUS_NEEDED}`,
    `${CONSENSUS_NEEDED} → ${FAILED}`,
    `${CONSENSUS_NEEDED} → ${REJECTED}`,
    `${NEW} → ${COMPLETED}`,
    `${NEW} → ${CONSENSUS_NEEDED}`,
  ].sort());
});

test('a finished activity never changes again', () => {
  for (const from of [COMPLETED, FAILED, REJECTED]) {
    for (const to of ACTIVITY_STATUSES) assert.equal(isTransition(from, to), false, `${from} → ${to}`);
  }
});

test('a new activity is written completed or waiting; any other status is a defect', () => {
  assert.equal(newStatus(COMPLETED), COMPLETED);
  assert.equal(newStatus(CONSENSUS_NEEDED), CONSENSUS_NEEDED);
  assert.throws(() => newStatus(FAILED), /no transition from a new activity to ACTIVITY_STATUS_FAILED/);
  assert.throws(() => newStatus(REJECTED), /no transition from a new activity/);
});

test("the store's guard: a vote's change is written only while the activity still waits", () => {
  for (const to of [COMPLETED, FAILED, REJECTED, CONSENSUS_NEEDED]) assert.deepEqual(statusesChangingTo(to), [CONSENSUS_NEEDED], to);
  // A stored activity never becomes PENDING: asking for it is a defect, not an update guarded by nothing.
  assert.throws(() => statusesChangingTo(ACTIVITY_STATUS.PENDING), /no transition of a stored activity to ACTIVITY_STATUS_PENDING/);
});
