// The activity as clients read it: approval flags by status (the renderer alone, no store).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { activityResponseJson } from '../src/activities/render.ts';
import { ACTIVITY_STATUSES, ACTIVITY_STATUS } from '../src/activities/status.ts';

function rendered(status: string) {
  const now = new Date('2026-11-25T12:00:00.000Z');
  const json = activityResponseJson({
    id: randomUUID(),
    organizationId: randomUUID(),
    type: 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE',
    status,
    fingerprint: 'sha256:00',
    timestampMs: String(now.getTime()),
    rawBody: '{}',
    intentJson: '{"createSmartContractInterfaceIntent":{}}',
    result: {},
    votes: [],
    createdAt: now,
    updatedAt: now,
  });
  return JSON.parse(json).activity;
}

test('canApprove and canReject are true only while an activity waits for approvals', () => {
  for (const status of ACTIVITY_STATUSES) {
    const activity = rendered(status);
    const waiting = status === ACTIVITY_STATUS.CONSENSUS_NEEDED;
    assert.equal(activity.status, status);
    assert.equal(activity.canApprove, waiting, `canApprove of ${status}`);
    assert.equal(activity.canReject, waiting, `canReject of ${status}`);
    assert.equal(activity.result.activity.canApprove, waiting, `the nested copy's canApprove of ${status}`);
  }
});
