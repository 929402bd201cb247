// The activity engine: everything every activity shares. An activity's life, in submit's order:
// intake (the envelope and the handler's parameter schema make the intent), the decision (the
// organization's root quorum and policies over the approvers: allowed now, waiting for more
// approvals, or refused), execute (the handler's effect, planned when the activity is allowed), and
// the write of the activity, its vote, its rows and the checks they depend on (the credential and the
// authority decided under among them) in one statement; then the stored activity, rendered for its
// reader. A vote (approve_activity, reject_activity) decides a waiting activity again and, when it is
// allowed, executes it then, once. Liveness and idempotency come before. The stamp is verified before
// (auth/), over the raw bytes.
import { hash, randomUUID } from 'node:crypto';
import { concurrentChange, credentialRefused, invalidField, notFound, permissionDenied, requestNotAuthorized, SignetError, unauthenticated, unavailable } from '../../errors.ts';
import type { Approver, Decision } from '../../policy/index.ts';
import { findActivity, lockActivity, writeVote, type ActivityRecord, type VoteRecord, type VoteWrite, type WriteOutcome } from '../../store/activities.ts';
import { ActivityWriter } from '../../store/activityWriter.ts';
import type { Queryable } from '../../store/db.ts';
import { authorityVersionFor } from '../../store/authority.ts';
import { lockAuthority } from '../../store/authorityVersion.ts';
import { findOrganizationPlace } from '../../store/organizations.ts';
import { run, type Sql } from '../../store/sql.ts';
import type { NewVote } from '../../store/votes.ts';
import { usersActive } from '../../store/users.ts';
import { createAppProof } from './appProofs.ts';
import { approvalRequests, newWaitingActivity, reportSkippedApprovals, waitingActivityOf } from './approvalRequests.ts';
import { envelopeSchema, type Envelope } from '../wire/envelope.ts';
import type { Principal } from '../../auth/principal.ts';
import type { ActivityHandler, ActivityPlan, ExecutionContext } from '../handler.ts';
import {
  accessOf,
  approversOf,
  Authorities,
  AuthorityChanged,
  decideActivity,
  intentOf,
  mayVoteOn,
  NO_ACCESS,
  principalCredential,
  refusal,
  submitterRemoved,
  type Access,
  type Authority,
} from './decide.ts';
import { activityResponseJson } from '../wire/render.ts';
import type { ServiceKeys } from './serviceKeys.ts';
import { ACTIVITY_STATUS, type ActivityStatus } from '../wire/status.ts';
import { activityEventRows } from './webhookEvents.ts';
import { schemaError } from '../../wire/violations.ts';
import { systemClock, type Clock } from '../../wire/clock.ts';
import type { LifecycleDependencies, Submission, SubmissionOutcome } from './model.ts';

/**
 * Intake, pure: the App Proofs flag and the intent, which the handler's parameter schema makes of the
 * envelope's parameters (strict, defaults filled), or a 400 naming what is wrong.
 */
function intake(handler: ActivityHandler, envelope: Envelope): { intent: unknown; generateAppProofs: boolean } {
  // The ecosystem's server-side and browser SDKs send the App Proofs flag inside `parameters`.
  const { generateAppProofs: flagged, ...parameters } = envelope.parameters;
  if (flagged !== undefined && typeof flagged !== 'boolean') throw invalidField('parameters.generateAppProofs', 'must be true or false');
  const parsed = handler.parameters.safeParse(parameters, { reportInput: true });
  if (!parsed.success) throw schemaError(parsed.error, 'parameters', 'invalid parameters');
  return { intent: parsed.data, generateAppProofs: envelope.generateAppProofs === true || flagged === true };
}

export class ActivityEngine {
  private readonly now: Clock;
  private readonly writer: ActivityWriter;
  /** Each organization's root quorum and policies, remembered per version of its authority. */
  readonly authorities = new Authorities();

  constructor(private readonly deps: LifecycleDependencies) {
    this.now = deps.now ?? systemClock;
    this.writer = new ActivityWriter(deps.db);
  }

