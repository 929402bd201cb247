// The contract between the activity engine and one activity type. A handler declares its wire
// names and parameter schema and executes inside the engine's transaction; everything common
// (envelope, stamp, liveness, idempotency, votes, rendering, errors) belongs to the engine.
import type { z } from 'zod';
import type { Config } from '../config.ts';
import type { SignetError } from '../errors.ts';
import type { Queryable } from '../store/db.ts';

export interface ExecutionContext {
  /** Id of the activity being created (already inserted in this transaction). */
  activityId: string;
  organizationId: string;
  /** The user whose credential stamped the request. */
  userId: string;
  /** One clock reading for the whole activity. */
  now: Date;
  config: Config;
  /** Secret of this deployment for OTP hashing and outbox encryption (32 bytes). */
  secret: Buffer;
}

export interface ActivityHandler<Schema extends z.ZodType = z.ZodType, Result extends object = object> {
  /** Last segment of POST /public/v1/submit/<path>. */
  path: string;
  /** Value of the envelope's `type`, e.g. ACTIVITY_TYPE_INIT_OTP_AUTH_V3. */
  activityType: string;
  /** Key of the intent object, e.g. initOtpAuthIntentV3. */
  intentKey: string;
  /** Key of the result object, e.g. initOtpAuthResultV2. */
  resultKey: string;
  /**
   * Validates `parameters` (strict: unknown keys rejected) and fills defaults. Its output is the
   * intent echoed in the activity. Issues' paths are relative to `parameters`.
   */
  parameters: Schema;
  /** Valid parameters, shown in the OpenAPI document (a test checks they validate). */
  example: z.input<Schema>;
  /**
   * Performs the activity's effect with `tx` (the engine's transaction). Throw a SignetError to
   * reject the request: the whole transaction, activity included, is rolled back. Throw a
   * CommittedRejection instead when the rejection itself must leave a trace.
   */
  execute(tx: Queryable, context: ExecutionContext, intent: z.output<Schema>): Promise<Result>;
}

/**
 * A rejection whose writes must persist, such as a counted wrong OTP guess: the engine removes the
 * activity row, commits the handler's other writes (row locks are held until then, so concurrent
 * requests see them), and only then answers with `error`. A plain throw would roll the count back.
 * The handler's writes must therefore not reference the activity (context.activityId).
 */
export class CommittedRejection extends Error {
  override name = 'CommittedRejection';
  constructor(readonly error: SignetError) {
    super(error.message);
  }
}
