// The contract between the activity lifecycle (lifecycle/pipeline.ts) and one activity type. A
// handler declares its wire names and parameter schema, may prepare the activity before it is decided
// (read what its intent names and check the intent against it: lifecycle/prepare.ts), and executes
// the activity once it is allowed: it plans the activity's result and effects (as data:
// src/store/effects.ts), which the pipeline compiles and writes with the activity and its vote in one
// statement. Everything common (envelope, stamp, liveness, idempotency, votes, rendering, errors)
// belongs to the lifecycle.
//
// Each behaviour flag is read in one place of the lifecycle:
//   takes                 lifecycle/intake.ts, handlerTaking (which handler of a type takes the body)
//   redact                lifecycle/intake.ts, storedFormOf (the activity as stored, and whether it may wait)
//   acceptsAttestedStamp  http/submitRoutes.ts (a path takes X-Stamp-Attested when a handler of it does)
//   acceptsRecoveryKey    http/submitRoutes.ts (the stamp check lets a recovery key through)
//   fromSubOrganization   http/submitRoutes.ts (the stamp check lets a sub-organization name its parent)
//   parentMaySubmit       lifecycle/context.ts, parentMaySubmit
//   neverWaits            lifecycle/pipeline.ts, decideSubmission
//   rootQuorumOnly        lifecycle/decide.ts, decidedOf
// The optional step `prepare` is called in one place, lifecycle/prepare.ts (before the decision at
// submission, pipeline.ts; before execute at the approval that allows a waiting activity, execute.ts);
// the optional step `view` in one place too, lifecycle/view.ts (before a decision that reads policies
// or may wait: at submission, at each vote, and for a reader's canApprove).
import type { z } from 'zod';
import type { OidcVerifier } from '../auth/oidc/verifyIdToken.ts';
import type { Principal } from '../auth/principal.ts';
import type { Config } from '../config.ts';
import type { Reason } from '../errors.ts';
import type { Action, Resource, SigningBindings } from '../policy/index.ts';
import type { ReadableSummary } from '../readable/index.ts';
import type { KeyEncryptionKey } from '../keys/custody/keyEncryptionKey.ts';
import type { Effect } from '../store/effects.ts';
import type { Queryable } from '../store/db.ts';
import type { ServiceKeys } from './lifecycle/serviceKeys.ts';

export interface ExecutionContext {
  /** Id of the activity being created. */
  activityId: string;
  organizationId: string;
  /** Who stamped the request; its credential is checked in any statement a handler runs itself. */
  principal: Principal;
  /** One clock reading for the whole activity. */
  now: Date;
  config: Config;
  /** Secret of this deployment for OTP hashing and outbox encryption (32 bytes). */
  secret: Buffer;
  /** The store, for what a plan must read first (an OTP to compare a code with). */
  db: Queryable;
  /** The service's signing keys (verification tokens). */
  keys: ServiceKeys;
  /** Wraps the data keys of wallet key material sealed for the store (keys/custody/sealKeyMaterial.ts). */
  kek: KeyEncryptionKey;
  /** Verifies OpenID Connect id tokens against SIGNET_OIDC_ISSUERS, their keys cached (auth/oidc/). */
  oidc: OidcVerifier;
}

/**
 * What a handler prepares an activity with (ActivityHandler.prepare): the store to read and who asks,
 * no key material and no activity id (nothing is decided yet).
 */
export type PrepareContext = Pick<ExecutionContext, 'organizationId' | 'principal' | 'now' | 'config' | 'db'>;

/**
 * What an activity does: its result and its effects (src/store/effects.ts), which the pipeline writes
 * with the activity in one statement. Effects are data: what must hold, what is taken, locked,
 * written and queued, each naming one of the store's operations and its arguments.
 */
export interface ActivityPlan<Result extends object = object> {
  result: Result;
  /**
   * Names of the result's fields that are bearer secrets (whoever reads one can use it, e.g. a verification
   * token bound to no key): they appear in the answer to this request only (or to the approval that
   * executes it). The activity is stored, and so read back and resubmitted, with each of them "" (the
   * shape clients type stays). `a.b` names field `b` of the object in field `a`.
   */
  secretFields?: readonly string[];
  effects: readonly Effect[];
}

/**
 * What policies and people read of an activity beyond its parameters (ActivityHandler.view): for an
 * activity that signs, what it signs decoded with the organization's smart contract interfaces, and
 * the key it signs with.
 */
export interface ActivityView {
  /** The keywords a policy condition reads when the activity signs: `eth`, `solana`, `wallet`, `wallet_account`, `private_key`. */
  signing?: SigningBindings;
  /** What is signed, in words, for those asked to approve it (the console, the approval email, the webhook event). */
  summary?: ReadableSummary;
}

