// approve_activity (ACTIVITY_TYPE_APPROVE_ACTIVITY) and reject_activity
// (ACTIVITY_TYPE_REJECT_ACTIVITY): a user's vote on an activity of the organization that waits for
// approvals, named by its fingerprint. The vote is recorded on that activity, which is decided again
// with the new approver and answered with: allowed, it executes then (execute.ts, as a submission
// allowed at once does) and its effect is written with the vote (commit.ts); rejected once, it is final.
import { z } from 'zod';
import type { Principal } from '../../auth/principal.ts';
import { invalidField, notFound, requestNotAuthorized, unavailable, type SignetError } from '../../errors.ts';
import type { Approver } from '../../policy/index.ts';
import { lockActivity } from '../../store/activities.ts';
import type { Queryable } from '../../store/db.ts';
import { compileEffects } from '../../store/effects.ts';
import { run } from '../../store/sql.ts';
import type { ActivityHandler } from '../handler.ts';
import { activitySchema } from '../wire/activitySchema.ts';
import { ACTIVITY_STATUS } from '../wire/status.ts';
import { approvalRequests, reportSkippedApprovals, waitingActivityOf } from './approvalRequests.ts';
import { answer, checkRefusal, newVote, VOTE_GUARDS, voteGuards, writeSettledVote, writeVoteOn, type VoteChange, type VoteOn } from './commit.ts';
import { changedSince, type Lifecycle } from './context.ts';
import {
  ApproverRemoved,
  approversOf,
  AuthorityChanged,
  decideActivity,
  decidedOf,
  intentOf,
  MAX_DECISIONS,
  mayVoteOn,
  refusal,
  submitterRemoved,
  type Authority,
  type DecidedActivity,
} from './decide.ts';
import { execute } from './execute.ts';
import { prepare, type Preparation } from './prepare.ts';
import { viewNeeded, viewOf } from './view.ts';
import { generateAppProofsOf, handlerOfType, type Declared } from './intake.ts';
import type { Evaluations, Submission, SubmissionOutcome, VoteAnswer, VoteSelection } from './model.ts';

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

/**
 * A vote route: POST /public/v1/submit/<path>, declared like an activity's (path, type, parameters,
 * the keys its body is echoed under) but its own family: it records a vote on another activity and
 * answers with that one, of any type; nothing of its own is executed.
 */
export interface VoteRoute
  extends Declared,
    Pick<ActivityHandler<typeof parameters>, 'intentKey' | 'resultKey' | 'description' | 'parameters' | 'example' | 'resource' | 'action' | 'reasons' | 'summary'> {
  selection: VoteSelection;
  /** The answer: the activity voted on, of any type. */
  answer: z.ZodType;
}

function voteRoute(
  selection: VoteSelection,
  names: Pick<VoteRoute, 'path' | 'activityType' | 'resource' | 'action' | 'reasons' | 'summary' | 'intentKey' | 'resultKey' | 'description'>,
): VoteRoute {
  return { ...names, selection, parameters, example, answer: z.strictObject({ activity: activitySchema }) };
}

