// The nouns of an activity's lifecycle, types only: what the pipeline is given (a submission), what it
// answers (its outcome), and the shapes passed between its steps (intake, decide, execute, commit).
// A file of their own so that every step imports them from here and no step imports another's file
// for a type: the steps import each other in one direction only.
import type { OidcVerifier } from '../../auth/oidc/verifyIdToken.ts';
import type { Principal } from '../../auth/principal.ts';
import type { Config } from '../../config.ts';
import type { SignetError } from '../../errors.ts';
import type { KeyEncryptionKey } from '../../keys/custody/keyEncryptionKey.ts';
import type { Decision } from '../../policy/index.ts';
import type { ReadableSummary } from '../../readable/index.ts';
import type { ActivityRecord, WriteOutcome } from '../../store/activities.ts';
import type { Database } from '../../store/db.ts';
import type { NewVote } from '../../store/votes.ts';
import type { Clock } from '../../wire/clock.ts';
import type { CompiledEffects } from '../../store/effects.ts';
import type { ActivityHandler, ActivityPlan } from '../handler.ts';
import type { Envelope } from '../wire/envelope.ts';
import type { ActivityStatus } from '../wire/status.ts';
import type { ApprovalLogger } from './approvalRequests.ts';
import type { Authority } from './decide.ts';
import type { ServiceKeys } from './serviceKeys.ts';

/** What the lifecycle is made with, given by the server that composes it. */
export interface LifecycleDependencies {
  db: Database;
  config: Config;
  /** The deployment's 32-byte secret (OTP hashes, outbox encryption). */
  secret: Buffer;
  keys: ServiceKeys;
  /** The key-encryption key of wallet key material, made once where the server starts. */
  kek: KeyEncryptionKey;
  /** Verifies OpenID Connect id tokens (made once where the server starts); one of SIGNET_OIDC_ISSUERS by the lifecycle's clock when not given. */
  oidc?: OidcVerifier;
  /** Called after an activity that queued a message commits (the worker delivers at once). */
  onQueued?: () => void;
  /** Called when a statement refused a credential the caller still held as good (to forget it). */
  onCredentialRefused?: (principal: Principal) => void;
  /** Every activity handler, to execute a waiting activity of any type when a vote allows it. */
  handlers: readonly ActivityHandler[];
  /** The time activities are decided at; the system's by default. */
  now?: Clock;
  /** Where a skipped approval email is told (approvalRequests.ts); nowhere when not given. */
  log?: ApprovalLogger;
}

/** An authenticated request to submit an activity: the body as signed, read, and who stamped it. */
export interface Submission {
  body: Buffer;
  document: Record<string, unknown>;
  envelope: Envelope;
  principal: Principal;
  stampHeader: string;
}

/** The answer to a submission. */
export interface SubmissionOutcome {
  /** The response body, JSON text. */
  json: string;
  activityId: string;
  organizationId: string;
  /** False when the body had been submitted before and the stored activity was returned. */
  created: boolean;
}

/** What intake makes of an envelope: the intent (the handler's parameters, defaults filled) and the App Proofs flag. */
export interface Intake {
  intent: unknown;
  generateAppProofs: boolean;
}

/**
 * The activity as it is stored: a secret the body carries in clear is not kept (ActivityHandler.redact),
 * so the stored body (the votes' message) and intent may differ from what was signed.
 */
export interface StoredForm {
  rawBody: string;
  intent: unknown;
  /** The body carries a secret that is not kept: the activity can never execute later, so it cannot wait. */
  carriesSecret: boolean;
}

/** A vote's selection: approve_activity's or reject_activity's. */
export type VoteSelection = 'VOTE_SELECTION_APPROVED' | 'VOTE_SELECTION_REJECTED';

/** A vote as written with its activity, before the statement gives it its organization and time. */
export type ProposedVote = Omit<NewVote, 'organizationId' | 'createdAt'>;

/** The policy evaluations a vote records. */
export type Evaluations = Decision['evaluations'];

/** A plan with its effects compiled into the parts of the activity's statement. */
export type CompiledPlan = Omit<ActivityPlan, 'effects'> & CompiledEffects;

/**
 * An activity's effect as it is written: the plan (the handler's, or a waiting activity's approval
 * requests) compiled, its result as stored (bearer secrets replaced), and the App Proofs of that
 * stored result when they were asked for.
 */
export interface Executed {
  plan: CompiledPlan;
  storedResult: object;
  appProofs?: object[];
  /** Proofs of another result (the answer's, with its secrets), when proofs were asked for. */
  proofsOf(result: object): Promise<object[] | undefined>;
}

/** What execute gives: the effect, or the refusal the handler answered (a client error, below 500). */
export type Execution = { kind: 'executed'; executed: Executed } | { kind: 'refused'; error: SignetError };

/** A new activity to write (allowed now, or waiting), as the pipeline decided it. */
export interface NewActivity {
  activityId: string;
  fingerprint: string;
  now: Date;
  /** Its status: COMPLETED when allowed now, CONSENSUS_NEEDED when it waits for approvals. */
  status: ActivityStatus;
  executed: Executed;
  stored: StoredForm;
  evaluations: Evaluations;
  authority: Authority;
  /** What it signs in words, when its decision read a summary (DecidedActivity.summary): stored with it. */
  summary?: ReadableSummary;
}

/** What writing a new activity gave: decide again, or the statement's outcome with the activity as written. */
export type NewActivityWritten = { kind: 'authorityChanged' } | { kind: 'written'; record: ActivityRecord; outcome: WriteOutcome };

/** A vote's answer: the activity it was recorded on, and what the caller does once its transaction committed. */
export interface VoteAnswer {
  activity: ActivityRecord;
  /** False when the same vote had been recorded before (answered as the first was). */
  written: boolean;
  queuesDelivery?: boolean;
  changesAuthority?: boolean;
}
