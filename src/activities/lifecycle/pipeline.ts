// An activity's lifecycle, one pipeline, in submit's order: intake (intake.ts: the envelope and the
// handler's parameter schema make the intent), prepare (prepare.ts: the handler's optional check of
// the intent against what it names in the store, a refusal before anything is decided), decide
// (decide.ts: the organization's root quorum and policies over the approvers: allowed now, waiting
// for more approvals, or refused), execute (execute.ts: the handler's effect, planned when the
// activity is allowed), and commit (commit.ts: the activity, its vote, its rows and the checks they
// depend on written in one statement; then the stored activity, rendered for its reader). Liveness
// and idempotency come before. The stamp was
// verified before (auth/), over the raw bytes, by the caller. A vote (votes.ts) decides a waiting
// activity again and, when it is allowed, executes it then, once, by the same execute and commit.
import { randomUUID } from 'node:crypto';
import type { Principal } from '../../auth/principal.ts';
import type { Config } from '../../config.ts';
import { requestNotAuthorized, unauthenticated, unavailable, type SignetError } from '../../errors.ts';
import type { Approver, Decision } from '../../policy/index.ts';
import { findActivity, type ActivityRecord } from '../../store/activities.ts';
import type { ActivityHandler, PrepareContext } from '../handler.ts';
import type { Envelope } from '../wire/envelope.ts';
import { ACTIVITY_STATUS } from '../wire/status.ts';
import { approvalRequests, newWaitingActivity, reportSkippedApprovals } from './approvalRequests.ts';
import { answer, settle, storedOr, writeNew } from './commit.ts';
import type { OidcVerifier } from '../../auth/oidc/verifyIdToken.ts';
import { accessFor, changedSince, lifecycleOf, parentMaySubmit, type Lifecycle } from './context.ts';
import { decideActivity, decidedOf, MAX_DECISIONS, refusal, type Access, type Authority, type DecidedActivity } from './decide.ts';
import { dryRun, type DryRunAnswer, type DryRunRequest } from './dryRun.ts';
import { execute, waiting } from './execute.ts';
import { fingerprintOf, intake, organizationOf, storedFormOf, type Declared } from './intake.ts';
import type { Executed, LifecycleDependencies, StoredForm, Submission, SubmissionOutcome } from './model.ts';
import { prepare, type Preparation } from './prepare.ts';
import { viewOf } from './view.ts';
import type { ServiceKeys } from './serviceKeys.ts';
import { vote, type VoteRoute } from './votes.ts';

export class ActivityPipeline {
  private readonly lifecycle: Lifecycle;

  constructor(deps: LifecycleDependencies) {
    this.lifecycle = lifecycleOf(deps);
  }

  /** The service's signing keys, whose public halves the well-known document publishes. */
  get keys(): ServiceKeys {
    return this.lifecycle.deps.keys;
  }

  /** The verifier of OpenID Connect id tokens, its issuers' keys cached (list_suborgs' OIDC_TOKEN filter reads it too). */
  get oidc(): OidcVerifier {
    return this.lifecycle.oidc;
  }

