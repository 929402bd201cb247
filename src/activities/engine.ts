// The activity engine: everything every activity shares. Parses the envelope, authenticates the
// stamp over the raw bytes, enforces liveness and idempotency, runs the handler in one transaction
// with the activity row and its vote, and renders the stored activity.
import { createHash, randomUUID } from 'node:crypto';
import type { Config } from '../config.ts';
import { authenticate, type Principal } from '../auth/authenticate.ts';
import { parseStamp } from '../auth/parseStamp.ts';
import { invalidArgument, invalidField, unauthenticated } from '../errors.ts';
import type { Database, Queryable } from '../store/db.ts';
import { createAppProof } from './appProofs.ts';
import { envelopeSchema } from './envelope.ts';
import { parseJsonDocument } from './jsonDocument.ts';
import { CommittedRejection, type ActivityHandler } from './handler.ts';
import { findActivity } from '../store/activities.ts';
import { renderActivity, type ActivityRecord, type VoteRecord } from './render.ts';
import { schemaError } from './violations.ts';

export interface EngineDependencies {
  db: Database;
  config: Config;
  /** The deployment's 32-byte secret (OTP hashes, outbox encryption). */
  secret: Buffer;
  /** Called after an activity commits (the outbox worker delivers at once instead of at its next poll). */
  onCommitted?: () => void;
  /** Clock, replaceable in tests. */
  now?: () => Date;
}

export interface Submission {
  /** The request body exactly as received: the stamp and the fingerprint are over these bytes. */
  body: Buffer;
  headers: Record<string, string | string[] | undefined>;
}

export interface SubmissionOutcome {
  /** The rendered response body. */
  response: ReturnType<typeof renderActivity>;
  activityId: string;
  /** False when the body had been submitted before and the stored activity was returned. */
  created: boolean;
}

/** Thrown inside the transaction when another submission of the same body won the race. */
class AlreadySubmitted extends Error {}

export class ActivityEngine {
  private readonly now: () => Date;

  constructor(private readonly deps: EngineDependencies) {
    this.now = deps.now ?? (() => new Date());
  }

  async submit(handler: ActivityHandler, submission: Submission): Promise<SubmissionOutcome> {
    const { db, config } = this.deps;
    const document = parseBody(submission.body);
    const stamp = parseStamp(submission.headers);

    const envelope = envelopeSchema.safeParse(document, { reportInput: true });
    if (!envelope.success) throw schemaError(envelope.error, '', 'invalid activity envelope');
    const { type, timestampMs, organizationId, parameters, generateAppProofs } = envelope.data;
    if (type !== handler.activityType) {
      throw invalidField('type', `this endpoint accepts "${handler.activityType}", got "${type}"`);
    }

    const now = this.now();
    const principal = await authenticate(db, submission.body, stamp, organizationId, {
      origins: config.webauthnOrigins,
      rpId: config.webauthnRpId,
      now,
    });

    // The same body again is how clients poll: answer with the stored activity, whatever its age.
    const fingerprint = `sha256:${createHash('sha256').update(submission.body).digest('hex')}`;
    const existing = await findActivity(db, { organizationId, fingerprint });
    if (existing) return { response: renderActivity(handler, existing), activityId: existing.id, created: false };

    const skew = Math.abs(now.getTime() - Number(timestampMs));
    if (skew > config.timestampToleranceMs) {
      throw unauthenticated(
        `timestampMs is ${skew} ms away from the server clock (${now.getTime()}); requests must be stamped ` +
          `within ±${config.timestampToleranceMs} ms: check the client's clock and stamp a fresh request`,
        'stale_timestamp',
      );
    }

    const parsed = handler.parameters.safeParse(parameters, { reportInput: true });
    if (!parsed.success) throw schemaError(parsed.error, 'parameters', 'invalid parameters');

    const record = await this.execute(handler, {
      organizationId,
      timestampMs,
      fingerprint,
      body: submission.body,
      stampHeader: stampHeaderOf(submission.headers),
      principal,
      intent: parsed.data as object,
      now,
      generateAppProofs: generateAppProofs === true,
    });
    if (record === undefined) {
      // Lost the race to a concurrent submission of the same body; it committed first.
      const winner = await findActivity(db, { organizationId, fingerprint });
      if (!winner) throw new Error('activity vanished after a fingerprint conflict');
      return { response: renderActivity(handler, winner), activityId: winner.id, created: false };
    }
    this.deps.onCommitted?.();
    return { response: renderActivity(handler, record), activityId: record.id, created: true };
  }