  /** The service's signing keys, whose public halves the well-known document publishes. */
  get keys(): ServiceKeys {
    return this.deps.keys;
  }

  /**
   * The envelope of a parsed body for an endpoint, and the handler among the endpoint's that takes
   * it (by `type`, then by the shape of `parameters`), or a 400 naming what is wrong.
   */
  envelope(handlers: readonly ActivityHandler[], document: Record<string, unknown>): { envelope: Envelope; handler: ActivityHandler } {
    const parsed = envelopeSchema.safeParse(document, { reportInput: true });
    if (!parsed.success) throw schemaError(parsed.error, '', 'invalid activity envelope');
    const envelope = parsed.data;
    const typed = handlers.filter((h) => h.activityType === envelope.type || h.otherActivityTypes?.includes(envelope.type));
    if (typed.length === 0) {
      const accepted = [...new Set(handlers.flatMap((h) => [h.activityType, ...(h.otherActivityTypes ?? [])]))];
      throw invalidField('type', `this endpoint accepts ${accepted.map((t) => `"${t}"`).join(' or ')}, got "${envelope.type}"`);
    }
    const handler = typed.find((h) => h.takes?.(envelope.parameters) ?? true) ?? typed[0]!;
    return { envelope, handler };
  }

  /**
   * Creates the activity of an authenticated submission, or answers with the stored one when the same
   * body was submitted before (how clients poll, whatever its age). A vote (approve_activity,
   * reject_activity) is recorded on the activity it names instead.
   */
  async submit(handler: ActivityHandler, submission: Submission): Promise<SubmissionOutcome> {
    const { db, config } = this.deps;
    const { envelope, principal } = submission;
    const { timestampMs } = envelope;
    const organizationId = organizationOf(submission);
    const now = this.now();
    const fingerprint = `sha256:${hash('sha256', submission.body, 'hex')}`;
    const storedOr = async (error: unknown): Promise<SubmissionOutcome> => {
      // A refusal of a body submitted before is not the answer: its stored activity is.
      const activity = await findActivity(db, { organizationId, fingerprint });
      if (activity) return this.answer(activity, principal, false);
      throw error;
    };

    // An attested stamp's verification token is used up by the login it made, so every later
    // statement refuses it: the same body again, stamped again by the token's key (a retry whose
    // answer was lost), is answered here with that login, as a retry stamped with an API key is.
    const { credential } = principal;
    if (credential.kind === 'verificationToken') {
      const stored = await findActivity(db, { organizationId, fingerprint });
      if (stored?.votes.some((vote) => vote.credentialId === credential.tokenId)) return this.answer(stored, principal, false);
    }

    // Liveness: a stamp too far from the server clock is refused (unless the body was stored before).
    const skew = Math.abs(now.getTime() - Number(timestampMs));
    if (skew > config.timestampToleranceMs) {
      return storedOr(
        unauthenticated(
          `timestampMs is ${skew} ms away from the server clock (${now.getTime()}); requests must be stamped ` +
            `within ±${config.timestampToleranceMs} ms: check the client's clock and stamp a fresh request`,
          'stale_timestamp',
        ),
      );
    }

    // The parent's reach: in a sub-organization, a credential of its parent submits only the
    // activities of an end user's login, decided by the parent's own root quorum and policies.
    const fromParent = principal.organizationId !== organizationId.toLowerCase();
    if (fromParent) await this.parentMaySubmit(handler, envelope);

    // 1. Intake, pure: the envelope and the handler's parameter schema make the intent.
    const { intent, generateAppProofs } = intake(handler, envelope);
    if (handler.votes) return this.vote(handler.votes, submission, (intent as { fingerprint: string }).fingerprint, now);

    for (let attempt = 1; ; attempt++) {
      if (attempt > MAX_DECISIONS) {
        throw unavailable("the organization's root quorum or policies kept changing while the activity was decided; nothing was stored, submit again", 'AUTHORITY_CHANGING');
      }
      // 2. The decision, with the submitter as the one approver so far, by the authority of the
      // submitter's organization (the parent's, when it reaches into a sub-organization).
      const authority = await this.authorities.of(db, principal.organizationId);
      const submitter = await this.authorities.approverOf(db, authority, principal);
      const decided = { type: envelope.type, intent, rootQuorumOnly: handler.rootQuorumOnly === true };
      const decision = decideActivity(authority, decided, [submitter]);
      if (decision.outcome === 'OUTCOME_DENY_EXPLICIT' || decision.outcome === 'OUTCOME_DENY_IMPLICIT') {
        if (await this.changedSince(authority, principal, db)) continue;
        return storedOr(refusal(decision, { type: envelope.type, organizationId: authority.organizationId, userId: principal.userId }, authority));
      }
      const allowed = decision.outcome === 'OUTCOME_ALLOW';
      if (!allowed && handler.neverWaits) {
        if (await this.changedSince(authority, principal, db)) continue;
        return storedOr(
          requestNotAuthorized(
            `${envelope.type} needs more approvals, and it cannot wait for them: it is done for its submitter at once or not at all. ` +
              "Submit it as a user the organization's root quorum or a policy allows to do it alone",
          ),
        );
      }
      if (!allowed && handler.redact && handler.redact(envelope.parameters) !== envelope.parameters) {
        if (await this.changedSince(authority, principal, db)) continue;
        // The secret such an activity carries is not kept, so it could never execute later.
        return storedOr(
          requestNotAuthorized(
            `${envelope.type} needs more approvals, and it cannot wait for them: the secret it carries is not kept. ` +
              'Submit it with a credential whose user may do it alone',
          ),
        );
      }

      // 3. Execute: the handler plans its effect, now that the activity is allowed. One that waits for
      // approvals has no effect yet: it is planned when it is allowed.
      const activityId = randomUUID();
      let plan: ActivityPlan;
      if (allowed) {
        try {
          plan = await handler.execute(this.context(activityId, organizationId, principal, now, db), intent);
        } catch (error) {
          if (error instanceof SignetError && error.status < 500) return storedOr(error);
          throw error;
        }
      } else {
        // No effect yet; who may vote on it is emailed, by rows of its statement.
        const activity = newWaitingActivity(handler, { id: activityId, organizationId, type: envelope.type, createdAt: now, intent, submitter: principal });
        plan = { result: {}, ...(await approvalRequests(this.deps, { authority, decided, approvers: [submitter], activity }, now)) };
      }

      // 4. The write: the activity with its status, its submitter's vote, and the handler's rows and
      // checks, in one statement; then the answer its outcome gives (settle).
      const outcome = await this.writeNew(handler, submission, {
        activityId,
        fingerprint,
        now,
        plan,
        status: allowed ? ACTIVITY_STATUS.COMPLETED : ACTIVITY_STATUS.CONSENSUS_NEEDED,
        generateAppProofs: allowed && generateAppProofs,
        evaluations: decision.evaluations,
        authority,
        intent,
      });
      if (outcome.kind === 'authorityChanged') {
        // Another process changed the quorum, a policy or a tag since this one read them: read again.
        this.authorities.forget(authority.organizationId);
        continue;
      }
      if (!allowed && plan.queuesDelivery && outcome.outcome.kind === 'created') await reportSkippedApprovals({ db, log: this.deps.log }, { id: activityId, organizationId }, now);
      return this.settle(plan, principal, outcome, storedOr);
    }
  }