  /**
   * Creates the activity of an authenticated submission, or answers with the stored one when the same
   * body was submitted before (how clients poll, whatever its age).
   */
  async submit(handler: ActivityHandler, submission: Submission): Promise<SubmissionOutcome> {
    const lifecycle = this.lifecycle;
    const { envelope, principal } = submission;
    const now = lifecycle.now();
    const body = bodyOf(submission);
    const orStored = (error: unknown) => storedOr(lifecycle, body, error);
    const early = await admit(lifecycle, handler, submission, now);
    if (early) return early;

    // 1. Intake, pure: the intent, and the activity as it is stored.
    const { intent, generateAppProofs } = intake(handler, envelope);
    const stored = storedFormOf(handler, submission, intent);
    // 2. Prepare: the handler checks its intent against what it reads (the account a signature names),
    // so that what could never execute is refused now, not at the approval that would allow it.
    const prepareContext = { organizationId: body.organizationId, principal, now, db: lifecycle.deps.db, config: lifecycle.deps.config };
    const preparation = await prepare(handler, prepareContext, intent);
    if (preparation.kind === 'refused') return orStored(preparation.error);

    for (let attempt = 1; ; attempt++) {
      if (attempt > MAX_DECISIONS) {
        throw unavailable("the organization's root quorum or policies kept changing while the activity was decided; nothing was stored, submit again", 'AUTHORITY_CHANGING');
      }
      // 3. Decide, with the submitter as the one approver so far.
      const decided = await decideSubmission(lifecycle, handler, submission, { intent, stored, preparation, prepareContext });
      if (decided.kind === 'again') continue;
      if (decided.kind === 'refused') return orStored(decided.error);
      const { authority, decision } = decided;
      const allowed = decided.kind === 'allowed';

      // 4. Execute, now that the activity is allowed. One that waits for approvals has no effect yet
      // (it is executed when a vote allows it): who may vote on it is emailed, by rows of its statement.
      const activityId = randomUUID();
      let executed: Executed;
      if (allowed) {
        const execution = await execute(lifecycle, handler, { activityId, ...body, timestampMs: envelope.timestampMs, intent, generateAppProofs, now, db: lifecycle.deps.db, preparation });
        if (execution.kind === 'refused') return orStored(execution.error);
        executed = execution.executed;
      } else {
        const activity = newWaitingActivity(handler, { id: activityId, organizationId: body.organizationId, type: envelope.type, createdAt: now, intent, submitter: principal });
        executed = waiting(await approvalRequests(lifecycle.deps, { authority, decided: decided.activity, approvers: [decided.submitter], activity }, now));
      }

      // 5. Commit: the activity with its status, its submitter's vote, and the plan's rows and checks,
      // in one statement; then the answer its outcome gives.
      const status = allowed ? ACTIVITY_STATUS.COMPLETED : ACTIVITY_STATUS.CONSENSUS_NEEDED;
      const { summary } = decided.activity;
      const written = await writeNew(lifecycle, handler, submission, {
        activityId,
        fingerprint: body.fingerprint,
        now,
        status,
        executed,
        stored,
        evaluations: decision.evaluations,
        authority,
        ...(summary ? { summary } : {}),
      });
      if (written.kind === 'authorityChanged') {
        // Another process changed the quorum, a policy or a tag since this one read them: read again.
        lifecycle.authorities.forget(authority.organizationId);
        continue;
      }
      if (!allowed && executed.plan.queuesDelivery && written.outcome.kind === 'created') {
        await reportSkippedApprovals({ db: lifecycle.deps.db, log: lifecycle.deps.log }, { id: activityId, organizationId: body.organizationId }, now);
      }
      return settle(lifecycle, executed.plan, principal, written);
    }
  }

  /** Records a vote (approve_activity, reject_activity) on the activity it names, and answers with that activity. */
  async vote(route: VoteRoute, submission: Submission): Promise<SubmissionOutcome> {
    const now = this.lifecycle.now();
    const early = await admit(this.lifecycle, route, submission, now);
    if (early) return early;
    const { intent } = intake(route, submission.envelope);
    return vote(this.lifecycle, route.selection, submission, (intent as { fingerprint: string }).fingerprint, now);
  }

  /** What `reader` may still do with the activity (canApprove, canReject), for the queries that read it. */
  accessFor(record: ActivityRecord, reader: Principal): Promise<Access> {
    return accessFor(this.lifecycle, record, reader);
  }

  /** The decision a hypothetical activity would get now, nothing stored (evaluate_policies). */
  dryRun(request: DryRunRequest, caller: Principal): Promise<DryRunAnswer> {
    return dryRun(this.lifecycle, caller, request);
  }
}

/** A submission's body as the store knows it: its organization and fingerprint, and who submitted it. */
function bodyOf(submission: Submission): { organizationId: string; fingerprint: string; principal: Principal } {
  return { organizationId: organizationOf(submission), fingerprint: fingerprintOf(submission.body), principal: submission.principal };
}

/**
 * What comes before anything is decided, for an activity and a vote alike: a retried attested login
 * is answered with its activity, a stale stamp refused (unless the body was stored before), and the
 * parent's reach checked: in a sub-organization, a credential of its parent submits only the
 * activities of an end user's login, decided by the parent's own root quorum and policies.
 */
async function admit(lifecycle: Lifecycle, declared: Declared, submission: Submission, now: Date): Promise<SubmissionOutcome | undefined> {
  const { envelope, principal } = submission;
  const body = bodyOf(submission);
  const retried = await retriedAttestedLogin(lifecycle, body);
  if (retried) return answer(lifecycle, retried, principal, false);
  const stale = staleStamp(lifecycle.deps.config, envelope, now);
  if (stale) return storedOr(lifecycle, body, stale);
  if (principal.organizationId !== body.organizationId.toLowerCase()) await parentMaySubmit(lifecycle, declared, envelope);
  return undefined;
}

