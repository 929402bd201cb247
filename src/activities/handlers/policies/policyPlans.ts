// The fields of a policy as create_policy, create_policies and update_policy take them, and the plans
// that create and delete policies (one or a hundred): a policy's expressions are parsed and
// type-checked here, when written, so a policy the organization stores always compiles.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { invalidArgument, invalidField, notFound } from '../../../errors.ts';
import { compileExpression, MAX_EXPRESSION_LENGTH, type ExpressionKind } from '../../../policy/index.ts';
import { changeAuthority, check, write } from '../../../store/effects.ts';
import type { NewPolicy } from '../../../store/policies.ts';
import type { ActivityPlan, ExecutionContext } from '../../handler.ts';
import { NOT_STORABLE, objectExpected, storable, trimmedName } from '../../wire/parameters.ts';

/** Policies an organization may have: each is evaluated for every activity its root quorum does not approve alone. */
export const MAX_POLICIES = 100;
/** The same bound as a tag's name: long enough to say what the policy is for. */
export const MAX_POLICY_NAME_LENGTH = 256;
export const MAX_POLICY_NOTES_LENGTH = 4096;

export const EFFECTS = ['EFFECT_ALLOW', 'EFFECT_DENY'] as const;

/** Text PostgreSQL stores as given: it takes neither NUL nor an unpaired surrogate. */

export const policyName = () =>
  trimmedName(MAX_POLICY_NAME_LENGTH).describe(`Name of the policy, 1 to ${MAX_POLICY_NAME_LENGTH} characters once spaces around it are trimmed; unique in the organization`);

export const effect = () =>
  z.enum(EFFECTS, { error: (issue) => (issue.input === undefined ? undefined : `must be EFFECT_ALLOW or EFFECT_DENY, got ${JSON.stringify(issue.input)}`) });

const EXPRESSIONS: Record<ExpressionKind, { what: string; describe: string }> = {
  condition: {
    what: 'a condition',
    describe: 'The activities the policy is about, an expression over `activity` (type, kind, resource, action, params); "" or absent: every activity',
  },
  consensus: {
    what: 'a consensus',
    describe: 'Who must approve, an expression over `approvers` and `credentials`; "" or absent: any approvers',
  },
};

/**
 * A policy expression of `kind`: "" (none) or an expression that parses and type-checks, at most
 * MAX_EXPRESSION_LENGTH characters. The refusal gives the compiler's position, e.g. `at 17: expected ')'`.
 */
export const expression = (kind: ExpressionKind) =>
  z
    .string({ error: 'must be a string' })
    .max(MAX_EXPRESSION_LENGTH, { error: `must be at most ${MAX_EXPRESSION_LENGTH} characters`, abort: true })
    .refine(storable, { error: NOT_STORABLE, abort: true })
    .superRefine((source, ctx) => {
      if (source === '') return;
      const compiled = compileExpression(source, kind);
      if (!compiled.ok) ctx.addIssue({ code: 'custom', message: `is not ${EXPRESSIONS[kind].what} expression: ${compiled.error.message}` });
    })
    .describe(`${EXPRESSIONS[kind].describe}. At most ${MAX_EXPRESSION_LENGTH} characters; checked when written`);

export const policyId = z.uuid({ message: 'must be a policy id (a UUID)' });

export const notes = () =>
  z
    .string({ error: 'must be a string' })
    .max(MAX_POLICY_NOTES_LENGTH, `must be at most ${MAX_POLICY_NOTES_LENGTH} characters`)
    .refine(storable, NOT_STORABLE);

/** One policy to create (create_policy's parameters, an item of create_policies'). */
export const policyIntent = z.strictObject(
  {
    policyName: policyName(),
    effect: effect().describe('EFFECT_ALLOW or EFFECT_DENY: what the policy does to the activities it applies to'),
    condition: expression('condition').optional(),
    consensus: expression('consensus').optional(),
    notes: notes().describe(`Notes on the policy, at most ${MAX_POLICY_NOTES_LENGTH} characters; may be ""`),
  },
  { error: objectExpected() },
);

export type PolicyIntent = z.output<typeof policyIntent>;

export const POLICY_EXAMPLE = {
  policyName: 'Operators create interfaces',
  effect: 'EFFECT_ALLOW',
  condition: "activity.resource == 'SMART_CONTRACT_INTERFACE' && activity.action == 'CREATE'",
  consensus: "approvers.any(user, user.tags.contains('4a1e9d2c-6b3f-4e8a-9c7d-1f2e3a4b5c6d'))",
  notes: '',
} as const satisfies z.input<typeof policyIntent>;

/**
 * The plan creating these policies (`field(i, key)` names a field of the i-th in a refusal), with
 * ids in ascending order so that they list in the order given (policies of one activity share
 * their creation time). The names are checked free in the organization, and the bound, in the
 * statement, after the organization's lock.
 */
export function planPolicies(
  context: ExecutionContext,
  intents: readonly PolicyIntent[],
  field: (index: number, key: keyof PolicyIntent) => string,
): ActivityPlan<{ policyIds: string[] }> {
  const { organizationId, now } = context;
  const ids = intents.map(() => randomUUID()).sort();
  const policies: NewPolicy[] = intents.map((intent, i) => ({
    policyId: ids[i]!,
    policyName: intent.policyName,
    effect: intent.effect,
    condition: intent.condition ?? '',
    consensus: intent.consensus ?? '',
    notes: intent.notes,
  }));
  const room =
    intents.length === 1
      ? `the organization has ${MAX_POLICIES} policies, the most it may have; delete one first`
      : `the organization may have at most ${MAX_POLICIES} policies and has more than ${MAX_POLICIES - intents.length}, too many for ${intents.length} more; delete some first or create fewer`;
  return {
    result: { policyIds: ids },
    effects: [
      changeAuthority(organizationId),
      ...policies.map((policy, i) =>
        check('policyNameFree', [organizationId, policy.policyName], invalidField(field(i, 'policyName'), `the organization already has a policy named ${JSON.stringify(policy.policyName)}; policy names are unique in an organization`)),
      ),
      check('policiesRoomFor', [organizationId, policies.length, MAX_POLICIES], invalidArgument(room)),
      write('insertPolicies', organizationId, policies, now),
    ],
  };
}

/** The plan deleting these policies (lowercase ids), all or none; `field(i)` names the i-th in a refusal. */
export function planDeletion(context: ExecutionContext, policyIds: string[], field: (index: number) => string): ActivityPlan<{ policyIds: string[] }> {
  const { organizationId } = context;
  return {
    result: { policyIds },
    effects: [
      changeAuthority(organizationId),
      // A concurrent deletion of the same policy commits first; this statement then finds it gone.
      ...policyIds.map((id, i) => check('policyOfOrganization', [organizationId, id], notFound('POLICY_NOT_FOUND', `${field(i)}: no policy ${id} in organization ${organizationId}`))),
      write('deletePolicies', organizationId, policyIds),
    ],
  };
}
