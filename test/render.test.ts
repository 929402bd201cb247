// The activity as clients read it: canApprove and canReject for its reader (the renderer and the
// access rule alone, no store).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { accessOf, type Authority } from '../src/activities/lifecycle/decide.ts';
import { apiKeySchema, authenticatorSchema } from '../src/activities/wire/activitySchema.ts';
import { activityResponseJson, apiKeyObject, authenticatorObject } from '../src/activities/wire/render.ts';
import { ACTIVITY_STATUSES, ACTIVITY_STATUS } from '../src/activities/wire/status.ts';
import { compileExpression, type Approver } from '../src/policy/index.ts';
import type { ActivityRecord, VoteRecord } from '../src/store/activities.ts';
import type { LiveApiKey } from '../src/store/apiKeys.ts';
import type { LiveAuthenticator } from '../src/store/authenticators.ts';

const now = new Date('2026-11-25T12:00:00.000Z');
const [root, other, submitter, tagged] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
const TAG = randomUUID();

function vote(userId: string, selection = 'VOTE_SELECTION_APPROVED'): VoteRecord {
  return {
    id: randomUUID(),
    userId,
    userName: userId,
    userEmail: null,
    userPhoneNumber: null,
    userCreatedAt: now,
    userUpdatedAt: now,
    userTags: [],
    userRemoved: false,
    selection,
    publicKey: '02ab',
    signature: '30',
    scheme: 'SIGNATURE_SCHEME_TK_API_P256',
    credentialType: 'CREDENTIAL_TYPE_API_KEY_P256',
    credentialId: randomUUID(),
    webauthnCredentialId: null,
    authenticatorData: null,
    clientDataJson: null,
    policyEvaluations: [],
    createdAt: now,
  };
}

function record(status: string, votes: VoteRecord[]): ActivityRecord {
  return {
    id: randomUUID(),
    organizationId: randomUUID(),
    type: 'ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE',
    status,
    fingerprint: 'sha256:00',
    timestampMs: String(now.getTime()),
    rawBody: '{}',
    intentJson: '{"createSmartContractInterfaceIntent":{"label":"x"}}',
    result: {},
    votes,
    createdAt: now,
    updatedAt: now,
  };
}

const consensus = compileExpression(`approvers.filter(u, u.tags.contains('${TAG}')).count() >= 2`, 'consensus');
assert.ok(consensus.ok);
const authority: Authority = {
  organizationId: randomUUID(),
  version: '1',
  rootQuorum: { threshold: 2, userIds: [root, randomUUID()] },
  policies: [{ policyId: randomUUID(), policyName: 'two of the tag', effect: 'EFFECT_ALLOW', consensus: consensus.value }],
  unreadable: [],
  users: new Map(),
};

const reader = (id: string, tags: string[] = []): Approver => ({ user: { id, tags, email: '', name: id }, credentials: [] });

test('the rendered flags are the reader\'s access, in both copies of the activity', () => {
  for (const access of [
    { canApprove: true, canReject: true },
    { canApprove: false, canReject: true },
    { canApprove: false, canReject: false },
  ]) {
    const { activity } = JSON.parse(activityResponseJson(record(ACTIVITY_STATUS.CONSENSUS_NEEDED, []), access));
    assert.equal(activity.canApprove, access.canApprove);
    assert.equal(activity.canReject, access.canReject);
    assert.equal(activity.result.activity.canApprove, access.canApprove);
    assert.equal(activity.result.activity.canReject, access.canReject);
  }
});

test('only a waiting activity can be approved or rejected, whoever reads it', () => {
  for (const status of ACTIVITY_STATUSES) {
    if (status === ACTIVITY_STATUS.CONSENSUS_NEEDED) continue;
    const access = accessOf(authority, record(status, [vote(submitter)]), reader(root));
    assert.deepEqual(access, { canApprove: false, canReject: false }, status);
  }
});

test('a waiting activity: a root user who has not voted may approve and reject; one who voted may not', () => {
  const waiting = record(ACTIVITY_STATUS.CONSENSUS_NEEDED, [vote(submitter)]);
  assert.deepEqual(accessOf(authority, waiting, reader(root)), { canApprove: true, canReject: true });
  const voted = record(ACTIVITY_STATUS.CONSENSUS_NEEDED, [vote(submitter), vote(root)]);
  assert.deepEqual(accessOf(authority, voted, reader(root)), { canApprove: false, canReject: false });
});

test('a waiting activity: a user the consensus counts may vote, one it does not count may not', () => {
  const waiting = record(ACTIVITY_STATUS.CONSENSUS_NEEDED, [vote(submitter)]);
  assert.deepEqual(accessOf(authority, waiting, reader(tagged, [TAG])), { canApprove: true, canReject: true });
  assert.deepEqual(accessOf(authority, waiting, reader(other)), { canApprove: false, canReject: false });
});

test('its submitter may reject (withdraw) its waiting activity, not approve it again', () => {
  const waiting = record(ACTIVITY_STATUS.CONSENSUS_NEEDED, [vote(submitter)]);
  assert.deepEqual(accessOf(authority, waiting, reader(submitter)), { canApprove: false, canReject: true });
});

test('a failed activity renders its failure', () => {
  const failed = { ...record(ACTIVITY_STATUS.FAILED, []), failure: { code: 3, message: 'the code expired' } };
  const { activity } = JSON.parse(activityResponseJson(failed, { canApprove: false, canReject: false }));
  assert.deepEqual(activity.failure, { code: 3, message: 'the code expired', details: [] });
});

test('an API key and a passkey list their fields in the order their schemas declare them', () => {
  const createdAt = now;
  const expiresAt = new Date(now.getTime() + 60_000);
  const key = apiKeyObject({ id: randomUUID(), name: 'k', publicKey: '02ab', kind: 'session', createdAt, expiresAt } as LiveApiKey);
  assert.deepEqual(Object.keys(key), Object.keys(apiKeySchema.shape));
  const passkey = authenticatorObject({ id: randomUUID(), name: 'p', credentialId: 'cid', publicKey: 'a5', aaguid: null, transports: ['usb'], createdAt } as LiveAuthenticator);
  assert.deepEqual(Object.keys(passkey), Object.keys(authenticatorSchema.shape));
});
