// The create_policy activity (ACTIVITY_TYPE_CREATE_POLICY_V3): one policy of the organization, its
// condition and consensus checked as it is written. The policy is written with the activity in one
// statement, after the checks that its name is free and the organization has room.
import { z } from 'zod';
import type { ActivityHandler } from '../../handler.ts';
import { MAX_POLICIES, planPolicies, POLICY_EXAMPLE, policyIntent } from './policyPlans.ts';

const resultSchema = z.strictObject({
  policyId: z.uuid().describe('Identifier of the new policy'),
});

export const createPolicy: ActivityHandler<typeof policyIntent, z.infer<typeof resultSchema>> = {
  path: 'create_policy',
  activityType: 'ACTIVITY_TYPE_CREATE_POLICY_V3',
  resource: 'POLICY',
  action: 'CREATE',
  reasons: [],
  summary:
    '`{policyName, effect, condition?, consensus?, notes}`: a policy, its expressions checked when written; result `createPolicyResult {policyId}` ([Policies](policies.md))',
  description:
    `Creates a policy: an ALLOW or DENY for the activities its \`condition\` holds for, once their approvers meet its \`consensus\` ("" or absent: every activity, any approvers). ` +
    `Each expression is parsed and type-checked: a mistake is a 400 naming the field and its position (\`at 17: expected ')'\`). ` +
    `A name the organization already has is a 400, and so is a policy past the ${MAX_POLICIES} an organization may have.`,
  intentKey: 'createPolicyIntentV3',
  resultKey: 'createPolicyResult',
  parameters: policyIntent,
  resultSchema,
  example: POLICY_EXAMPLE,

  async execute(context, intent) {
    const plan = planPolicies(context, [intent], (_, key) => `parameters.${key}`);
    return { ...plan, result: { policyId: plan.result.policyIds[0]! } };
  },
};
