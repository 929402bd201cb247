// evaluate_policies: a dry run of the organization's root quorum and policies on a hypothetical
// activity of any type, as if a user of the organization submitted it and others approved it: the
// outcome, what each policy said (an expression that failed with its error and position), and who
// could still approve. The decision is the lifecycle's (lifecycle/dryRun.ts); nothing is stored.
import { z } from 'zod';
import { DRY_RUN_MAX_APPROVERS, DRY_RUN_USERS_SCANNED } from '../activities/lifecycle/dryRun.ts';
import { OUTCOMES } from '../policy/index.ts';
import type { QueryHandler } from './query.ts';

const userId = (what: string) => z.uuid({ message: 'must be a user id (a UUID)' }).describe(what);

const request = z.strictObject({
  organizationId: z.uuid({ message: 'must be the UUID of your organization' }).describe('Unique identifier of your organization'),
  activity: z
    .strictObject({
      type: z.string().min(1).max(100).describe('The activity type, as a submission names it (e.g. ACTIVITY_TYPE_CREATE_POLICY_V3)'),
      parameters: z.record(z.string(), z.unknown()).describe("The activity's parameters, checked by that type's own schema"),
    })
    .describe('The hypothetical activity'),
  userId: userId("Who would submit it, a user of the organization (default: the caller's user)").optional(),
  approverIds: z
    .array(userId('A user of the organization who approved it'))
    .max(DRY_RUN_MAX_APPROVERS)
    .optional()
    .describe(`Users of the organization who approved it besides the submitter, each once (at most ${DRY_RUN_MAX_APPROVERS})`),
});

const outcome = z.enum(OUTCOMES);

export const evaluatePolicies: QueryHandler<typeof request> = {
  path: 'evaluate_policies',
  description:
    "What the organization's root quorum and policies, as they are now, would decide for an activity of any type submitted by `userId` " +
    '(default: the caller) and approved by `approverIds`: the outcome, what each policy said, and who could still approve. ' +
    `Nothing is stored, sent or signed. \`couldBeApprovedBy\` looks among the organization's first ${DRY_RUN_USERS_SCANNED} users (oldest first).`,
  example: {
    organizationId: '9f5e7c2a-3b1d-4e6f-8a9b-0c1d2e3f4a5b',
    activity: { type: 'ACTIVITY_TYPE_CREATE_USER_TAG', parameters: { userTagName: 'approvers', userIds: [] } },
    approverIds: ['6c1e4a2b-7d3f-4e5a-9b8c-0d1e2f3a4b5c'],
  },
  request,
  answer: z
    .strictObject({
      outcome: outcome.describe('The decision: ALLOW, DENY_EXPLICIT, DENY_IMPLICIT or REQUIRES_CONSENSUS (more approvals could allow it)'),
      policyEvaluations: z
        .array(
          z.strictObject({
            policyId: z.uuid().describe('The policy'),
            policyName: z.string().describe('Its name'),
            outcome: outcome.describe('What it said: ALLOW or DENY_EXPLICIT when it applied, REQUIRES_CONSENSUS or DENY_IMPLICIT when its consensus did not hold yet, ERROR when an expression could not be evaluated'),
            error: z.string().optional().describe("For ERROR: the expression ('condition' or 'consensus') and what went wrong"),
            position: z.number().int().min(0).optional().describe('For ERROR: the 0-based character offset in that expression where its evaluation failed'),
          }),
        )
        .describe('Each policy whose condition held (or could not be evaluated), in the order the policies were created; none when the root quorum decided'),
      couldBeApprovedBy: z
        .array(z.uuid())
        .describe(`For REQUIRES_CONSENSUS: users whose approval could still count (not the submitter, not the approvers given), among the first ${DRY_RUN_USERS_SCANNED} users of the organization`),
      summary: z
        .looseObject({
          kind: z.string().describe('ethereum_transaction, solana_transaction or eip712: which fields follow (docs/policies.md)'),
          text: z.string().describe('The summary in one line'),
        })
        .optional()
        .describe(
          "For a signing activity decided by policies or a root quorum of more than one: what it signs as the organization's smart contract interfaces decode it (kind ethereum_transaction, solana_transaction or eip712, with a one-line `text`), as its approvers would read it",
        ),
    })
    .meta({ id: 'PolicyDryRun', description: 'What the root quorum and policies would decide for a hypothetical activity' }),
  run: (context, query) => context.dryRun(query),
};
