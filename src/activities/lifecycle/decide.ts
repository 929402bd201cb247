// The decision step of the lifecycle: who may do what, as the pipeline asks it: an organization's authority (its root quorum and compiled
// policies) kept in memory per version, the approvers of an activity as policies see them, the
// decision on an activity, and what a reader of a waiting activity may still do (canApprove,
// canReject). The decision itself is src/policy's; this file gives it its inputs.
import { SignetError, requestNotAuthorized } from '../../errors.ts';
import {
  compileExpression,
  decide,
  mayVote,
  paramsForPolicy,
  type Approver,
  type CredentialType,
  type Decision,
  type DecisionInput,
  type Effect,
  type Policy,
  type RootQuorum,
  type SigningBindings,
} from '../../policy/index.ts';
import type { ReadableSummary } from '../../readable/index.ts';
import { readAuthority, readApproverUser, type ApproverUser } from '../../store/authority.ts';
import type { StoredPolicy } from '../../store/policies.ts';
import type { Queryable } from '../../store/db.ts';
import type { ActivityRecord, VoteRecord } from '../../store/activities.ts';
import { READ_ONLY_SESSION, type Principal } from '../../auth/principal.ts';
import type { ActivityHandler, ActivityView } from '../handler.ts';
import { ACTIVITY_STATUS } from '../wire/status.ts';

/** An organization's root quorum and policies, as of one version of its authority. */
export interface Authority {
  readonly organizationId: string;
  readonly version: string;
  readonly rootQuorum: RootQuorum;
  readonly policies: readonly Policy[];
  /** Stored policies whose expressions no longer compile (written by an older grammar): a DENY among them denies. */
  readonly unreadable: readonly Pick<StoredPolicy, 'policyId' | 'policyName' | 'effect'>[];
  /**
   * Users as policies see them (tags, email, name), read once per version: a change of a user's tags,
   * email or name raises the version.
   */
  readonly users: Map<string, Promise<ApproverUser>>;
}

/** Organizations whose authority is remembered; the least recently used goes first. */
const LIMIT = 10_000;

/** Thrown when the organization's authority changed between a decision and its write: decide again. */
export class AuthorityChanged extends Error {
  override name = 'AuthorityChanged';
}

/** Thrown when a user whose approval a vote's decision counted was removed before the vote's statement: decide again. */
export class ApproverRemoved extends Error {
  override name = 'ApproverRemoved';
}

/**
 * Decisions made for one request at most, each after the organization's authority was found changed.
 * Changes of authority that arrive together commit one after the other (they lock the organization's
 * row), and each makes the others decide again: the last of n waits n rounds.
 */
export const MAX_DECISIONS = 25;

function compilePolicies(stored: readonly StoredPolicy[]): Pick<Authority, 'policies' | 'unreadable'> {
  const policies: Policy[] = [];
  const unreadable: StoredPolicy[] = [];
  for (const policy of stored) {
    const condition = policy.condition === '' ? undefined : compileExpression(policy.condition, 'condition');
    const consensus = policy.consensus === '' ? undefined : compileExpression(policy.consensus, 'consensus');
    if ((condition && !condition.ok) || (consensus && !consensus.ok)) {
      unreadable.push(policy);
      continue;
    }
    policies.push({
      policyId: policy.policyId,
      policyName: policy.policyName,
      effect: policy.effect as Effect,
      ...(condition?.ok ? { condition: condition.value } : {}),
      ...(consensus?.ok ? { consensus: consensus.value } : {}),
    });
  }
  return { policies, unreadable };
}

/**
 * Each organization's authority, read once and then kept until a statement finds that its version
 * changed (forget). Requests that arrive together for an organization share one read.
 */
export class Authorities {
  private readonly entries = new Map<string, Promise<Authority>>();

  of(db: Queryable, organizationId: string): Promise<Authority> {
    const known = this.entries.get(organizationId);
    if (known) {
      this.entries.delete(organizationId);
      this.entries.set(organizationId, known);
      return known;
    }
    const read = readAuthority(db, organizationId).then((record): Authority => {
      if (!record) throw new SignetError('ORGANIZATION_NOT_FOUND', `no organization ${organizationId}`);
      return { organizationId, version: record.version, rootQuorum: record.rootQuorum, ...compilePolicies(record.policies), users: new Map() };
    });
    // A failed read is not remembered.
    read.catch(() => {
      if (this.entries.get(organizationId) === read) this.entries.delete(organizationId);
    });
    if (this.entries.size >= LIMIT) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(organizationId, read);
    return read;
  }

  /** Drops what is remembered of the organization (a statement found its authority changed). */
  forget(organizationId: string): void {
    this.entries.delete(organizationId);
  }

