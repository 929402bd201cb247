// The authorization decision for an activity, a pure function of the organization's root quorum and
// policies, the activity and who approved it; and who may still vote on it.
import { activityKind, activityResource } from './activityResources.ts';
import type { CompiledExpression } from './compile.ts';
import { evaluate, stepBudget, type StepBudget } from './evaluate.ts';
import type { ExpressionError } from './failure.ts';
import type { Bindings, PolicyActivity, PolicyValue, SigningBindings } from './keywords.ts';
import { countsVoter, type Candidate } from './voters.ts';

export type Approver = Candidate;

export interface RootQuorum {
  readonly threshold: number;
  readonly userIds: readonly string[];
}

export type Effect = 'EFFECT_ALLOW' | 'EFFECT_DENY';

export interface Policy {
  readonly policyId: string;
  readonly policyName: string;
  readonly effect: Effect;
  /** Absent: the policy is about every activity. */
  readonly condition?: CompiledExpression;
  /** Absent: any approvers will do. */
  readonly consensus?: CompiledExpression;
}

export interface DecisionContext {
  readonly rootQuorum: RootQuorum;
  readonly policies: readonly Policy[];
  /** `params` is paramsForPolicy(intent). */
  readonly activity: { readonly type: string; readonly params: { readonly [field: string]: PolicyValue } };
  /** What an activity that signs lets its conditions read (eth, solana, wallet, …); absent for the others. */
  readonly signing?: SigningBindings;
  /** Everyone whose approval counts so far, the submitter included, each with the credentials they stamped with. */
  readonly approvers: readonly Approver[];
}

export interface DecisionInput extends DecisionContext {
  readonly submitter: Approver;
}

/** What a decision or one policy's evaluation says, as the wire names it. */
export const OUTCOMES = [
  'OUTCOME_ALLOW',
  'OUTCOME_DENY_EXPLICIT',
  'OUTCOME_DENY_IMPLICIT',
  'OUTCOME_REQUIRES_CONSENSUS',
  'OUTCOME_REJECTED',
  'OUTCOME_ERROR',
] as const;

export type Outcome = (typeof OUTCOMES)[number];

/**
 * What one policy whose condition held (or failed) says on its own: ALLOW or DENY_EXPLICIT when it
 * applies, REQUIRES_CONSENSUS when its consensus does not hold yet but counts the submitter,
 * DENY_IMPLICIT when its consensus does not hold, ERROR when an expression failed.
 * (OUTCOME_REJECTED is the engine's, for an activity its voters reject; decide never returns it.)
 */
export interface PolicyEvaluation {
  readonly policyId: string;
  readonly outcome: Outcome;
  /** For OUTCOME_ERROR: the expression ('condition' or 'consensus') and its error message. */
  readonly error?: string;
  /** For OUTCOME_ERROR: the 0-based character offset, in that expression, of the sub-expression whose evaluation failed. */
  readonly position?: number;
}

export type Decision =
  | { readonly outcome: 'OUTCOME_ALLOW'; readonly by: 'ROOT_QUORUM'; readonly evaluations: readonly PolicyEvaluation[] }
  | {
      readonly outcome: 'OUTCOME_ALLOW' | 'OUTCOME_DENY_EXPLICIT';
      readonly by: 'POLICY';
      readonly policyId: string;
      readonly policyName: string;
      readonly evaluations: readonly PolicyEvaluation[];
    }
  | { readonly outcome: 'OUTCOME_DENY_IMPLICIT' | 'OUTCOME_REQUIRES_CONSENSUS'; readonly evaluations: readonly PolicyEvaluation[] };

function conditionBindings(activity: DecisionContext['activity'], signing: SigningBindings = {}): Bindings {
  const resource = activityResource(activity.type);
  const value: PolicyActivity = { type: activity.type, kind: activityKind(activity.type), ...resource, params: activity.params };
  return { ...signing, activity: value };
}

function consensusBindings(approvers: readonly Approver[]): Bindings {
  return { approvers: approvers.map((approver) => approver.user), credentials: approvers.flatMap((approver) => approver.credentials) };
}

function rootApprovals(rootQuorum: RootQuorum, approvers: readonly Approver[]): number {
  const roots = new Set(rootQuorum.userIds);
  return new Set(approvers.map((approver) => approver.user.id).filter((id) => roots.has(id))).size;
}

/** A threshold below 1 (or not a whole number) would let no one decide for everyone: it never passes. */
const validThreshold = (threshold: number) => Number.isSafeInteger(threshold) && threshold >= 1;

type Verdict =
  | { readonly kind: 'omitted' }
  | { readonly kind: 'error'; readonly error: string; readonly position: number }
  | { readonly kind: 'applies' }
  | { readonly kind: 'consensus-pending'; readonly consensus: CompiledExpression };

/** An expression's failure as a verdict: its message, and where it failed as a 0-based offset (the error's position is 1-based). */
const failed = (expression: 'condition' | 'consensus', error: ExpressionError): Verdict => ({ kind: 'error', error: `${expression} ${error.message}`, position: error.position - 1 });