  /**
   * Before a refusal is answered: true when the organization's authority changed since `authority`
   * was read (it is forgotten; decide again); a 401 when the principal's credential may no longer be
   * used. A refusal writes nothing, so no statement would otherwise check either.
   */
  private async changedSince(authority: Authority, principal: Principal, db: Queryable): Promise<boolean> {
    const current = await authorityVersionFor(db, principal.credential, authority.organizationId);
    if (current.refused) {
      this.deps.onCredentialRefused?.(principal);
      throw credentialRefused(principal, current.refused, this.now());
    }
    if (current.version === authority.version) return false;
    this.authorities.forget(authority.organizationId);
    return true;
  }

  /**
   * A 403 unless a credential of the organization's parent may submit this activity in it (the
   * handler says so: the auth activities), and a 404 when the sub-organization was deleted.
   */
  private async parentMaySubmit(handler: ActivityHandler, envelope: Envelope): Promise<void> {
    if (!handler.parentMaySubmit) {
      throw permissionDenied(
        'PARENT_MAY_NOT_SUBMIT',
        `${envelope.type} in organization ${envelope.organizationId} needs a credential of that organization: a credential of its ` +
          'parent organization reads a sub-organization and submits only the login activities there (init_otp, init_otp_auth, ' +
          'verify_otp, otp_login, otp_auth); stamp with a credential of the sub-organization',
      );
    }
    const place = await findOrganizationPlace(this.deps.db, envelope.organizationId);
    if (place?.deletedAt) throw notFound('ORGANIZATION_DELETED', `organization ${envelope.organizationId} was deleted; its activities stay readable, nothing more can be submitted there`);
  }

