// A dry run (evaluate_policies): the decision a hypothetical activity would get from its organization's
// root quorum and policies as they are now, made by the lifecycle's own steps (intake's parameter
// schema, the handler's prepare and view, decidedOf, decideActivity, mayVoteOn), with users of the
// organization named as its submitter and its approvers. Nothing is stored, sent, queued or signed:
// no activity, no vote, no email, no webhook, no rate window; execute is never called.
import { apiKeyCredentialType, type Principal } from '../../auth/principal.ts';
import { credentialRefused, invalidField, notFound } from '../../errors.ts';
import type { Approver, Decision, Outcome } from '../../policy/index.ts';
import type { ReadableSummary } from '../../readable/index.ts';
import { findUsersFor, listUsersFor, type UserWithCredentials } from '../../store/users.ts';
import type { CredentialState } from '../../store/credentials.ts';
import { changedSince, type Lifecycle } from './context.ts';
import { decideActivity, decidedOf, mayVoteOn, type Authority } from './decide.ts';
import { handlersOfType, handlerTaking, intake } from './intake.ts';
import { prepare } from './prepare.ts';
import { viewOf } from './view.ts';

/** Approvers a dry run may name besides its submitter. */
export const DRY_RUN_MAX_APPROVERS = 100;
/** Users read, oldest first, to find who could still approve: an organization of more has the rest unnamed. */
export const DRY_RUN_USERS_SCANNED = 1000;
/** Credentials of each kind (API keys, passkeys) a named or scanned user is counted with. */
const CREDENTIALS_READ = 10;

/** What a dry run is asked: a hypothetical activity, who submits it (default: the caller's user) and who approved it. */
export interface DryRunRequest {
  organizationId: string;
  activity: { type: string; parameters: Record<string, unknown> };
  userId?: string | undefined;
  approverIds?: readonly string[] | undefined;
}

/** What the decision would be, what each policy said, and who could still approve. */
export interface DryRunAnswer {
  outcome: Outcome;
  policyEvaluations: Array<{ policyId: string; policyName: string; outcome: Outcome; error?: string; position?: number }>;
  couldBeApprovedBy: string[];
  /** What a signing activity signs, in words, when it was viewed (view.ts). */
  summary?: ReadableSummary;
}

/**
 * The decision on `request.activity` in its organization, as if `request.userId` (default: the
 * caller's user) submitted it and `request.approverIds` approved it; a 400 naming the field for an
 * unknown type or bad parameters, the handler's own refusal from its prepare step, a 404 naming a
 * user who is not of the organization.
 */
export async function dryRun(lifecycle: Lifecycle, principal: Principal, request: DryRunRequest): Promise<DryRunAnswer> {
  const { db, handlers, config } = lifecycle.deps;
  const { organizationId, activity } = request;
  const now = lifecycle.now();

  // Intake: the handler of the type, and the intent its own schema makes of the parameters.
  const handler = handlerTaking(handlersOfType(handlers, activity.type), activity.parameters);
  if (!handler) throw invalidField('activity.type', `unknown activity type "${activity.type}": give the type an endpoint of /public/v1/submit takes`);
  const { intent } = intake(handler, { parameters: activity.parameters }, 'activity.parameters');

  // Who: the submitter first, then the approvers, each a user of the organization.
  const submitterId = submitterOf(principal, request);
  const approverIds = distinctApprovers(request.approverIds ?? [], submitterId);
  const callerSubmits = submitterId === principal.userId && principal.organizationId === organizationId.toLowerCase();
  const named = granted(
    principal,
    now,
    await findUsersFor(db, principal.credential, { organizationId, userIds: callerSubmits ? approverIds : [submitterId, ...approverIds], now, credentialsLimit: CREDENTIALS_READ }),
  );
  const byId = new Map(named.map((user) => [user.id, user]));
  const userOf = (userId: string, field: string): Approver => {
    const user = byId.get(userId);
    if (!user) throw notFound('USER_NOT_FOUND', `${field}: no user ${userId} in organization ${organizationId} (or it was removed)`);
    return approverOfUser(user);
  };
  const namedSubmitter = callerSubmits ? undefined : userOf(submitterId, 'userId');
  const namedApprovers = approverIds.map((id, i) => userOf(id, `approverIds[${i}]`));

  // Prepare: the handler reads what its intent names (the account a signature is made with), and may refuse.
  const prepareContext = { organizationId, principal, now, db, config };
  const preparation = await prepare(handler, prepareContext, intent);
  if (preparation.kind === 'refused') throw preparation.error;

  // Decide, over the organization's authority as it is now (read again when another process changed it).
  const authority = await liveAuthority(lifecycle, principal, organizationId);
  const submitter = namedSubmitter ?? (await lifecycle.authorities.approverOf(db, authority, principal));
  const approvers = [submitter, ...namedApprovers];
  // What policies read of it beyond its parameters (a signature's eth.tx, solana.tx, wallet, …), when they may read it.
  const view = await viewOf(handler, prepareContext, intent, preparation, authority);
  const decided = decidedOf(handler, activity.type, intent, view);
  const decision = decideActivity(authority, decided, approvers);

  let couldBeApprovedBy: string[] = [];
  if (decision.outcome === 'OUTCOME_REQUIRES_CONSENSUS') {
    const counted = new Set(approvers.map((approver) => approver.user.id));
    const read = await listUsersFor(db, principal.credential, { organizationId, now, limit: DRY_RUN_USERS_SCANNED, credentialsLimit: CREDENTIALS_READ });
    couldBeApprovedBy = granted(principal, now, read)
      .filter((user) => !counted.has(user.id))
      .filter((user) => mayVoteOn(authority, decided, approvers, approverOfUser(user)))
      .map((user) => user.id);
  }
  return { outcome: decision.outcome, policyEvaluations: evaluationsOf(decision, authority), couldBeApprovedBy, ...(view?.summary ? { summary: view.summary } : {}) };
}