export const approveActivity = voteRoute('VOTE_SELECTION_APPROVED', {
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

export const rejectActivity = voteRoute('VOTE_SELECTION_REJECTED', {
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

/** The vote routes, declared once: the HTTP layer registers them and the OpenAPI document describes them from here. */
export const voteRoutes: readonly VoteRoute[] = [approveActivity, rejectActivity];

/**
 * A vote on the organization's activity with `fingerprint`, in one transaction that holds the
 * activity's row: the votes on one activity are decided one after the other, in every process, and
 * the status changes only from waiting, so an activity executes once. Answers with that activity.
 */
export async function vote(lifecycle: Lifecycle, selection: VoteSelection, submission: Submission, fingerprint: string, now: Date): Promise<SubmissionOutcome> {
  const { db } = lifecycle.deps;
  const { principal, envelope } = submission;
  const { organizationId } = envelope;
  const body = submission.body.toString('utf8');
  for (let attempt = 1; ; attempt++) {
    const authority = await lifecycle.authorities.of(db, organizationId);
    const voter = await lifecycle.authorities.approverOf(db, authority, principal);
    try {
      const outcome = await db.transaction((tx) => voteIn(lifecycle, tx, { selection, principal, organizationId, body, fingerprint, now, authority, voter }));
      if (outcome.queuesDelivery) lifecycle.deps.onQueued?.();
      if (outcome.changesAuthority) lifecycle.authorities.forget(organizationId);
      return answer(lifecycle, outcome.activity, principal, outcome.written);
    } catch (error) {
      // The authority changed, or an approver the decision counted was removed, before the vote's statement: decide again.
      if (!(error instanceof AuthorityChanged || error instanceof ApproverRemoved)) throw error;
      if (error instanceof AuthorityChanged) lifecycle.authorities.forget(organizationId);
      if (attempt >= MAX_DECISIONS) {
        throw unavailable("the organization's root quorum or policies kept changing while the vote was decided; nothing was stored, vote again", 'AUTHORITY_CHANGING');
      }
    }
  }
}

/** One vote, decided with the activity's row locked in `tx`. */
interface Ballot {
  selection: VoteSelection;
  principal: Principal;
  organizationId: string;
  /** The vote's body as signed: the message the vote keeps. */
  body: string;
  fingerprint: string;
  now: Date;
  authority: Authority;
  voter: Approver;
}

async function voteIn(lifecycle: Lifecycle, tx: Queryable, ballot: Ballot): Promise<VoteAnswer> {
  const { principal, organizationId } = ballot;
  const target = await lockActivity(tx, { organizationId, fingerprint: ballot.fingerprint });
  if (!target) throw notFound('ACTIVITY_NOT_FOUND', `no activity with fingerprint ${ballot.fingerprint} in organization ${organizationId}`);
  const handler = handlerOfType(lifecycle.deps.handlers, target.type);
  if (!handler) throw new Error(`no handler for the stored activity type ${target.type}`);

  const own = target.votes.find((vote) => vote.userId === principal.userId);
  const submitter = target.votes[0]?.userId === principal.userId;
  // The same vote again answers as the first did: with the activity as it is now.
  if (target.votes.some((vote) => vote.userId === principal.userId && vote.message === ballot.body)) return { activity: target, written: false };
  // Its submitter may withdraw a waiting activity; anyone else votes once.
  const withdrawal = submitter && ballot.selection === 'VOTE_SELECTION_REJECTED' && target.votes.filter((vote) => vote.userId === principal.userId).length === 1;
  if (own && !withdrawal) {
    throw invalidField(
      'parameters.fingerprint',
      `user ${principal.userId} has already voted on activity ${target.id} (${own.selection}${submitter ? ', as its submitter' : ''}); a user votes once`,
    );
  }
  if (target.status !== ACTIVITY_STATUS.CONSENSUS_NEEDED) {
    throw invalidField(
      'parameters.fingerprint',
      `activity ${target.id} is ${target.status}: only an activity waiting for approvals (${ACTIVITY_STATUS.CONSENSUS_NEEDED}) can be approved or rejected`,
    );
  }
  // Prepared again (what it names may have changed since it was submitted), and viewed when the
  // decision may read its view; what was prepared is handed on to execute.
  const intent = intentOf(target);
  const prepareContext = { organizationId, principal, now: ballot.now, db: tx, config: lifecycle.deps.config };
  const preparation = viewNeeded(handler, ballot.authority) ? await prepare(handler, prepareContext, intent) : undefined;
  const view = preparation && (await viewOf(handler, prepareContext, intent, preparation, ballot.authority));
  const decided = decidedOf(handler, target.type, intent, view);
  // A removed user is not an approver: its approval no longer counts, and its own activity is never allowed.
  const approvers = approversOf(target);
  if (!withdrawal && !mayVoteOn(ballot.authority, decided, approvers, ballot.voter)) {
    if (await changedSince(lifecycle, ballot.authority, principal, tx)) throw new AuthorityChanged();
    throw requestNotAuthorized(
      `user ${principal.userId} may not vote on activity ${target.id}: only the root quorum's users, and users whom the consensus of ` +
        'a policy allowing this activity counts, take part in approving it',
    );
  }
  return decideAgain(lifecycle, tx, { target, principal, now: ballot.now }, { ballot, handler, decided, approvers, ...(preparation?.kind === 'prepared' ? { preparation } : {}) });
}

/** The waiting activity decided again with the vote: rejected, failed, still waiting, or allowed and executed. */
async function decideAgain(
  lifecycle: Lifecycle,
  tx: Queryable,
  on: VoteOn,
  {
    ballot,
    handler,
    decided,
    approvers,
    preparation,
  }: { ballot: Ballot; handler: ActivityHandler; decided: DecidedActivity; approvers: Approver[]; preparation?: Extract<Preparation, { kind: 'prepared' }> },
): Promise<VoteAnswer> {
  const { target, principal, now } = on;
  const { organizationId } = target;
  const removedSubmitter = submitterRemoved(target);
  /**
   * The change every vote writes; `guards`: the voter's only, unless the decision counted the
   * approvers. The summary its decision read (its view taken again) replaces the stored one.
   */
  const change = (evaluations: Evaluations, decidedWithApprovers: boolean): Omit<VoteChange, 'status'> => ({
    activityId: target.id,
    organizationId,
    updatedAt: now,
    ...(decided.summary ? { summary: decided.summary } : {}),
    credential: principal.credential,
    authorityVersion: ballot.authority.version,
    guards: voteGuards(on, decidedWithApprovers ? approvers.map((approver) => approver.user.id) : undefined),
    gates: [],
    rows: [],
    vote: { ...newVote(principal, ballot.selection, evaluations), organizationId, createdAt: now, message: ballot.body },
  });

  if (ballot.selection === 'VOTE_SELECTION_REJECTED') {
    // One rejection is final. The evaluations name the policies about the activity (with its
    // submitter removed, read with the voter as the one approver).
    const evaluations = decideActivity(ballot.authority, decided, removedSubmitter === undefined ? approvers : [ballot.voter]).evaluations.map((e) => ({
      policyId: e.policyId,
      outcome: 'OUTCOME_REJECTED' as const,
    }));
    return writeSettledVote(lifecycle, tx, on, { ...change(evaluations, false), status: ACTIVITY_STATUS.REJECTED });
  }

  if (removedSubmitter !== undefined) {
    // Nothing can allow it any more: no one approves on behalf of a removed user.
    const error = requestNotAuthorized(
      `${target.type} can no longer be allowed: user ${removedSubmitter}, who submitted it, was removed from organization ${organizationId}, ` +
        'and an activity of a removed user is never executed; nothing was executed',
    );
    return writeSettledVote(lifecycle, tx, on, { ...change([], false), status: ACTIVITY_STATUS.FAILED, failure: { code: error.code, message: error.message } });
  }

  const decision = decideActivity(ballot.authority, decided, [...approvers, ballot.voter]);
  if (decision.outcome === 'OUTCOME_REQUIRES_CONSENSUS') {
    // Still waiting: who may vote on it now and was not emailed yet is, by rows of the vote's statement.
    const activity = waitingActivityOf(target, decided.intent, principal.userId);
    const requests = compileEffects(await approvalRequests({ db: tx, config: lifecycle.deps.config }, { authority: ballot.authority, decided, approvers: [...approvers, ballot.voter], activity }, now));
    for (const lock of requests.locks) await run(tx, lock);
    const still = await writeSettledVote(
      lifecycle,
      tx,
      on,
      { ...change(decision.evaluations, true), status: ACTIVITY_STATUS.CONSENSUS_NEEDED, rows: requests.rows },
      { queuesDelivery: requests.queuesDelivery },
    );
    if (requests.queuesDelivery) await reportSkippedApprovals({ db: tx, log: lifecycle.deps.log }, { id: target.id, organizationId }, now);
    return still;
  }
  const failed = (error: SignetError) =>
    writeSettledVote(lifecycle, tx, on, { ...change(decision.evaluations, true), status: ACTIVITY_STATUS.FAILED, failure: { code: error.code, message: error.message } });
  if (decision.outcome !== 'OUTCOME_ALLOW') {
    // More approvers made a DENY policy apply: the activity will never be allowed.
    return failed(refusal(decision, { type: target.type, organizationId, userId: principal.userId }, ballot.authority));
  }

  // Allowed: the effect is planned now, at the approval that allows it, by the approver's credential.
  const execution = await execute(lifecycle, handler, {
    activityId: target.id,
    organizationId,
    fingerprint: target.fingerprint,
    timestampMs: target.timestampMs,
    intent: decided.intent,
    generateAppProofs: generateAppProofsOf(target.rawBody),
    principal,
    now,
    db: tx,
    ...(preparation ? { preparation } : {}),
  });
  if (execution.kind === 'refused') return failed(execution.error);
  const { plan, storedResult, appProofs } = execution.executed;
  for (const lock of plan.locks) await run(tx, lock);
  const base = change(decision.evaluations, true);
  const outcome = await writeVoteOn(
    lifecycle,
    tx,
    on,
    {
      ...base,
      guards: [...base.guards, ...plan.guards.map((guard) => guard.condition)],
      status: ACTIVITY_STATUS.COMPLETED,
      result: { [handler.resultKey]: storedResult },
      ...(appProofs ? { appProofs } : {}),
      gates: plan.gates.map((gate) => gate.gate),
      rows: plan.rows,
      ...(plan.changesAuthority ? { bumpsAuthority: true } : {}),
    },
    { ...(plan.queuesDelivery ? { queuesDelivery: true } : {}), ...(plan.changesAuthority ? { changesAuthority: true } : {}) },
  );
  // The approval that executed it is answered with its secrets, as the submitter of one allowed at once is.
  if ('activity' in outcome) return storedResult === plan.result ? outcome : { ...outcome, activity: { ...outcome.activity, result: { [handler.resultKey]: plan.result } } };
  if (outcome.kind === 'notWaiting') throw new Error(`a vote on a locked waiting activity was not written (${outcome.kind})`);
  return failed(checkRefusal(plan, outcome, VOTE_GUARDS));
}

