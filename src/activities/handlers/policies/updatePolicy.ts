// The update_policy activity (ACTIVITY_TYPE_UPDATE_POLICY_V2, and V1's ACTIVITY_TYPE_UPDATE_POLICY
// with the same fields): changes the fields of one policy that the request gives and keeps the
// others. An expression given as "" is removed (the policy is then about every activity, or any
// approvers will do); one given otherwise is checked as create_policy checks it.
import { z } from 'zod';
import { invalidField, notFound } from '../../../errors.ts';
import { changeAuthority, check, write } from '../../../store/effects.ts';
import type { ActivityHandler } from '../../handler.ts';
import { effect, expression, MAX_POLICY_NOTES_LENGTH, notes, policyId, policyName } from './policyPlans.ts';

const parameters = z.strictObject({
  policyId: policyId.describe("The policy to change; another organization's is a 404"),
  policyName: policyName().optional(),
  policyEffect: effect().describe('EFFECT_ALLOW or EFFECT_DENY').optional(),
  policyCondition: expression('condition').optional(),
  policyConsensus: expression('consensus').optional(),
  policyNotes: notes().describe(`Notes on the policy, at most ${MAX_POLICY_NOTES_LENGTH} characters`).optional(),
});

const resultSchema = z.strictObject({
  policyId: z.uuid().describe('The policy changed'),
});

type Result = z.infer<typeof resultSchema>;

export const updatePolicy: ActivityHandler<typeof parameters, Result> = {
  path: 'update_policy',
  activityType: 'ACTIVITY_TYPE_UPDATE_POLICY_V2',
  resource: 'POLICY',
  action: 'UPDATE',
  reasons: ['POLICY_NOT_FOUND'],
  summary:
    '`{policyId, policyName?, policyEffect?, policyCondition?, policyConsensus?, policyNotes?}`: the fields given change; result `updatePolicyResultV2 {policyId}`',
  description:
    'Changes the fields of a policy that are given and keeps the others; an expression given as "" is removed. ' +
    'Expressions are checked as `create_policy` checks them; a name another policy of the organization has is a 400, a policy that is not the organization\'s a 404.',
  intentKey: 'updatePolicyIntentV2',
  resultKey: 'updatePolicyResultV2',
  parameters,
  resultSchema,
  example: { policyId: '2d6f0b8e-5a4c-4e1f-9b3a-7c8d9e0f1a2b', policyConsensus: 'approvers.count() >= 2' },

  async execute(context, intent) {
    const { organizationId, now } = context;
    const policyId = intent.policyId.toLowerCase();
    return {
      result: { policyId },
      effects: [
        changeAuthority(organizationId),
        check('policyOfOrganization', [organizationId, policyId], notFound('POLICY_NOT_FOUND', `parameters.policyId: no policy ${policyId} in organization ${organizationId}`)),
        ...(intent.policyName === undefined
          ? []
          : [
              check(
                'policyNameFree',
                [organizationId, intent.policyName, policyId],
                invalidField('parameters.policyName', `the organization already has another policy named ${JSON.stringify(intent.policyName)}; policy names are unique in an organization`),
              ),
            ]),
        write(
          'updatePolicy',
          organizationId,
          policyId,
          { policyName: intent.policyName, effect: intent.policyEffect, condition: intent.policyCondition, consensus: intent.policyConsensus, notes: intent.policyNotes },
          now,
        ),
      ],
    };
  },
};

/** V1: the same fields under updatePolicyIntent and updatePolicyResult. */
export const updatePolicyV1: ActivityHandler<typeof parameters, Result> = {
  ...updatePolicy,
  activityType: 'ACTIVITY_TYPE_UPDATE_POLICY',
  description: 'V1 of `update_policy`: the same fields and effect, under `updatePolicyIntent` and `updatePolicyResult`.',
  intentKey: 'updatePolicyIntent',
  resultKey: 'updatePolicyResult',
};
