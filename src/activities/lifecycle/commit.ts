// Commit: the write of an activity's status with what it carries, in one statement (src/store), and
// the answer its outcome gives. A new activity (allowed now, or waiting) is written with its
// submitter's vote, the plan's rows and every check they depend on (writeNew), and answered (settle);
// a vote changes a waiting activity (writeVoteOn). Every change of status asked for here is checked
// against transitions.ts, and the statuses it may start from are what the store's update is guarded by.
import { randomUUID } from 'node:crypto';
import type { Principal } from '../../auth/principal.ts';
import { concurrentChange, credentialRefused, notFound, type SignetError } from '../../errors.ts';
import type { Decision } from '../../policy/index.ts';
import { findActivity, writeVote, type ActivityRecord, type VoteOutcome, type VoteRecord, type VoteWrite } from '../../store/activities.ts';
import type { Queryable } from '../../store/db.ts';
import type { Sql } from '../../store/sql.ts';
import { usersActive } from '../../store/users.ts';
import type { ActivityHandler, ActivityPlan } from '../handler.ts';
import { activityResponseJson } from '../wire/render.ts';
import { ACTIVITY_STATUS, type ActivityStatus } from '../wire/status.ts';
import { accessFor, type Lifecycle } from './context.ts';
import { ApproverRemoved, AuthorityChanged, principalCredential } from './decide.ts';
import { organizationOf } from './intake.ts';
import type { CompiledPlan, NewActivity, NewActivityWritten, ProposedVote, Submission, SubmissionOutcome, VoteAnswer } from './model.ts';
import { isTransition, newStatus, statusesChangingTo, type FromStatus } from './transitions.ts';
import { activityEventRows } from './webhookEvents.ts';

/** The answer: the activity as its reader may still approve or reject it. */
export async function answer(lifecycle: Lifecycle, record: ActivityRecord, reader: Principal, created: boolean): Promise<SubmissionOutcome> {
  const access = await accessFor(lifecycle, record, reader);
  return { json: activityResponseJson(record, access), activityId: record.id, organizationId: record.organizationId, created };
}

/** A refusal of a body submitted before is not the answer: its stored activity is. Otherwise `error` is thrown. */
export async function storedOr(
  lifecycle: Lifecycle,
  body: { organizationId: string; fingerprint: string; principal: Principal },
  error: unknown,
): Promise<SubmissionOutcome> {
  const activity = await findActivity(lifecycle.deps.db, { organizationId: body.organizationId, fingerprint: body.fingerprint });
  if (activity) return answer(lifecycle, activity, body.principal, false);
  throw error;
}

/** Writes a new activity (allowed now, or waiting), and says what happened. */
export async function writeNew(lifecycle: Lifecycle, handler: ActivityHandler, submission: Submission, activity: NewActivity): Promise<NewActivityWritten> {
  const { envelope, principal } = submission;
  const organizationId = organizationOf(submission);
  const { activityId, fingerprint, now, executed, stored } = activity;
  const { plan, storedResult, appProofs } = executed;
  const status = newStatus(activity.status);
  const vote = newVote(principal, 'VOTE_SELECTION_APPROVED', activity.evaluations);
  // The record the answer renders, with the stamp header the store keeps (written out: on the hot
  // path, properties added after a spread cost a slow path each).
  const record: ActivityRecord & { stampHeader: string } = {
    id: activityId,
    organizationId,
    type: envelope.type,
    status,
    fingerprint,
    timestampMs: envelope.timestampMs,
    rawBody: stored.rawBody,
    intentJson: `{${JSON.stringify(handler.intentKey)}:${JSON.stringify(stored.intent)}}`,
    result: status === ACTIVITY_STATUS.COMPLETED ? { [handler.resultKey]: storedResult } : {},
    createdAt: now,
    updatedAt: now,
    votes: [voteRecord(principal, vote, now)],
    stampHeader: submission.stampHeader,
    ...(appProofs ? { appProofs } : {}),
    ...(activity.summary ? { summary: activity.summary } : {}),
  };
  const write = () =>
    lifecycle.writer.write({
      activity: record,
      vote,
      credential: principal.credential,
      authorityOrganizationId: activity.authority.organizationId,
      authorityVersion: activity.authority.version,
      ...(plan.changesAuthority ? { bumpsAuthority: true } : {}),
      guards: plan.guards.map((guard) => guard.condition),
      gates: plan.gates.map((gate) => gate.gate),
      rows: [...plan.rows, ...activityEventRows(record)],
      locks: plan.locks,
    });
  let outcome = await write();
  // A concurrent request took a unique value after the checks read, or deadlocked with this one:
  // written again, the checks see its write and refuse with the field it is in.
  if (outcome.kind === 'conflict') outcome = await write();
  if (outcome.kind === 'authorityChanged') return outcome;
  if (outcome.kind === 'created' && plan.changesAuthority) lifecycle.authorities.forget(organizationId);
  // Only the request that made the activity is answered with its secrets, and with a proof of them.
  if (outcome.kind === 'created' && storedResult !== plan.result) {
    const answerProofs = await executed.proofsOf(plan.result);
    return {
      kind: 'written',
      outcome,
      record: { ...record, result: { [handler.resultKey]: plan.result }, ...(answerProofs ? { appProofs: answerProofs } : {}) },
    };
  }
  return { kind: 'written', record, outcome };
}