export interface ActivityHandler<Schema extends z.ZodType = z.ZodType, Result extends object = object, Prepared = unknown> {
  /** Last segment of POST /public/v1/submit/<path>. Several handlers may share a path (verify_otp V1 and V2). */
  path: string;
  /** Value of the envelope's `type`, e.g. ACTIVITY_TYPE_INIT_OTP_AUTH_V3. */
  activityType: string;
  /** Other `type` values taken for the same activity (older spellings clients still send). */
  otherActivityTypes?: readonly string[];
  /**
   * What the activity does as policies see it (`activity.resource`, `activity.action`). The policy
   * module's kind table is written from these (src/policy/activityResources.ts); handlers of one kind agree.
   */
  resource: Resource;
  action: Action;
  /**
   * The reasons of src/errors.ts this activity may answer besides those every activity may (stamp,
   * schema, authorization: ACTIVITY_REASONS in activities/declarations.ts): its 404s, its own 400s
   * and 429s. The OpenAPI document and docs/api.md list them, each with its status from REASONS.
   */
  reasons: readonly Reason[];
  /** One line (markdown) for the activity table of docs/api.md; the first handler of a path gives its row. */
  summary: string;
  /**
   * Among the handlers of one path, whether this one takes these parameters (its shape: verify_otp's
   * V2 carries `encryptedOtpBundle`, V1 `otpCode`). Without it the handler takes any.
   */
  takes?(parameters: Record<string, unknown>): boolean;
  /**
   * Parameters as they may be stored and echoed (the intent and the votes' signed message): a secret
   * the request carries in clear, such as a verified OTP code, is replaced. Without it, as given. It
   * returns `parameters` itself when they carry no secret: only an activity with a secret to replace
   * cannot wait for approvals (the secret is not kept to execute it later).
   */
  redact?(parameters: Record<string, unknown>): Record<string, unknown>;
  /** What the activity does, one or two sentences for the OpenAPI document (markdown). */
  description?: string;
  /**
   * A credential of the organization's parent may submit it in a sub-organization (the activities of
   * an end user's login and recovery: init_otp, init_otp_auth, verify_otp, otp_login, otp_auth,
   * oauth_login, email_auth, init_user_email_recovery), decided by the parent's root quorum and
   * policies. Every other activity needs a credential of the organization.
   */
  parentMaySubmit?: boolean;
  /**
   * Done at once or refused: when the decision asks for more approvals, the request is refused
   * rather than stored to wait (a login is for its submitter, and an approval executes as the approver).
   */
  neverWaits?: boolean;
  /**
   * A sub-organization's credential may send its parent's `organizationId` (as the browser libraries
   * log a passkey in through the app's organization): the activity is then the sub-organization's.
   */
  fromSubOrganization?: boolean;
  /** Takes requests stamped with a recovery key (recover_user); every other route refuses them with a 403. */
  acceptsRecoveryKey?: boolean;
  /** Takes requests stamped with X-Stamp-Attested (stamp_login); every other activity refuses them. */
  acceptsAttestedStamp?: boolean;
  /** Decided by the root quorum alone: policies are not consulted (update_root_quorum). */
  rootQuorumOnly?: boolean;
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
   * The result object under `resultKey`, described field by field for the OpenAPI document (the
   * pipeline does not check `execute`'s result against it; test/openapi.test.ts checks real answers do).
   */
  resultSchema?: z.ZodType<Result>;
  /**
   * Checks the intent against what it names in the store, before the activity is decided, so that a
   * request that could never execute is refused at submission (a 400 or 404, nothing stored) rather
   * than waiting for approvals and failing at the one that allows it: sign_raw_payload reads the
   * account at `signWith` and checks that its curve takes the encoding, hash function and payload.
   * It only reads (no effects, no key material) and throws a SignetError to refuse. What it returns is
   * handed to `execute`: called at submission, then at once for an activity allowed now (so the read
   * is not made twice); called again at the approval that executes a waiting activity, whose refusal
   * then fails it (what it read may have changed meanwhile). Without it, `execute` gets `undefined`.
   */
  prepare?(context: PrepareContext, intent: z.output<Schema>): Promise<Prepared>;
  /**
   * What policies and approvers read of the activity beyond its parameters (ActivityView), from its
   * intent, what `prepare` returned, and what it reads (the organization's interfaces for the
   * contracts a transaction calls). Only reads; asked only when a decision reads policies or the
   * activity may wait for approvals (lifecycle/view.ts), so an activity its root user does alone
   * reads nothing more. What cannot be decoded is left out (a condition reading it fails closed).
   */
  view?(context: PrepareContext, intent: z.output<Schema>, prepared: Prepared): Promise<ActivityView>;
  /**
   * Executes the activity, called when it is allowed: plans its effect, which the pipeline writes. Throw
   * a SignetError to refuse the request before anything is written; a refusal that must leave a trace
   * (a wrong OTP guess counted) writes it first. `prepared` is what `prepare` returned for this execution.
   */
  execute(context: ExecutionContext, intent: z.output<Schema>, prepared: Prepared): Promise<ActivityPlan<Result>>;
}
