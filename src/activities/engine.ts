// The activity engine: everything every activity shares. An activity's life, in submit's order:
// intake (the envelope and the handler's parameter schema make the intent), the decision point
// (whether it may take effect now), execute (the handler's effect, planned when the activity is
// allowed), and the write of the activity, its vote, its rows and the checks they depend on (the
// credential among them) in one statement; then the stored activity, rendered. Liveness and
// idempotency come before. The stamp is verified before (auth/), over the raw bytes.
import { hash, randomUUID } from 'node:crypto';
import type { Config } from '../config.ts';
import { credentialRefused, invalidArgument, invalidField, SignetError, unauthenticated } from '../errors.ts';
import { findActivity, type ActivityRecord, type WriteOutcome } from '../store/activities.ts';
import { ActivityWriter } from '../store/activityWriter.ts';
import type { Database } from '../store/db.ts';
import { createAppProof } from './appProofs.ts';
import { envelopeSchema, type Envelope } from './envelope.ts';
import type { ActivityHandler, ActivityPlan, ExecutionContext, Principal } from './handler.ts';
import { activityResponseJson } from './render.ts';
import type { ServiceKeys } from './serviceKeys.ts';
import { ACTIVITY_STATUS, type ActivityStatus } from './status.ts';
import { schemaError } from './violations.ts';

export interface EngineDependencies {
  db: Database;
  config: Config;
  /** The deployment's 32-byte secret (OTP hashes, outbox encryption). */
  secret: Buffer;
  keys: ServiceKeys;
  /** Called after an activity that queued a message commits (the worker delivers at once). */
  onQueued?: () => void;
  /** Called when a statement refused a credential the caller still held as good (to forget it). */
  onCredentialRefused?: (principal: Principal) => void;
  /** Clock, replaceable in tests. */
  now?: () => Date;
}

export interface SubmissionOutcome {
  /** The response body, JSON text. */
  json: string;
  activityId: string;
  organizationId: string;
  /** False when the body had been submitted before and the stored activity was returned. */
  created: boolean;
}

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

/** What the decision point says of an activity: today, that it may take effect now. */
type Decision = 'allowed';

/** The status an activity is written with, by its decision. */
const STATUS_OF: Readonly<Record<Decision, ActivityStatus>> = { allowed: ACTIVITY_STATUS.COMPLETED };

/** The decision point: every credential of the organization may write (authorization decides here, with src/policy's `decide`). */
function authorize(_activity: { principal: Principal; type: string; intent: unknown }): Decision {
  return 'allowed';
}

export class ActivityEngine {
  private readonly now: () => Date;
  private readonly writer: ActivityWriter;

