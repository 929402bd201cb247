// The create_policies activity (ACTIVITY_TYPE_CREATE_POLICIES): several policies at once, all or
// none, each checked as create_policy checks one; two of them may not share a name.
import { z } from 'zod';
import type { ActivityHandler } from '../../handler.ts';
import { MAX_POLICIES, planPolicies, POLICY_EXAMPLE, policyIntent } from './policyPlans.ts';

const parameters = z.strictObject({
  policies: z
    .array(policyIntent, { error: 'must be an array of policies' })
    .min(1, 'must list at least one policy')
    .max(MAX_POLICIES, `may hold at most ${MAX_POLICIES} policies (the most an organization may have)`)
    .superRefine((policies, ctx) => {
      const seen = new Map<string, number>();
      policies.forEach((policy, i) => {
        const first = seen.get(policy.policyName);
        if (first === undefined) seen.set(policy.policyName, i);
        else ctx.addIssue({ code: 'custom', path: [i, 'policyName'], message: `is ${JSON.stringify(policy.policyName)}, the name of policies[${first}] too; policy names are unique in an organization` });
      });
    })
    .describe(`The policies to create, 1 to ${MAX_POLICIES}, each as create_policy takes it; no two with one name`),
});

const resultSchema = z.strictObject({
  policyIds: z.array(z.uuid()).describe('Identifiers of the new policies, in the order given'),
});

export const createPolicies: ActivityHandler<typeof parameters, z.infer<typeof resultSchema>> = {
  path: 'create_policies',
  activityType: 'ACTIVITY_TYPE_CREATE_POLICIES',
  resource: 'POLICY',
  action: 'CREATE',
  reasons: [],
  summary: '`{policies: [...]}`, 1 to 100, all or none; result `createPoliciesResult {policyIds}`',
  description:
    'Creates several policies at once, each as `create_policy` does; all or none. A refusal names the policy by its index (`parameters.policies[2].condition`).',
  intentKey: 'createPoliciesIntent',
  resultKey: 'createPoliciesResult',
  parameters,
  resultSchema,
  example: {
    policies: [
      { ...POLICY_EXAMPLE, policyName: 'Operators delete interfaces', condition: "activity.resource == 'SMART_CONTRACT_INTERFACE' && activity.action == 'DELETE'" },
      { policyName: 'No policy deletions', effect: 'EFFECT_DENY', condition: "activity.resource == 'POLICY' && activity.action == 'DELETE'", notes: 'Policies stay' },
    ],
  },

  async execute(context, intent) {
    return planPolicies(context, intent.policies, (i, key) => `parameters.policies[${i}].${key}`);
  },
};