function judge(policy: Policy, conditionScope: Bindings, consensusScope: Bindings, budget: StepBudget): Verdict {
  if (policy.condition !== undefined) {
    const condition = evaluate(policy.condition, conditionScope, { budget });
    if (!condition.ok) return failed('condition', condition.error);
    if (!condition.value) return { kind: 'omitted' };
  }
  if (policy.consensus === undefined) return { kind: 'applies' };
  const consensus = evaluate(policy.consensus, consensusScope, { budget });
  if (!consensus.ok) return failed('consensus', consensus.error);
  return consensus.value ? { kind: 'applies' } : { kind: 'consensus-pending', consensus: policy.consensus };
}

/**
 * (1) At least `threshold` root-quorum users among the approvers: allowed, policies not consulted.
 * (2) Else a DENY policy that applies, or fails to evaluate: denied, naming it. (3) Else an ALLOW
 * policy that applies: allowed, naming it. (4) Else consensus needed when more approvers could
 * allow it (a root-quorum user approved, or an ALLOW policy's consensus counts the submitter),
 * denied otherwise. A policy applies when its condition and its consensus hold.
 */
export function decide(input: DecisionInput): Decision {
  const { rootQuorum, policies, activity, approvers, submitter } = input;
  const roots = rootApprovals(rootQuorum, approvers);
  if (validThreshold(rootQuorum.threshold) && roots >= rootQuorum.threshold) {
    return { outcome: 'OUTCOME_ALLOW', by: 'ROOT_QUORUM', evaluations: [] };
  }
  const conditionScope = conditionBindings(activity, input.signing);
  const consensusScope = consensusBindings(approvers);
  const evaluations: PolicyEvaluation[] = [];
  // Every expression of the decision takes its steps from one budget: a hundred policies cannot
  // take a hundred times one expression's. Past it, what is left fails, and fails closed.
  const budget = stepBudget();
  let deniedBy: Policy | undefined;
  let allowedBy: Policy | undefined;
  let consensusNeeded = roots > 0 && validThreshold(rootQuorum.threshold);
  for (const policy of policies) {
    const verdict = judge(policy, conditionScope, consensusScope, budget);
    // Anything but EFFECT_ALLOW is treated as a DENY: an effect the module does not know must not allow.
    const allow = policy.effect === 'EFFECT_ALLOW';
    const deny = !allow;
    switch (verdict.kind) {
      case 'omitted':
        continue;
      case 'error':
        evaluations.push({ policyId: policy.policyId, outcome: 'OUTCOME_ERROR', error: verdict.error, position: verdict.position });
        // Fail closed: a DENY that cannot be evaluated denies; an ALLOW that cannot be evaluated allows nothing.
        if (deny) deniedBy ??= policy;
        continue;
      case 'applies':
        evaluations.push({ policyId: policy.policyId, outcome: allow ? 'OUTCOME_ALLOW' : 'OUTCOME_DENY_EXPLICIT' });
        if (allow) allowedBy ??= policy;
        if (deny) deniedBy ??= policy;
        continue;
      case 'consensus-pending': {
        const counted = allow && countsVoter(verdict.consensus, submitter, consensusScope, budget);
        evaluations.push({ policyId: policy.policyId, outcome: counted ? 'OUTCOME_REQUIRES_CONSENSUS' : 'OUTCOME_DENY_IMPLICIT' });
        consensusNeeded ||= counted;
        continue;
      }
    }
  }
  if (deniedBy !== undefined) {
    return { outcome: 'OUTCOME_DENY_EXPLICIT', by: 'POLICY', policyId: deniedBy.policyId, policyName: deniedBy.policyName, evaluations };
  }
  if (allowedBy !== undefined) {
    return { outcome: 'OUTCOME_ALLOW', by: 'POLICY', policyId: allowedBy.policyId, policyName: allowedBy.policyName, evaluations };
  }
  return { outcome: consensusNeeded ? 'OUTCOME_REQUIRES_CONSENSUS' : 'OUTCOME_DENY_IMPLICIT', evaluations };
}

/**
 * Whether `user` may take part in approving the activity: a root-quorum user always; otherwise a user
 * counted by the consensus of an ALLOW policy whose condition holds for the activity.
 */
export function mayVote(user: Approver, context: DecisionContext): boolean {
  if (context.rootQuorum.userIds.includes(user.user.id)) return true;
  const conditionScope = conditionBindings(context.activity, context.signing);
  const consensusScope = consensusBindings(context.approvers);
  const budget = stepBudget();
  return context.policies.some((policy) => {
    if (policy.effect !== 'EFFECT_ALLOW' || policy.consensus === undefined) return false;
    if (policy.condition !== undefined) {
      const condition = evaluate(policy.condition, conditionScope, { budget });
      if (!condition.ok || !condition.value) return false;
    }
    return countsVoter(policy.consensus, user, consensusScope, budget);
  });
}