  constructor(private readonly deps: EngineDependencies) {
    this.now = deps.now ?? (() => new Date());
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
   * body was submitted before (how clients poll, whatever its age).
   */
  async submit(
    handler: ActivityHandler,
    submission: { body: Buffer; document: Record<string, unknown>; envelope: Envelope; principal: Principal; stampHeader: string },
  ): Promise<SubmissionOutcome> {
    const { db, config } = this.deps;
    const { envelope, principal } = submission;
    const { organizationId, timestampMs } = envelope;
    const now = this.now();
    const fingerprint = `sha256:${hash('sha256', submission.body, 'hex')}`;
    const stored = (activity: ActivityRecord) => this.answer(activity, false);
    const storedOr = async (error: unknown): Promise<SubmissionOutcome> => {
      // A refusal of a body submitted before is not the answer: its stored activity is.
      const activity = await findActivity(db, { organizationId, fingerprint });
      if (activity) return stored(activity);
      throw error;
    };

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

    // 1. Intake, pure: the envelope and the handler's parameter schema make the intent.
    const { intent, generateAppProofs } = intake(handler, envelope);

    // 2. The decision point: whether the activity may take effect now; it is written with the status
    // its decision gives.
    const decision = authorize({ principal, type: envelope.type, intent });

    // 3. Execute: the handler plans its effect, now that the activity is allowed.
    const activityId = randomUUID();
    const context: ExecutionContext = {
      activityId,
      organizationId,
      principal,
      now,
      config,
      secret: this.deps.secret,
      db,
      keys: this.deps.keys,
    };
    let plan: ActivityPlan;
    try {
      plan = await handler.execute(context, intent);
    } catch (error) {
      if (error instanceof SignetError && error.status < 500) return storedOr(error);
      throw error;
    }

    // 4. The write: the activity with its status, its submitter's vote, and the handler's rows and
    // checks, in one statement; then the answer its outcome gives (settle).
    // A bearer secret of the result is never written: the stored result holds "" in its place.
    const storedResult: object = plan.secretFields?.length
      ? { ...plan.result, ...Object.fromEntries(plan.secretFields.map((field) => [field, ''])) }
      : plan.result;
    const proofsOf = async (result: object) =>
      generateAppProofs
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
    const storedIntent = redacted ? redacted(intent as Record<string, unknown>) : intent;
    const record: ActivityRecord = {
      id: activityId,
      organizationId,
      type: envelope.type,
      status: STATUS_OF[decision],
      fingerprint,
      timestampMs,
      rawBody,
      intentJson: `{${JSON.stringify(handler.intentKey)}:${JSON.stringify(storedIntent)}}`,
      result: { [handler.resultKey]: storedResult },
      createdAt: now,
      updatedAt: now,
      votes: [
        {
          id: randomUUID(),
          userId: principal.userId,
          userName: principal.userName,
          userEmail: principal.userEmail,
          userPhoneNumber: principal.userPhoneNumber,
          userCreatedAt: principal.userCreatedAt,
          userUpdatedAt: principal.userUpdatedAt,
          // The user's tags as the write's statement reads them (settle).
          userTags: [],
          selection: 'VOTE_SELECTION_APPROVED',
          publicKey: principal.publicKey,
          signature: principal.signature,
          scheme: principal.scheme,
          createdAt: now,
        },
      ],
      ...(appProofs ? { appProofs } : {}),
    };
    const vote = record.votes[0]!;
    const write = () =>
      this.writer.write({
        activity: { ...record, stampHeader: submission.stampHeader },
        vote: { id: vote.id, userId: vote.userId, selection: vote.selection, publicKey: vote.publicKey, signature: vote.signature, scheme: vote.scheme },
        credential: principal.credential,
        guards: (plan.guards ?? []).map((guard) => guard.condition),
        gates: (plan.gates ?? []).map((gate) => gate.gate),
        rows: plan.rows ?? [],
        locks: plan.locks ?? [],
      });
    let outcome = await write();
    // A concurrent request took a unique value after the checks read: written again, the checks
    // see it and refuse with the field it is in.
    if (outcome.kind === 'conflict') outcome = await write();
    // Only the request that made the activity is answered with its secrets, and with a proof of them.
    if (outcome.kind === 'created' && storedResult !== plan.result) {
      const answerProofs = await proofsOf(plan.result);
      return this.settle(plan, principal, { ...record, result: { [handler.resultKey]: plan.result }, ...(answerProofs ? { appProofs: answerProofs } : {}) }, outcome, storedOr);
    }
    return this.settle(plan, principal, record, outcome, storedOr);
  }

  private async settle(
    plan: ActivityPlan,
    principal: Principal,
    record: ActivityRecord,
    outcome: WriteOutcome,
    storedOr: (error: unknown) => Promise<SubmissionOutcome>,
  ): Promise<SubmissionOutcome> {
    switch (outcome.kind) {
      case 'created':
        if (plan.queuesDelivery) this.deps.onQueued?.();
        return this.answer({ ...record, votes: record.votes.map((vote, i) => (i === 0 ? { ...vote, userTags: outcome.userTags } : vote)) }, true);
      case 'existing':
        return this.answer(outcome.activity, false);
      case 'credentialRefused':
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
        return storedOr(invalidArgument('a value of this request was registered by a concurrent request meanwhile; submit again to learn which'));
    }
  }

  private answer(record: ActivityRecord, created: boolean): SubmissionOutcome {
    return { json: activityResponseJson(record), activityId: record.id, organizationId: record.organizationId, created };
  }
}