  /** Runs the handler with its activity and vote in one transaction; undefined on a fingerprint race. */
  private async execute(
    handler: ActivityHandler,
    input: {
      organizationId: string;
      timestampMs: string;
      fingerprint: string;
      body: Buffer;
      stampHeader: string;
      principal: Principal;
      intent: object;
      now: Date;
      generateAppProofs: boolean;
    },
  ): Promise<ActivityRecord | undefined> {
    const { principal, now } = input;
    const id = randomUUID();
    const message = input.body.toString('utf8');
    try {
      const outcome = await this.deps.db.transaction(async (tx): Promise<ActivityRecord | CommittedRejection> => {
        // Claim the fingerprint first: a concurrent twin waits here on the unique index, then finds it taken.
        const claimed = await tx.query(
          `INSERT INTO activities (id, organization_id, type, status, fingerprint, timestamp_ms, raw_body,
                                   stamp_header, intent, created_at, updated_at)
           VALUES ($1, $2, $3, 'ACTIVITY_STATUS_COMPLETED', $4, $5, $6, $7, $8, $9, $9)
           ON CONFLICT (organization_id, fingerprint) DO NOTHING
           RETURNING id`,
          [id, input.organizationId, handler.activityType, input.fingerprint, input.timestampMs, message,
            input.stampHeader, JSON.stringify(input.intent), now],
        );
        if (claimed.length === 0) throw new AlreadySubmitted();

        let result: object;
        try {
          result = await handler.execute(
            tx,
            {
              activityId: id,
              organizationId: input.organizationId,
              userId: principal.userId,
              now,
              config: this.deps.config,
              secret: this.deps.secret,
            },
            input.intent,
          );
        } catch (error) {
          if (!(error instanceof CommittedRejection)) throw error;
          // The handler's writes stand; the activity does not, so nothing records a success and
          // the same body submitted again runs again.
          await tx.query('DELETE FROM activities WHERE id = $1', [id]);
          return error;
        }
        const appProofs = input.generateAppProofs
          ? [await createAppProof(tx, this.deps.secret, {
              id,
              type: handler.activityType,
              organizationId: input.organizationId,
              fingerprint: input.fingerprint,
              timestampMs: input.timestampMs,
              result,
            })]
          : undefined;
        await tx.query('UPDATE activities SET result = $2, app_proofs = $3 WHERE id = $1', [
          id,
          JSON.stringify(result),
          appProofs ? JSON.stringify(appProofs) : null,
        ]);
        const vote: VoteRecord = {
          id: randomUUID(),
          userId: principal.userId,
          userName: principal.userName,
          activityId: id,
          selection: 'VOTE_SELECTION_APPROVED',
          message,
          publicKey: principal.publicKey,
          signature: principal.signature,
          scheme: principal.scheme,
          createdAt: now,
        };
        await insertVote(tx, vote);
        return {
          id,
          organizationId: input.organizationId,
          type: handler.activityType,
          status: 'ACTIVITY_STATUS_COMPLETED',
          fingerprint: input.fingerprint,
          timestampMs: input.timestampMs,
          intent: input.intent,
          result,
          votes: [vote],
          createdAt: now,
          updatedAt: now,
          ...(appProofs ? { appProofs } : {}),
        };
      });
      if (outcome instanceof CommittedRejection) throw outcome.error;
      return outcome;
    } catch (error) {
      if (error instanceof AlreadySubmitted) return undefined;
      throw error;
    }
  }
}

/** The body as a JSON object, or a 400 saying what is wrong with it. */
export function parseBody(body: Buffer): Record<string, unknown> {
  const document = parseJsonDocument(body);
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw invalidArgument('request body must be a JSON object with type, timestampMs, organizationId and parameters');
  }
  return document as Record<string, unknown>;
}

function stampHeaderOf(headers: Submission['headers']): string {
  const value = headers['x-stamp-webauthn'] ?? headers['x-stamp'];
  return Array.isArray(value) ? value.join(',') : (value ?? '');
}

async function insertVote(tx: Queryable, vote: VoteRecord): Promise<void> {
  await tx.query(
    `INSERT INTO votes (id, activity_id, user_id, selection, message, public_key, signature, scheme, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [vote.id, vote.activityId, vote.userId, vote.selection, vote.message, vote.publicKey, vote.signature,
      vote.scheme, vote.createdAt],
  );
}
