// get_policy and list_policies (@turnkey/http's getPolicy and getPolicies): the organization's
// policies, each with its expressions as written ("" when absent), oldest first. The policy object's
// one renderer, which get_organization uses too.
import { z } from 'zod';
import { EFFECTS, MAX_POLICIES } from '../activities/handlers/policies/policyPlans.ts';
import { notFound } from '../errors.ts';
import { findPolicyFor, listPoliciesFor, type StoredPolicy } from '../store/policies.ts';
import { granted, type QueryHandler } from './query.ts';

/** A policy on the wire; times in RFC 3339 like every Signet time. */
export function renderPolicy(policy: StoredPolicy) {
  return {
    policyId: policy.policyId,
    policyName: policy.policyName,
    effect: policy.effect,
    condition: policy.condition,
    consensus: policy.consensus,
    notes: policy.notes,
    createdAt: policy.createdAt.toISOString(),
    updatedAt: policy.updatedAt.toISOString(),
  };
}

export const policySchema = z
  .strictObject({
    policyId: z.uuid().describe('Identifier of the policy'),
    policyName: z.string().describe('Name of the policy, unique in the organization'),
    effect: z.enum(EFFECTS).describe('EFFECT_ALLOW or EFFECT_DENY'),
    condition: z.string().describe('The condition expression as written; "" when the policy has none (it is about every activity)'),
    consensus: z.string().describe('The consensus expression as written; "" when the policy has none (any approvers will do)'),
    notes: z.string().describe('Notes on the policy ("" when none)'),
    createdAt: z.iso.datetime().describe('Creation time (RFC 3339)'),
    updatedAt: z.iso.datetime().describe('Time of the last update (RFC 3339)'),
  })
  .meta({ id: 'Policy', description: "A policy of the organization: an ALLOW or DENY for the activities its condition holds for, once their approvers meet its consensus" });

const organizationId = z.uuid({ message: 'must be the UUID of your organization' }).describe('Unique identifier of your organization');

export const getPolicy: QueryHandler = {
  path: 'get_policy',
  description: 'One policy of the organization.',
  example: { organizationId: '9f5e7c2a-3b1d-4e6f-8a9b-0c1d2e3f4a5b', policyId: '2d6f0b8e-5a4c-4e1f-9b3a-7c8d9e0f1a2b' },
  request: z.strictObject({
    organizationId,
    policyId: z.uuid({ message: 'must be a policy id (a UUID)' }).describe("The policy to read; another organization's is a 404"),
  }),
  answer: z.strictObject({ policy: policySchema }),
  async run(context, query: { organizationId: string; policyId: string }) {
    const { policy } = granted(context, await findPolicyFor(context.db, context.principal.credential, query.organizationId, query.policyId));
    if (!policy) throw notFound('POLICY_NOT_FOUND', `no policy ${query.policyId} in organization ${query.organizationId}`);
    return { policy: renderPolicy(policy) };
  },
};

export const listPolicies: QueryHandler = {
  path: 'list_policies',
  description: `The organization's policies, oldest first (\`@turnkey/http\`'s \`getPolicies\`); there are at most ${MAX_POLICIES}, so in one answer.`,
  example: { organizationId: '9f5e7c2a-3b1d-4e6f-8a9b-0c1d2e3f4a5b' },
  request: z.strictObject({ organizationId }),
  answer: z.strictObject({ policies: z.array(policySchema).max(MAX_POLICIES).describe("The organization's policies, oldest first") }),
  async run(context, query: { organizationId: string }) {
    const { policies } = granted(context, await listPoliciesFor(context.db, context.principal.credential, query.organizationId));
    return { policies: policies!.map(renderPolicy) };
  },
};