  private context(activityId: string, organizationId: string, principal: Principal, now: Date, db: Queryable): ExecutionContext {
    const { config, secret, keys } = this.deps;
    return { activityId, organizationId, principal, now, config, secret, db, keys };
  }

  /** Writes a new activity (allowed now, or waiting), and says what happened. */
  private async writeNew(
    handler: ActivityHandler,
    submission: Submission,
    fields: {
      activityId: string;
      fingerprint: string;
      now: Date;
      plan: ActivityPlan;
      status: ActivityStatus;
      generateAppProofs: boolean;
      evaluations: Decision['evaluations'];
      authority: Authority;
      intent: unknown;
    },
  ): Promise<{ kind: 'authorityChanged' } | { kind: 'written'; record: ActivityRecord; outcome: WriteOutcome }> {
    const { envelope, principal } = submission;
    const { timestampMs } = envelope;
    const organizationId = organizationOf(submission);
    const { activityId, fingerprint, now, plan } = fields;
    const storedResult = withoutSecrets(plan);
    const proofsOf = async (result: object) =>
      fields.generateAppProofs
        ? [await createAppProof(this.deps.keys, { id: activityId, type: handler.activityType, organizationId, fingerprint, timestampMs, result })]
        : undefined;
    // The stored proof binds the result as stored, which every later read of the activity shows.
    const appProofs = await proofsOf(storedResult);
    // A secret the body carries in clear is not kept: the stored body (the votes' message) and the
    // intent have it replaced; the fingerprint, over the bytes as signed, still checks the signature.
    const redacted = handler.redact;
    const rawBody = redacted
      ? JSON.stringify({ ...submission.document, parameters: redacted(envelope.parameters) })
      : submission.body.toString('utf8');
    const storedIntent = redacted ? redacted(fields.intent as Record<string, unknown>) : fields.intent;
    const vote = newVote(principal, 'VOTE_SELECTION_APPROVED', now, fields.evaluations);
    const record: ActivityRecord = {
      id: activityId,
      organizationId,
      type: envelope.type,
      status: fields.status,
      fingerprint,
      timestampMs,
      rawBody,
      intentJson: `{${JSON.stringify(handler.intentKey)}:${JSON.stringify(storedIntent)}}`,
      result: fields.status === ACTIVITY_STATUS.COMPLETED ? { [handler.resultKey]: storedResult } : {},
      createdAt: now,
      updatedAt: now,
      votes: [voteRecord(principal, vote, now)],
      ...(appProofs ? { appProofs } : {}),
    };
    const write = () =>
      this.writer.write({
        activity: { ...record, stampHeader: submission.stampHeader },
        vote,
        credential: principal.credential,
        authorityOrganizationId: fields.authority.organizationId,
        authorityVersion: fields.authority.version,
        ...(plan.changesAuthority ? { bumpsAuthority: true } : {}),
        guards: (plan.guards ?? []).map((guard) => guard.condition),
        gates: (plan.gates ?? []).map((gate) => gate.gate),
        rows: [...(plan.rows ?? []), ...activityEventRows(record)],
        locks: locksOf(plan, organizationId),
      });
    let outcome = await write();
    // A concurrent request took a unique value after the checks read, or deadlocked with this one:
    // written again, the checks see its write and refuse with the field it is in.
    if (outcome.kind === 'conflict') outcome = await write();
    if (outcome.kind === 'authorityChanged') return outcome;
    if (outcome.kind === 'created' && plan.changesAuthority) this.authorities.forget(organizationId);
    // Only the request that made the activity is answered with its secrets, and with a proof of them.
    if (outcome.kind === 'created' && storedResult !== plan.result) {
      const answerProofs = await proofsOf(plan.result);
      return {
        kind: 'written',
        outcome,
        record: { ...record, result: { [handler.resultKey]: plan.result }, ...(answerProofs ? { appProofs: answerProofs } : {}) },
      };
    }
    return { kind: 'written', record, outcome };
  }

