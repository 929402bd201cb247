// Execute: the one path from "allowed" to an effect ready to write. The handler plans the effect (the
// only call of ActivityHandler.execute, given what its prepare step read: prepare.ts, run again here
// when an approval executes a waiting activity), its effects are compiled into the parts of the
// activity's statement (src/store/effects.ts), its result is made ready to store (bearer secrets
// replaced) and, when they were asked for, the App Proofs of that stored result are signed. A
// submission allowed at once and the approval that allows a waiting activity both come here.
import type { Principal } from '../../auth/principal.ts';
import { SignetError } from '../../errors.ts';
import type { Queryable } from '../../store/db.ts';
import { compileEffects, type Effect } from '../../store/effects.ts';
import type { ActivityHandler, ActivityPlan } from '../handler.ts';
import { createAppProof } from './appProofs.ts';
import { withoutSecrets } from './commit.ts';
import { executionContext, type Lifecycle } from './context.ts';
import type { CompiledPlan, Executed, Execution } from './model.ts';
import { prepare, type Preparation } from './prepare.ts';

/** The allowed activity, as execute needs it. */
export interface AllowedActivity {
  activityId: string;
  organizationId: string;
  fingerprint: string;
  timestampMs: string;
  intent: unknown;
  generateAppProofs: boolean;
  /** Who executes it: the submitter, or the approver whose vote allowed it. */
  principal: Principal;
  now: Date;
  /** The store, or the transaction of the vote that allows it. */
  db: Queryable;
  /**
   * What the handler prepared at submission, for an activity allowed then. Absent (an approval
   * executing a waiting activity), the handler prepares it again now, and its refusal is execute's.
   */
  preparation?: Extract<Preparation, { kind: 'prepared' }>;
}

/** The effect of an allowed activity, or the client error its handler refused it with. */
export async function execute(lifecycle: Lifecycle, handler: ActivityHandler, activity: AllowedActivity): Promise<Execution> {
  const { activityId, organizationId, principal, now, db } = activity;
  const preparation = activity.preparation ?? (await prepare(handler, { organizationId, principal, now, db, config: lifecycle.deps.config }, activity.intent));
  if (preparation.kind === 'refused') return preparation;
  let plan: ActivityPlan;
  try {
    plan = await handler.execute(executionContext(lifecycle, { activityId, organizationId, principal, now, db }), activity.intent, preparation.prepared);
  } catch (error) {
    if (error instanceof SignetError && error.status < 500) return { kind: 'refused', error };
    throw error;
  }
  const proofsOf = async (result: object) =>
    activity.generateAppProofs
      ? [await createAppProof(lifecycle.deps.keys, { id: activityId, type: handler.activityType, organizationId, fingerprint: activity.fingerprint, timestampMs: activity.timestampMs, result })]
      : undefined;
  const compiled = compilePlan(plan);
  const storedResult = withoutSecrets(compiled);
  // The stored proof binds the result as stored, which every later read of the activity shows.
  const appProofs = await proofsOf(storedResult);
  return { kind: 'executed', executed: { plan: compiled, storedResult, ...(appProofs ? { appProofs } : {}), proofsOf } };
}

/** A waiting activity's "effect": the approval requests its statement writes, no result, no proofs. */
export function waiting(effects: readonly Effect[]): Executed {
  const plan = compilePlan({ result: {}, effects });
  // The stored result is the plan's own (no secret to replace): the answer shows what is stored.
  return { plan, storedResult: plan.result, proofsOf: () => Promise.resolve(undefined) };
}

/** The plan with its effects compiled into the parts of the activity's statement. */
export function compilePlan(plan: ActivityPlan): CompiledPlan {
  const { effects, ...rest } = plan;
  return { ...rest, ...compileEffects(effects) };
}
