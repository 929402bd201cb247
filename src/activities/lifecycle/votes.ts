// approve_activity (ACTIVITY_TYPE_APPROVE_ACTIVITY) and reject_activity
// (ACTIVITY_TYPE_REJECT_ACTIVITY): a user's vote on an activity of the organization that waits for
// approvals, named by its fingerprint. The engine records the vote on that activity, decides it again
// with the new approver and answers with it: allowed, it executes then; rejected once, it is final.
import { z } from 'zod';
import { invalidArgument } from '../../errors.ts';
import type { ActivityHandler } from '../handler.ts';

/** Longer than any fingerprint Signet makes (sha256: and 64 hex digits), shorter than anything abusive. */
const MAX_FINGERPRINT_LENGTH = 256;

const parameters = z.strictObject({
  fingerprint: z
    .string({ error: 'must be the fingerprint of an activity (a string)' })
    .min(1, 'must be the fingerprint of an activity')
    .max(MAX_FINGERPRINT_LENGTH, `must be at most ${MAX_FINGERPRINT_LENGTH} characters`)
    .describe("The activity's `fingerprint`, as its submission answered it; another organization's is a 404"),
});

const example = { fingerprint: 'sha256:3b8f1f5e6a0c4d2e9f7a1b3c5d7e9f0a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e' };

function voteHandler(
  selection: 'VOTE_SELECTION_APPROVED' | 'VOTE_SELECTION_REJECTED',
  names: Pick<ActivityHandler, 'path' | 'activityType' | 'resource' | 'action' | 'reasons' | 'summary' | 'intentKey' | 'resultKey' | 'description'>,
): ActivityHandler<typeof parameters> {
  return {
    ...names,
    votes: selection,
    parameters,
    example,
    async execute() {
      // The engine records a vote itself (ActivityHandler.votes); a vote is never executed as an activity.
      throw invalidArgument(`${names.activityType} is a vote on another activity, not an activity of its own`);
    },
  };
}

export const approveActivity = voteHandler('VOTE_SELECTION_APPROVED', {
  path: 'approve_activity',
  activityType: 'ACTIVITY_TYPE_APPROVE_ACTIVITY',
  resource: 'ACTIVITY',
  action: 'APPROVE',
  reasons: ['ACTIVITY_NOT_FOUND', 'USER_NOT_FOUND'],
  summary:
    '`{fingerprint}` of an activity waiting for approvals (`ACTIVITY_STATUS_CONSENSUS_NEEDED`); answers that activity decided again: executed now (`COMPLETED`, or `FAILED` with `failure`), or still waiting ([Who may do what](authorization.md))',
  intentKey: 'approveActivityIntent',
  resultKey: 'approveActivityResult',
  description:
    'Approves an activity that waits for approvals (`ACTIVITY_STATUS_CONSENSUS_NEEDED`), named by its fingerprint, and answers ' +
    'with that activity decided again: when the approvals now allow it, it has executed (`COMPLETED`, or `FAILED` with ' +
    '`failure` when its effect was refused then). Only root quorum users and users a matching policy\'s consensus counts may vote; ' +
    'each user votes once.',
});

export const rejectActivity = voteHandler('VOTE_SELECTION_REJECTED', {
  path: 'reject_activity',
  activityType: 'ACTIVITY_TYPE_REJECT_ACTIVITY',
  resource: 'ACTIVITY',
  action: 'REJECT',
  reasons: ['ACTIVITY_NOT_FOUND', 'USER_NOT_FOUND'],
  summary: '`{fingerprint}`: one rejection is final (`ACTIVITY_STATUS_REJECTED`); its submitter may withdraw its own',
  intentKey: 'rejectActivityIntent',
  resultKey: 'rejectActivityResult',
  description:
    'Rejects an activity that waits for approvals, named by its fingerprint: one rejection is final (`ACTIVITY_STATUS_REJECTED`), ' +
    'and nothing of the activity is executed. Its submitter may reject (withdraw) it too. Answers with that activity.',
});