  private async settle(
    plan: ActivityPlan,
    principal: Principal,
    written: { record: ActivityRecord; outcome: WriteOutcome },
    storedOr: (error: unknown) => Promise<SubmissionOutcome>,
  ): Promise<SubmissionOutcome> {
    const { record, outcome } = written;
    switch (outcome.kind) {
      case 'created':
        if (plan.queuesDelivery) this.deps.onQueued?.();
        // The submitter's tags as the statement read them.
        return this.answer({ ...record, votes: record.votes.map((vote, i) => (i === 0 ? { ...vote, userTags: outcome.userTags } : vote)) }, principal, true);
      case 'existing':
        return this.answer(outcome.activity, principal, false);
      case 'credentialRefused':
        // A verification token used by a concurrent submission of the same body: its activity is the answer.
        if (principal.credential.kind === 'verificationToken') return storedOr(credentialRefused(principal, outcome.state, record.createdAt));
        this.deps.onCredentialRefused?.(principal);
        throw credentialRefused(principal, outcome.state, record.createdAt);
      case 'guardFailed':
        throw plan.guards![outcome.index]!.error;
      case 'gateFailed':
        // A gate can also fail because a concurrent submission of the same body passed it first.
        return storedOr(plan.gates![outcome.index]!.error(outcome.detail));
      case 'raced':
        return storedOr(new Error('activity vanished after a fingerprint conflict'));
      case 'conflict':
        return storedOr(concurrentChange('a value of this request was registered by a concurrent request meanwhile; submit again to learn which'));
      case 'authorityChanged':
        throw new Error('unreachable: a changed authority is decided again before settling');
    }
  }

  /**
   * A vote on the organization's activity with `fingerprint`, in one transaction that holds the
   * activity's row: the votes on one activity are decided one after the other, in every process, and
   * the status changes only from waiting, so an activity executes once. Answers with that activity.
   */
  private async vote(selection: NonNullable<ActivityHandler['votes']>, submission: Submission, fingerprint: string, now: Date): Promise<SubmissionOutcome> {
    const { db } = this.deps;
    const { principal, envelope } = submission;
    const { organizationId } = envelope;
    const body = submission.body.toString('utf8');
    for (let attempt = 1; ; attempt++) {
      const authority = await this.authorities.of(db, organizationId);
      const voter = await this.authorities.approverOf(db, authority, principal);
      try {
        const outcome = await db.transaction((tx) => this.voteIn(tx, { selection, submission, body, fingerprint, now, authority, voter }));
        if (outcome.queuesDelivery) this.deps.onQueued?.();
        if (outcome.changesAuthority) this.authorities.forget(organizationId);
        return this.answer(outcome.activity, principal, outcome.written);
      } catch (error) {
        // The authority changed, or an approver the decision counted was removed, before the vote's statement: decide again.
        if (!(error instanceof AuthorityChanged || error instanceof ApproverRemoved)) throw error;
        if (error instanceof AuthorityChanged) this.authorities.forget(organizationId);
        if (attempt >= MAX_DECISIONS) {
          throw unavailable("the organization's root quorum or policies kept changing while the vote was decided; nothing was stored, vote again", 'AUTHORITY_CHANGING');
        }
      }
    }
  }

