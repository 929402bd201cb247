// The activity engine: everything every activity shares. Reads the envelope, enforces liveness and
// idempotency, has the handler plan its effect, and writes the activity, its rows, its vote and the
// checks they depend on (the credential among them) in one statement; renders the stored activity.
// The stamp is verified before (auth/), over the raw bytes.
import { createHash, randomUUID } from 'node:crypto';
import type { Config } from '../config.ts';
import { credentialRefused, invalidField, SignetError, unauthenticated } from '../errors.ts';
import { findActivity, writeActivity, type ActivityRecord, type WriteOutcome } from '../store/activities.ts';
import type { Database } from '../store/db.ts';
import { createAppProof } from './appProofs.ts';
import { envelopeSchema, type Envelope } from './envelope.ts';
import type { ActivityHandler, ActivityPlan, ExecutionContext, Principal } from './handler.ts';
import { activityResponseJson } from './render.ts';
import type { ServiceKeys } from './serviceKeys.ts';
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

export class ActivityEngine {
  private readonly now: () => Date;

  constructor(private readonly deps: EngineDependencies) {
    this.now = deps.now ?? (() => new Date());
  }

  /** The envelope of a parsed body for `handler`'s endpoint, or a 400 naming what is wrong. */
  envelope(handler: ActivityHandler, document: Record<string, unknown>): Envelope {
    const envelope = envelopeSchema.safeParse(document, { reportInput: true });
    if (!envelope.success) throw schemaError(envelope.error, '', 'invalid activity envelope');
    if (envelope.data.type !== handler.activityType) {
      throw invalidField('type', `this endpoint accepts "${handler.activityType}", got "${envelope.data.type}"`);
    }
    return envelope.data;
  }

  /**
   * Creates the activity of an authenticated submission, or answers with the stored one when the same
   * body was submitted before (how clients poll, whatever its age).
   */
  async submit(
    handler: ActivityHandler,
    submission: { body: Buffer; envelope: Envelope; principal: Principal; stampHeader: string },
  ): Promise<SubmissionOutcome> {
    const { db, config } = this.deps;
    const { envelope, principal } = submission;
    const { organizationId, timestampMs } = envelope;
    const now = this.now();
    const fingerprint = `sha256:${createHash('sha256').update(submission.body).digest('hex')}`;
    const stored = (activity: ActivityRecord) => this.answer(handler, activity, false);
    const storedOr = async (error: unknown): Promise<SubmissionOutcome> => {
      // A refusal of a body submitted before is not the answer: its stored activity is.
      const activity = await findActivity(db, { organizationId, fingerprint });
      if (activity) return stored(activity);
      throw error;
    };

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

    const parsed = handler.parameters.safeParse(envelope.parameters, { reportInput: true });
    if (!parsed.success) throw schemaError(parsed.error, 'parameters', 'invalid parameters');

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
      plan = await handler.plan(context, parsed.data);
    } catch (error) {
      if (error instanceof SignetError && error.status < 500) return storedOr(error);
      throw error;
    }

    const appProofs =
      envelope.generateAppProofs === true
        ? [
            await createAppProof(this.deps.keys, {
              id: activityId,
              type: handler.activityType,
              organizationId,
              fingerprint,
              timestampMs,
              result: plan.result,
            }),
          ]
        : undefined;
    const record: ActivityRecord = {
      id: activityId,
      organizationId,
      type: handler.activityType,
      status: 'ACTIVITY_STATUS_COMPLETED',
      fingerprint,
      timestampMs,
      rawBody: submission.body.toString('utf8'),
      intentJson: JSON.stringify(parsed.data),
      result: plan.result,
      createdAt: now,
      updatedAt: now,
      votes: [
        {
          id: randomUUID(),
          userId: principal.userId,
          userName: principal.userName,
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
    const outcome = await writeActivity(db, {
      activity: { ...record, stampHeader: submission.stampHeader },
      vote: { id: vote.id, userId: vote.userId, selection: vote.selection, publicKey: vote.publicKey, signature: vote.signature, scheme: vote.scheme },
      credential: principal.credential,
      guards: (plan.guards ?? []).map((guard) => guard.condition),
      gates: (plan.gates ?? []).map((gate) => gate.gate),
      rows: plan.rows ?? [],
    });
    return this.settle(handler, plan, principal, record, outcome, storedOr);
  }

  private async settle(
    handler: ActivityHandler,
    plan: ActivityPlan,
    principal: Principal,
    record: ActivityRecord,
    outcome: WriteOutcome,
    storedOr: (error: unknown) => Promise<SubmissionOutcome>,
  ): Promise<SubmissionOutcome> {
    switch (outcome.kind) {
      case 'created':
        if (plan.queuesDelivery) this.deps.onQueued?.();
        return this.answer(handler, record, true);
      case 'existing':
        return this.answer(handler, outcome.activity, false);
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
    }
  }

  private answer(handler: ActivityHandler, record: ActivityRecord, created: boolean): SubmissionOutcome {
    return { json: activityResponseJson(handler, record), activityId: record.id, organizationId: record.organizationId, created };
  }
}