  /** The principal as an approver: the user with its tags, email and name, and the credential it stamped with. */
  async approverOf(db: Queryable, authority: Authority, principal: Principal): Promise<Approver> {
    // The user matters only to policies: with none, or for a root user who decides alone, it is not
    // read (the credential's lookup names it, maybe from before a change of its email or name).
    const { threshold, userIds } = authority.rootQuorum;
    const decidesAlone = threshold <= 1 && userIds.includes(principal.userId);
    const user = authority.policies.length === 0 || decidesAlone ? undefined : await this.userOf(db, authority, principal.userId);
    const credential = principalCredential(principal);
    return {
      user: { id: principal.userId, tags: user?.tags ?? [], email: (user ? user.email : principal.userEmail) ?? '', name: user?.name ?? principal.userName },
      credentials: [
        {
          id: credential.credentialId,
          user_id: principal.userId,
          type: credential.credentialType as CredentialType,
          public_key: principal.publicKey,
          credential_id: credential.webauthnCredentialId ?? '',
        },
      ],
    };
  }

  private userOf(db: Queryable, authority: Authority, userId: string): Promise<ApproverUser> {
    let user = authority.users.get(userId);
    if (!user) {
      // Bounded like the organizations: an organization of many users keeps the most recent ones.
      if (authority.users.size >= LIMIT) authority.users.clear();
      user = readApproverUser(db, userId);
      user.catch(() => authority.users.delete(userId));
      authority.users.set(userId, user);
    }
    return user;
  }
}

