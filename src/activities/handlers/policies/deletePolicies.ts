// The delete_policies activity (ACTIVITY_TYPE_DELETE_POLICIES): removes policies of the organization,
// all or none; one that is not the organization's is a 404 naming it, and nothing is deleted.
import { z } from 'zod';
import type { ActivityHandler } from '../../handler.ts';
import { MAX_POLICIES, planDeletion, policyId } from './policyPlans.ts';

const deletePoliciesParameters = z.strictObject({
  policyIds: z
    .array(policyId, { error: 'must be an array of policy ids' })
    .min(1, 'must list at least one policy id')
    .max(MAX_POLICIES, `may hold at most ${MAX_POLICIES} policy ids`)
    .refine((ids) => new Set(ids.map((id) => id.toLowerCase())).size === ids.length, 'must not list a policy twice')
    .describe(`Policies of the organization to delete, 1 to ${MAX_POLICIES}; another organization's is a 404 and nothing is deleted`),
});
const deletePoliciesResult = z.strictObject({ policyIds: z.array(z.uuid()).describe('The deleted policies, as listed') });

export const deletePolicies: ActivityHandler<typeof deletePoliciesParameters, z.infer<typeof deletePoliciesResult>> = {
  path: 'delete_policies',
  activityType: 'ACTIVITY_TYPE_DELETE_POLICIES',
  resource: 'POLICY',
  action: 'DELETE',
  reasons: ['POLICY_NOT_FOUND'],
  summary: '`{policyIds}`, all or none; result `deletePoliciesResult {policyIds}`',
  description: "Deletes policies of the organization, all or none. One that is not the organization's is a 404 naming it, and nothing is deleted.",
  intentKey: 'deletePoliciesIntent',
  resultKey: 'deletePoliciesResult',
  parameters: deletePoliciesParameters,
  resultSchema: deletePoliciesResult,
  example: { policyIds: ['2d6f0b8e-5a4c-4e1f-9b3a-7c8d9e0f1a2b'] },

  async execute(context, intent) {
    return planDeletion(context, intent.policyIds.map((id) => id.toLowerCase()), (i) => `parameters.policyIds[${i}]`);
  },
};