  private async voteIn(
    tx: Queryable,
    v: {
      selection: NonNullable<ActivityHandler['votes']>;
      submission: Submission;
      body: string;
      fingerprint: string;
      now: Date;
      authority: Authority;
      voter: Approver;
    },
  ): Promise<{ activity: ActivityRecord; written: boolean; queuesDelivery?: boolean; changesAuthority?: boolean }> {
    const { principal, envelope } = v.submission;
    const { organizationId } = envelope;
    const target = await lockActivity(tx, { organizationId, fingerprint: v.fingerprint });
    if (!target) throw notFound('ACTIVITY_NOT_FOUND', `no activity with fingerprint ${v.fingerprint} in organization ${organizationId}`);
    const handler = this.deps.handlers.find((h) => h.activityType === target.type || h.otherActivityTypes?.includes(target.type));
    if (!handler) throw new Error(`no handler for the stored activity type ${target.type}`);

    const own = target.votes.find((vote) => vote.userId === principal.userId);
    const submitter = target.votes[0]?.userId === principal.userId;
    // The same vote again answers as the first did: with the activity as it is now.
    if (target.votes.some((vote) => vote.userId === principal.userId && vote.message === v.body)) return { activity: target, written: false };
    // Its submitter may withdraw a waiting activity; anyone else votes once.
    const withdrawal = submitter && v.selection === 'VOTE_SELECTION_REJECTED' && target.votes.filter((vote) => vote.userId === principal.userId).length === 1;
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
    const decided = { type: target.type, intent: intentOf(target), rootQuorumOnly: handler.rootQuorumOnly === true };
    // A removed user is not an approver: its approval no longer counts, and its own activity is never allowed.
    const approvers = approversOf(target);
    const removedSubmitter = submitterRemoved(target);
    if (!withdrawal && !mayVoteOn(v.authority, decided, approvers, v.voter)) {
      if (await this.changedSince(v.authority, principal, tx)) throw new AuthorityChanged();
      throw requestNotAuthorized(
        `user ${principal.userId} may not vote on activity ${target.id}: only the root quorum's users, and users whom the consensus of ` +
          'a policy allowing this activity counts, take part in approving it',
      );
    }
    // The statement checks that the voter (guard 0) and, when the decision counted them, the other
    // approvers (guard 1) are still users of the organization, holding them until it commits: a
    // removal that came first is seen, one that comes later waits for the vote.
    const voterActive = usersActive(organizationId, [principal.userId]);
    const approversActive = usersActive(organizationId, approvers.map((approver) => approver.user.id));
    const base = {
      activityId: target.id,
      organizationId,
      from: ACTIVITY_STATUS.CONSENSUS_NEEDED,
      updatedAt: v.now,
      credential: principal.credential,
      authorityVersion: v.authority.version,
      guards: [voterActive],
      gates: [],
      rows: [],
    };
    /** A write whose decision counted the approvers; `guards` (the plan's) come after theirs. */
    const decidedWrite = (guards: Sql[] = []) => ({ ...base, guards: [voterActive, approversActive, ...guards] });
    /** How many guards come before the plan's. */
    const OWN_GUARDS = 2;
    const vote = (evaluations: Decision['evaluations']) => ({ ...newVote(principal, v.selection, v.now, evaluations), organizationId, createdAt: v.now, message: v.body });
    const finish = async (write: VoteWrite, extra: { queuesDelivery?: boolean; changesAuthority?: boolean } = {}) => {
      const change = { ...target, status: write.status, updatedAt: write.updatedAt };
      const outcome = await writeVote(tx, { ...write, rows: [...write.rows, ...activityEventRows(change, write.from)] });
      if (outcome.kind === 'written') return { ...extra, activity: (await findActivity(tx, { organizationId, id: target.id }))!, written: true };
      if (outcome.kind === 'credentialRefused') {
        this.deps.onCredentialRefused?.(principal);
        throw credentialRefused(principal, outcome.state, v.now);
      }
      if (outcome.kind === 'authorityChanged') throw new AuthorityChanged();
      if (outcome.kind === 'guardFailed' && outcome.index === 0) {
        throw notFound('USER_NOT_FOUND', `user ${principal.userId} was removed from organization ${organizationId}; its vote was not recorded`);
      }
      // Guard 1 is only in the writes of decidedWrite.
      if (outcome.kind === 'guardFailed' && outcome.index === 1) throw new ApproverRemoved();
      return outcome;
    };
    const settled = async (write: VoteWrite, extra: { queuesDelivery?: boolean } = {}) => {
      const outcome = await finish(write, extra);
      if ('activity' in outcome) return outcome;
      throw new Error(`a vote on a locked waiting activity was not written (${outcome.kind})`);
    };

    if (v.selection === 'VOTE_SELECTION_REJECTED') {
      // One rejection is final. The evaluations name the policies about the activity (with its
      // submitter removed, read with the voter as the one approver).
      const evaluations = decideActivity(v.authority, decided, removedSubmitter === undefined ? approvers : [v.voter]).evaluations.map((e) => ({
        policyId: e.policyId,
        outcome: 'OUTCOME_REJECTED' as const,
      }));
      return settled({ ...base, status: ACTIVITY_STATUS.REJECTED, vote: vote(evaluations) });
    }

    if (removedSubmitter !== undefined) {
      // Nothing can allow it any more: no one approves on behalf of a removed user.
      const error = requestNotAuthorized(
        `${target.type} can no longer be allowed: user ${removedSubmitter}, who submitted it, was removed from organization ${organizationId}, ` +
          'and an activity of a removed user is never executed; nothing was executed',
      );
      return settled({ ...base, status: ACTIVITY_STATUS.FAILED, failure: { code: error.code, message: error.message }, vote: vote([]) });
    }

    const decision = decideActivity(v.authority, decided, [...approvers, v.voter]);
    if (decision.outcome === 'OUTCOME_REQUIRES_CONSENSUS') {
      // Still waiting: who may vote on it now and was not emailed yet is, by rows of the vote's statement.
      const activity = waitingActivityOf(target, decided.intent, principal.userId);
      const requests = await approvalRequests({ db: tx, config: this.deps.config }, { authority: v.authority, decided, approvers: [...approvers, v.voter], activity }, v.now);
      for (const lock of requests.locks ?? []) await run(tx, lock);
      const still = await settled({ ...decidedWrite(), status: ACTIVITY_STATUS.CONSENSUS_NEEDED, vote: vote(decision.evaluations), rows: requests.rows }, { queuesDelivery: requests.queuesDelivery });
      if (requests.queuesDelivery) await reportSkippedApprovals({ db: tx, log: this.deps.log }, { id: target.id, organizationId }, v.now);
      return still;
    }
    const failed = (error: SignetError) =>
      settled({ ...decidedWrite(), status: ACTIVITY_STATUS.FAILED, failure: { code: error.code, message: error.message }, vote: vote(decision.evaluations) });
    if (decision.outcome !== 'OUTCOME_ALLOW') {
      // More approvers made a DENY policy apply: the activity will never be allowed.
      return failed(refusal(decision, { type: target.type, organizationId, userId: principal.userId }, v.authority));
    }

    // Allowed: the effect is planned now, at the approval that allows it, by the approver's credential.
    let plan: ActivityPlan;
    try {
      plan = await handler.execute(this.context(target.id, organizationId, principal, v.now, tx), decided.intent);
    } catch (error) {
      if (error instanceof SignetError && error.status < 500) return failed(error);
      throw error;
    }
    for (const lock of locksOf(plan, organizationId)) await run(tx, lock);
    const storedResult = withoutSecrets(plan);
    const document = JSON.parse(target.rawBody) as { generateAppProofs?: unknown; parameters?: { generateAppProofs?: unknown } };
    const proofs =
      document.generateAppProofs === true || document.parameters?.generateAppProofs === true
        ? [
            await createAppProof(this.deps.keys, {
              id: target.id,
              type: handler.activityType,
              organizationId,
              fingerprint: target.fingerprint,
              timestampMs: target.timestampMs,
              result: storedResult,
            }),
          ]
        : undefined;
    const outcome = await finish(
      {
        ...decidedWrite((plan.guards ?? []).map((guard) => guard.condition)),
        status: ACTIVITY_STATUS.COMPLETED,
        result: { [handler.resultKey]: storedResult },
        ...(proofs ? { appProofs: proofs } : {}),
        vote: vote(decision.evaluations),
        gates: (plan.gates ?? []).map((gate) => gate.gate),
        rows: plan.rows ?? [],
        ...(plan.changesAuthority ? { bumpsAuthority: true } : {}),
      },
      { ...(plan.queuesDelivery ? { queuesDelivery: true } : {}), ...(plan.changesAuthority ? { changesAuthority: true } : {}) },
    );
    // The approval that executed it is answered with its secrets, as the submitter of one allowed at once is.
    if ('activity' in outcome) return storedResult === plan.result ? outcome : { ...outcome, activity: { ...outcome.activity, result: { [handler.resultKey]: plan.result } } };
    if (outcome.kind === 'guardFailed') return failed(plan.guards![outcome.index - OWN_GUARDS]!.error);
    if (outcome.kind === 'gateFailed') return failed(plan.gates![outcome.index]!.error(outcome.detail));
    throw new Error(`a vote on a locked waiting activity was not written (${outcome.kind})`);
  }

