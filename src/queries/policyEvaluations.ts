// get_policy_evaluations: what the organization's policies said of an activity, one record per vote
// (the submitter's included): each policy whose condition held, with its outcome. A record of a vote
// the root quorum decided lists none.
import { z } from 'zod';
import { notFound } from '../errors.ts';
import { OUTCOMES } from '../policy/index.ts';
import { policyEvaluationsFor } from '../store/votes.ts';
import { granted, type QueryHandler } from './query.ts';

const evaluationSchema = z
  .strictObject({
    id: z.uuid().describe('Identifier of the record (the vote it was made with)'),
    activityId: z.uuid().describe('The activity decided'),
    organizationId: z.uuid().describe('The organization of the activity'),
    voteId: z.uuid().describe('The vote whose approvers were decided over'),
    policyEvaluations: z
      .array(
        z.strictObject({
          policyId: z.uuid().describe('The policy'),
          outcome: z
            .enum(OUTCOMES)
            .describe('What it said: ALLOW or DENY_EXPLICIT when it applied, REQUIRES_CONSENSUS or DENY_IMPLICIT when its consensus did not hold yet, ERROR when an expression could not be evaluated (never allows), REJECTED for a rejecting vote'),
        }),
      )
      .describe('Each policy whose condition held (or could not be evaluated), with what it said'),
    createdAt: z.iso.datetime().describe('When the vote was cast (RFC 3339)'),
  })
  .meta({ id: 'PolicyEvaluation', description: "What the policies said of an activity with one vote counted" });

export const getPolicyEvaluations: QueryHandler = {
  path: 'get_policy_evaluations',
  description: "What the organization's policies said of an activity, one record per vote, oldest first; another organization's activity is a 404.",
  example: { organizationId: '9f5e7c2a-3b1d-4e6f-8a9b-0c1d2e3f4a5b', activityId: '2d4f6a8c-1b3e-4d5f-9a7c-6e8b0d2f4a1c' },
  request: z.strictObject({
    organizationId: z.uuid({ message: 'must be the UUID of your organization' }).describe('Unique identifier of your organization'),
    activityId: z.uuid({ message: 'must be an activity id (a UUID)' }).describe('The activity whose evaluations to read'),
  }),
  answer: z.strictObject({ policyEvaluations: z.array(evaluationSchema).describe('One record per vote, oldest first') }),
  async run(context, request: { organizationId: string; activityId: string }) {
    const { evaluations } = granted(context, await policyEvaluationsFor(context.db, context.principal.credential, request));
    if (!evaluations) throw notFound('ACTIVITY_NOT_FOUND', `no activity ${request.activityId} in organization ${request.organizationId}`);
    return {
      policyEvaluations: evaluations.map((e) => ({
        id: e.voteId,
        activityId: e.activityId,
        organizationId: e.organizationId,
        voteId: e.voteId,
        policyEvaluations: e.policyEvaluations,
        createdAt: e.createdAt.toISOString(),
      })),
    };
  },
};
