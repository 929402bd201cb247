// The delete_policy activity (ACTIVITY_TYPE_DELETE_POLICY): removes one policy of the organization;
// one that is not the organization's is a 404.
import { z } from 'zod';
import type { ActivityHandler } from '../../handler.ts';
import { planDeletion, policyId } from './policyPlans.ts';

const deletePolicyParameters = z.strictObject({
  policyId: policyId.describe("The policy to delete; another organization's is a 404"),
});
const deletePolicyResult = z.strictObject({ policyId: z.uuid().describe('The deleted policy') });

export const deletePolicy: ActivityHandler<typeof deletePolicyParameters, z.infer<typeof deletePolicyResult>> = {
  path: 'delete_policy',
  activityType: 'ACTIVITY_TYPE_DELETE_POLICY',
  resource: 'POLICY',
  action: 'DELETE',
  reasons: ['POLICY_NOT_FOUND'],
  summary: '`{policyId}`; result `deletePolicyResult {policyId}`',
  description: "Deletes a policy of the organization. One that is not the organization's is a 404.",
  intentKey: 'deletePolicyIntent',
  resultKey: 'deletePolicyResult',
  parameters: deletePolicyParameters,
  resultSchema: deletePolicyResult,
  example: { policyId: '2d6f0b8e-5a4c-4e1f-9b3a-7c8d9e0f1a2b' },

  async execute(context, intent) {
    const id = intent.policyId.toLowerCase();
    const plan = planDeletion(context, [id], () => 'parameters.policyId');
    return { ...plan, result: { policyId: id } };
  },
};