  /** The answer: the activity as its reader may still approve or reject it. */
  private async answer(record: ActivityRecord, reader: Principal, created: boolean): Promise<SubmissionOutcome> {
    const access = await this.accessFor(record, reader);
    return { json: activityResponseJson(record, access), activityId: record.id, organizationId: record.organizationId, created };
  }

  /** What `reader` may still do with the activity (canApprove, canReject): only a waiting one is read for it. */
  async accessFor(record: ActivityRecord, reader: Principal): Promise<Access> {
    // Only the organization's own users approve: a parent's credential reads a sub-organization's activities, nothing more.
    if (record.status !== ACTIVITY_STATUS.CONSENSUS_NEEDED || reader.organizationId !== record.organizationId) return NO_ACCESS;
    const authority = await this.authorities.of(this.deps.db, record.organizationId);
    const handler = this.deps.handlers.find((h) => h.activityType === record.type || h.otherActivityTypes?.includes(record.type));
    return accessOf(authority, record, await this.authorities.approverOf(this.deps.db, authority, reader), handler?.rootQuorumOnly === true);
  }
}

/** Thrown when a user whose approval a vote's decision counted was removed before the vote's statement: decide again. */
class ApproverRemoved extends Error {
  override name = 'ApproverRemoved';
}

/**
 * Decisions made for one request at most, each after the organization's authority was found changed.
 * Changes of authority that arrive together commit one after the other (they lock the organization's
 * row), and each makes the others decide again: the last of n waits n rounds.
 */