/**
 * An attested stamp's verification token is used up by the login it made, so every later statement
 * refuses it: the same body again, stamped again by the token's key (a retry whose answer was lost),
 * is answered with that login, as a retry stamped with an API key is.
 */
async function retriedAttestedLogin(lifecycle: Lifecycle, body: { organizationId: string; fingerprint: string; principal: Principal }): Promise<ActivityRecord | undefined> {
  const { credential } = body.principal;
  if (credential.kind !== 'verificationToken') return undefined;
  const stored = await findActivity(lifecycle.deps.db, { organizationId: body.organizationId, fingerprint: body.fingerprint });
  return stored?.votes.some((vote) => vote.credentialId === credential.tokenId) ? stored : undefined;
}

/** Liveness: the 401 for a stamp too far from the server clock (answered only when the body was not stored before). */
function staleStamp(config: Config, envelope: Envelope, now: Date): SignetError | undefined {
  const skew = Math.abs(now.getTime() - Number(envelope.timestampMs));
  if (skew <= config.timestampToleranceMs) return undefined;
  return unauthenticated(
    `timestampMs is ${skew} ms away from the server clock (${now.getTime()}); requests must be stamped ` +
      `within ±${config.timestampToleranceMs} ms: check the client's clock and stamp a fresh request`,
    'stale_timestamp',
  );
}

/** A submission's decision: allowed now, waiting for approvals, refused, or to be made again (the authority changed). */
type SubmissionDecision =
  | { kind: 'again' }
  | { kind: 'refused'; error: SignetError }
  | { kind: 'allowed' | 'waiting'; authority: Authority; submitter: Approver; activity: DecidedActivity; decision: Decision };

/**
 * The decision on a submission, by the authority of the submitter's organization (the parent's, when
 * it reaches into a sub-organization), with the submitter as the one approver. Before a refusal is
 * answered, a changed authority makes it decided again. The one place ActivityHandler.neverWaits is read.
 */
async function decideSubmission(
  lifecycle: Lifecycle,
  handler: ActivityHandler,
  submission: Submission,
  { intent, stored, preparation, prepareContext }: { intent: unknown; stored: StoredForm; preparation: Preparation; prepareContext: PrepareContext },
): Promise<SubmissionDecision> {
  const { db } = lifecycle.deps;
  const { envelope, principal } = submission;
  const authority = await lifecycle.authorities.of(db, principal.organizationId);
  const submitter = await lifecycle.authorities.approverOf(db, authority, principal);
  // What policies and approvers read of it beyond its parameters, when they may read it.
  const view = await viewOf(handler, prepareContext, intent, preparation, authority);
  const activity = decidedOf(handler, envelope.type, intent, view);
  const decision = decideActivity(authority, activity, [submitter]);
  const refused = async (error: SignetError): Promise<SubmissionDecision> => ((await changedSince(lifecycle, authority, principal, db)) ? { kind: 'again' } : { kind: 'refused', error });
  if (decision.outcome === 'OUTCOME_DENY_EXPLICIT' || decision.outcome === 'OUTCOME_DENY_IMPLICIT') {
    return refused(refusal(decision, { type: envelope.type, organizationId: authority.organizationId, userId: principal.userId }, authority));
  }
  if (decision.outcome === 'OUTCOME_ALLOW') return { kind: 'allowed', authority, submitter, activity, decision };
  if (handler.neverWaits) {
    return refused(
      requestNotAuthorized(
        `${envelope.type} needs more approvals, and it cannot wait for them: it is done for its submitter at once or not at all. ` +
          "Submit it as a user the organization's root quorum or a policy allows to do it alone",
      ),
    );
  }
  if (stored.carriesSecret) {
    // The secret such an activity carries is not kept, so it could never execute later.
    return refused(
      requestNotAuthorized(
        `${envelope.type} needs more approvals, and it cannot wait for them: the secret it carries is not kept. ` +
          'Submit it with a credential whose user may do it alone',
      ),
    );
  }
  return { kind: 'waiting', authority, submitter, activity, decision };
}