/** The answer a new activity's write gives: the activity, the one submitted before, or the refusal the statement found. */
export async function settle(
  lifecycle: Lifecycle,
  plan: CompiledPlan,
  principal: Principal,
  written: Extract<NewActivityWritten, { kind: 'written' }>,
): Promise<SubmissionOutcome> {
  const { record, outcome } = written;
  const orStored = (error: unknown) => storedOr(lifecycle, { organizationId: record.organizationId, fingerprint: record.fingerprint, principal }, error);
  switch (outcome.kind) {
    case 'created':
      if (plan.queuesDelivery) lifecycle.deps.onQueued?.();
      // The submitter's tags as the statement read them (the record is this write's own).
      record.votes[0]!.userTags = outcome.userTags;
      return answer(lifecycle, record, principal, true);
    case 'existing':
      return answer(lifecycle, outcome.activity, principal, false);
    case 'credentialRefused':
      // A verification token used by a concurrent submission of the same body: its activity is the answer.
      if (principal.credential.kind === 'verificationToken') return orStored(credentialRefused(principal, outcome.state, record.createdAt));
      lifecycle.deps.onCredentialRefused?.(principal);
      throw credentialRefused(principal, outcome.state, record.createdAt);
    case 'guardFailed':
      throw plan.guards[outcome.index]!.error;
    case 'gateFailed':
      // A gate can also fail because a concurrent submission of the same body passed it first.
      return orStored(plan.gates[outcome.index]!.error(outcome.detail));
    case 'raced':
      return orStored(new Error('activity vanished after a fingerprint conflict'));
    case 'conflict':
      return orStored(concurrentChange('a value of this request was registered by a concurrent request meanwhile; submit again to learn which'));
    case 'authorityChanged':
      throw new Error('unreachable: a changed authority is decided again before settling');
  }
}

/** A vote on a locked waiting activity, as the statement writes it. */
export interface VoteOn {
  target: ActivityRecord;
  principal: Principal;
  now: Date;
}

/**
 * The vote's own guards, before the plan's: the voter (guard 0) and, when the decision counted them,
 * the other approvers (guard 1) are still users of the organization, held until the statement
 * commits: a removal that came first is seen, one that comes later waits for the vote.
 */
export function voteGuards(on: VoteOn, approverIds?: readonly string[]): Sql[] {
  const voterActive = usersActive(on.target.organizationId, [on.principal.userId]);
  return approverIds === undefined ? [voterActive] : [voterActive, usersActive(on.target.organizationId, [...approverIds])];
}

/** How many guards voteGuards puts before the plan's when the decision counted the approvers. */
export const VOTE_GUARDS = 2;

/** A vote's change of the activity, as votes.ts asks for it (the statement's guard on the status is added here). */
export type VoteChange = Omit<VoteWrite, 'onlyFrom'> & { status: ActivityStatus };

/**
 * Writes a vote and the change of status it makes, after checking the change is one of
 * transitions.ts; the store's update is guarded by the statuses that change may start from. The
 * activity as written, or the plan's check that failed (for the caller to fail the activity with).
 */