/** The principal's credential as a vote records it and policies see it. */
export function principalCredential(principal: Principal): { credentialType: CredentialType; credentialId: string; webauthnCredentialId: string | null } {
  const use = principal.credential;
  const credentialType = principal.credentialType;
  // The HTTP layer refuses an activity or a vote sent with a read-only session (READ_ONLY_SESSION) before it gets here.
  if (use.kind === 'readOnlySession' || credentialType === READ_ONLY_SESSION) throw new Error('a read-only session submits and votes on nothing');
  switch (use.kind) {
    case 'apiKey':
      return { credentialType, credentialId: use.apiKeyId, webauthnCredentialId: null };
    case 'authenticator':
      return { credentialType: 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR', credentialId: use.authenticatorId, webauthnCredentialId: principal.credentialId ?? null };
    case 'verificationToken':
      return { credentialType, credentialId: use.tokenId, webauthnCredentialId: null };
  }
}

/** A stored vote's voter as an approver (a vote written before credentials were recorded is read from its scheme). */
function approverOfVote(vote: VoteRecord): Approver {
  const webauthn = vote.scheme === 'SIGNATURE_SCHEME_WEBAUTHN';
  return {
    user: { id: vote.userId, tags: vote.userTags, email: vote.userEmail ?? '', name: vote.userName },
    credentials: [
      {
        id: vote.credentialId ?? '',
        user_id: vote.userId,
        type: (vote.credentialType ?? (webauthn ? 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR' : 'CREDENTIAL_TYPE_API_KEY_P256')) as CredentialType,
        public_key: vote.publicKey,
        credential_id: vote.webauthnCredentialId ?? '',
      },
    ],
  };
}

/** What an activity is, as a decision reads it. */
export interface DecidedActivity {
  type: string;
  /** The intent (the handler's parameters, defaults filled). */
  intent: unknown;
  /** Decided by the root quorum alone (policies not consulted). */
  rootQuorumOnly?: boolean;
  /** What a signing activity's conditions read (eth, solana, wallet, …: lifecycle/view.ts); absent when not viewed. */
  signing?: SigningBindings;
  /** What it signs in words, for those asked to approve it. */
  summary?: ReadableSummary;
}

/**
 * The activity of `handler` as a decision reads it, with its view when it was asked for one
 * (view.ts): the one place ActivityHandler.rootQuorumOnly is read.
 */
export function decidedOf(handler: Pick<ActivityHandler, 'rootQuorumOnly'> | undefined, type: string, intent: unknown, view?: ActivityView): DecidedActivity {
  return {
    type,
    intent,
    rootQuorumOnly: handler?.rootQuorumOnly === true,
    ...(view?.signing ? { signing: view.signing } : {}),
    ...(view?.summary ? { summary: view.summary } : {}),
  };
}

/** What the policy module decides with; the submitter is the first approver. */
function contextOf(authority: Authority, activity: DecidedActivity, approvers: readonly Approver[]): DecisionInput {
  let params: ReturnType<typeof paramsForPolicy> | undefined;
  return {
    rootQuorum: authority.rootQuorum,
    policies: activity.rootQuorumOnly ? [] : authority.policies,
    // Made when a policy is read, not when the root quorum decides alone.
    activity: {
      type: activity.type,
      get params() {
        return (params ??= paramsForPolicy(activity.intent));
      },
    },
    ...(activity.signing ? { signing: activity.signing } : {}),
    approvers,
    submitter: approvers[0]!,
  };
}

/**
 * The decision on an activity with these approvers (the submitter first). A stored DENY policy that
 * can no longer be read denies, as one that cannot be evaluated does.
 */
export function decideActivity(authority: Authority, activity: DecidedActivity, approvers: readonly Approver[]): Decision {
  const decision = decide(contextOf(authority, activity, approvers));
  if (decision.outcome === 'OUTCOME_ALLOW' && decision.by === 'ROOT_QUORUM') return decision;
  const unreadableDeny = activity.rootQuorumOnly ? undefined : authority.unreadable.find((policy) => policy.effect !== 'EFFECT_ALLOW');
  if (unreadableDeny) {
    return {
      outcome: 'OUTCOME_DENY_EXPLICIT',
      by: 'POLICY',
      policyId: unreadableDeny.policyId,
      policyName: unreadableDeny.policyName,
      evaluations: [...decision.evaluations, { policyId: unreadableDeny.policyId, outcome: 'OUTCOME_ERROR', error: 'the stored expression no longer compiles' }],
    };
  }
  return decision;
}

/** Whether the approver may vote on the activity (a root quorum member; or counted by an ALLOW policy's consensus whose condition holds). */
export function mayVoteOn(authority: Authority, activity: DecidedActivity, approvers: readonly Approver[], voter: Approver): boolean {
  return mayVote(voter, contextOf(authority, activity, approvers));
}

/** The 403 for a decision that denies, saying why. */
export function refusal(decision: Decision, activity: { type: string; organizationId: string; userId: string }, authority: Authority): SignetError {
  if (decision.outcome === 'OUTCOME_DENY_EXPLICIT' && 'policyId' in decision) {
    return requestNotAuthorized(
      `${activity.type} is denied by policy ${decision.policyId} ("${decision.policyName}") of organization ${activity.organizationId} ` +
        '(explicit deny); nothing was stored',
    );
  }
  const { threshold, userIds } = authority.rootQuorum;
  return requestNotAuthorized(
    `${activity.type} is not allowed for user ${activity.userId}: the root quorum has not approved it (${threshold} of its ` +
      `${userIds.length} users must) and no policy of organization ${activity.organizationId} allows it (implicit deny); ` +
      'nothing was stored. Submit it as a root quorum user, or add a policy that allows it',
  );
}

/**
 * The approvers of a stored activity: its approving voters, oldest first (the submitter's vote is the
 * first), but for users removed since, whose approval no longer counts. Call submitterRemoved first:
 * an activity whose submitter was removed is not decided again.
 */
export function approversOf(record: ActivityRecord): Approver[] {
  return record.votes.filter((vote) => vote.selection === 'VOTE_SELECTION_APPROVED' && !vote.userRemoved).map(approverOfVote);
}

/** The user who submitted the stored activity, when it has been removed since: the activity can no longer be allowed. */
export function submitterRemoved(record: ActivityRecord): string | undefined {
  const first = record.votes[0];
  return first?.userRemoved ? first.userId : undefined;
}

/** The stored activity's intent (under its intent key). */
export function intentOf(record: ActivityRecord): unknown {
  const wrapped = JSON.parse(record.intentJson) as Record<string, unknown>;
  return Object.values(wrapped)[0];
}

/** What the reader of an activity may still do with it. */
export interface Access {
  canApprove: boolean;
  canReject: boolean;
}

export const NO_ACCESS: Access = Object.freeze({ canApprove: false, canReject: false });

/**
 * For a reader: an activity that waits can be approved by a user who may vote and has not, and
 * rejected by the same, and by its submitter (who withdraws it) while it waits. One whose submitter
 * was removed can no longer be allowed: it can only be rejected.
 */
export function accessOf(authority: Authority, record: ActivityRecord, reader: Approver, handler?: Pick<ActivityHandler, 'rootQuorumOnly'>, view?: ActivityView): Access {
  if (record.status !== ACTIVITY_STATUS.CONSENSUS_NEEDED) return NO_ACCESS;
  const voted = record.votes.find((vote) => vote.userId === reader.user.id);
  const submitter = record.votes[0]?.userId === reader.user.id;
  const activity = decidedOf(handler, record.type, intentOf(record), view);
  const may = voted === undefined && mayVoteOn(authority, activity, approversOf(record), reader);
  return {
    canApprove: may && submitterRemoved(record) === undefined,
    canReject: may || (submitter && voted?.selection === 'VOTE_SELECTION_APPROVED'),
  };
}