/** The submitter's id: the request's userId, else the caller's user (a parent's credential must name a user of the sub-organization). */
function submitterOf(principal: Principal, request: DryRunRequest): string {
  if (request.userId !== undefined) return request.userId.toLowerCase();
  if (principal.organizationId !== request.organizationId.toLowerCase()) {
    throw invalidField('userId', `required when the credential is of another organization than ${request.organizationId}: name the user of that organization who would submit the activity`);
  }
  return principal.userId;
}

/** The approvers' ids, each once and none the submitter (whose approval is counted already), or a 400 naming the one at fault. */
function distinctApprovers(ids: readonly string[], submitterId: string): string[] {
  const seen = new Set<string>();
  return ids.map((raw, i) => {
    const id = raw.toLowerCase();
    if (id === submitterId) throw invalidField(`approverIds[${i}]`, `${raw} is the submitter, whose approval is counted already`);
    if (seen.has(id)) throw invalidField(`approverIds[${i}]`, `${raw} is listed twice: each approver approves once`);
    seen.add(id);
    return id;
  });
}

/** The organization's authority as of now: the remembered one, unless another process changed it since (then read again). */
async function liveAuthority(lifecycle: Lifecycle, principal: Principal, organizationId: string): Promise<Authority> {
  const { db } = lifecycle.deps;
  const remembered = await lifecycle.authorities.of(db, organizationId);
  return (await changedSince(lifecycle, remembered, principal, db)) ? lifecycle.authorities.of(db, organizationId) : remembered;
}

/** The users a read found, or the 401 when its statement refused the credential. */
function granted(principal: Principal, now: Date, read: { refused?: CredentialState; users?: UserWithCredentials[] }): UserWithCredentials[] {
  if (read.refused) throw credentialRefused(principal, read.refused, now);
  return read.users ?? [];
}

/** A user as policies see an approver: its tags, email and name, with every credential it could stamp with. */
function approverOfUser(user: UserWithCredentials): Approver {
  return {
    user: { id: user.id, tags: user.userTags, email: user.email ?? '', name: user.userName },
    credentials: [
      ...user.apiKeys.map((key) => ({ id: key.id, user_id: user.id, type: apiKeyCredentialType(key.kind), public_key: key.publicKey, credential_id: '' })),
      ...user.authenticators.map((passkey) => ({
        id: passkey.id,
        user_id: user.id,
        type: 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR' as const,
        public_key: passkey.publicKey,
        credential_id: passkey.credentialId,
      })),
    ],
  };
}

/** The decision's evaluations, each named (a stored policy that no longer compiles is named too). */
function evaluationsOf(decision: Decision, authority: Authority): DryRunAnswer['policyEvaluations'] {
  const names = new Map([...authority.policies, ...authority.unreadable].map((policy) => [policy.policyId, policy.policyName]));
  return decision.evaluations.map((evaluation) => ({
    policyId: evaluation.policyId,
    policyName: names.get(evaluation.policyId) ?? '',
    outcome: evaluation.outcome,
    ...(evaluation.error !== undefined ? { error: evaluation.error } : {}),
    ...(evaluation.position !== undefined ? { position: evaluation.position } : {}),
  }));
}