export async function writeVoteOn(
  lifecycle: Lifecycle,
  tx: Queryable,
  on: VoteOn,
  change: VoteChange,
  extra: Pick<VoteAnswer, 'queuesDelivery' | 'changesAuthority'> = {},
): Promise<VoteAnswer | Extract<VoteOutcome, { kind: 'guardFailed' | 'gateFailed' | 'notWaiting' }>> {
  const { target, principal, now } = on;
  const from = target.status as FromStatus;
  if (!isTransition(from, change.status)) throw new Error(`no transition of activity ${target.id} from ${from} to ${change.status}`);
  const updated = { ...target, status: change.status, updatedAt: change.updatedAt, ...(change.summary ? { summary: change.summary } : {}) };
  const outcome = await writeVote(tx, { ...change, onlyFrom: statusesChangingTo(change.status), rows: [...change.rows, ...activityEventRows(updated, from)] });
  if (outcome.kind === 'written') return { ...extra, activity: (await findActivity(tx, { organizationId: target.organizationId, id: target.id }))!, written: true };
  if (outcome.kind === 'credentialRefused') {
    lifecycle.deps.onCredentialRefused?.(principal);
    throw credentialRefused(principal, outcome.state, now);
  }
  if (outcome.kind === 'authorityChanged') throw new AuthorityChanged();
  if (outcome.kind === 'guardFailed' && outcome.index === 0) {
    throw notFound('USER_NOT_FOUND', `user ${principal.userId} was removed from organization ${target.organizationId}; its vote was not recorded`);
  }
  // Guard 1 is only in the writes whose decision counted the approvers.
  if (outcome.kind === 'guardFailed' && outcome.index === 1) throw new ApproverRemoved();
  return outcome;
}

/** writeVoteOn for a change that carries no plan: it is written, or a defect is thrown. */
export async function writeSettledVote(
  lifecycle: Lifecycle,
  tx: Queryable,
  on: VoteOn,
  change: VoteChange,
  extra: Pick<VoteAnswer, 'queuesDelivery'> = {},
): Promise<VoteAnswer> {
  const outcome = await writeVoteOn(lifecycle, tx, on, change, extra);
  if ('activity' in outcome) return outcome;
  throw new Error(`a vote on a locked waiting activity was not written (${outcome.kind})`);
}

/** The refusal a plan's failed check answers with. */
export function checkRefusal(plan: CompiledPlan, failed: { kind: 'guardFailed'; index: number } | { kind: 'gateFailed'; index: number; detail: unknown }, guardsBefore = 0): SignetError {
  return failed.kind === 'guardFailed' ? plan.guards[failed.index - guardsBefore]!.error : plan.gates[failed.index]!.error(failed.detail);
}

/** The result as stored: a bearer secret of the result is never written, "" takes its place (a field of a field: `a.b`). */
export function withoutSecrets(plan: Pick<ActivityPlan, 'result' | 'secretFields'>): object {
  if (!plan.secretFields?.length) return plan.result;
  const stored: Record<string, unknown> = { ...plan.result };
  for (const field of plan.secretFields) {
    const [outer, inner] = field.split('.') as [string, string | undefined];
    stored[outer] = inner === undefined ? '' : { ...(stored[outer] as object), [inner]: '' };
  }
  return stored;
}

/** The vote of a principal's stamp. */
export function newVote(principal: Principal, selection: string, evaluations: Decision['evaluations']): ProposedVote {
  return {
    id: randomUUID(),
    userId: principal.userId,
    selection,
    publicKey: principal.publicKey,
    signature: principal.signature,
    scheme: principal.scheme,
    authenticatorData: principal.webauthn?.authenticatorData ?? null,
    clientDataJson: principal.webauthn?.clientDataJson ?? null,
    ...principalCredential(principal),
    policyEvaluations: evaluations.map(({ policyId, outcome }) => ({ policyId, outcome })),
  };
}

/** The vote as the answer renders it (the user's tags are filled in from the statement). */
export function voteRecord(principal: Principal, vote: ProposedVote, now: Date): VoteRecord {
  // Every field written out: on the hot path, properties added after a spread cost a slow path each.
  return {
    id: vote.id,
    userId: vote.userId,
    selection: vote.selection,
    publicKey: vote.publicKey,
    signature: vote.signature,
    scheme: vote.scheme,
    authenticatorData: vote.authenticatorData,
    clientDataJson: vote.clientDataJson,
    credentialType: vote.credentialType,
    credentialId: vote.credentialId,
    webauthnCredentialId: vote.webauthnCredentialId,
    policyEvaluations: vote.policyEvaluations,
    userName: principal.userName,
    userEmail: principal.userEmail,
    userPhoneNumber: principal.userPhoneNumber,
    userCreatedAt: principal.userCreatedAt,
    userUpdatedAt: principal.userUpdatedAt,
    userTags: [],
    userRemoved: false,
    createdAt: now,
  };
}