const MAX_DECISIONS = 25;

/** The organization a submission's activity is of: the body's, unless the stamp acts in another (Principal.actsIn). */
function organizationOf(submission: Submission): string {
  return submission.principal.actsIn ?? submission.envelope.organizationId;
}

/**
 * The plan's locks, and for a change of the organization's authority the lock on its row first:
 * such changes run one after the other (concurrent ones would each count, and check names against,
 * what was there before the others).
 */
function locksOf(plan: ActivityPlan, organizationId: string): Sql[] {
  return plan.changesAuthority ? [lockAuthority(organizationId), ...(plan.locks ?? [])] : (plan.locks ?? []);
}

/** The result as stored: a bearer secret of the result is never written, "" takes its place (a field of a field: `a.b`). */
function withoutSecrets(plan: ActivityPlan): object {
  if (!plan.secretFields?.length) return plan.result;
  const stored: Record<string, unknown> = { ...plan.result };
  for (const field of plan.secretFields) {
    const [outer, inner] = field.split('.') as [string, string | undefined];
    stored[outer] = inner === undefined ? '' : { ...(stored[outer] as object), [inner]: '' };
  }
  return stored;
}

/** The vote of a principal's stamp. */
function newVote(principal: Principal, selection: string, now: Date, evaluations: Decision['evaluations']): Omit<NewVote, 'organizationId' | 'createdAt'> {
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
function voteRecord(principal: Principal, vote: Omit<NewVote, 'organizationId' | 'createdAt'>, now: Date): VoteRecord {
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
