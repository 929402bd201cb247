// Approval emails, as the engine asks for them. When an activity waits for approvals (stored waiting,
// or still waiting after a vote), each user who may vote on it is emailed once: the root quorum's
// users and the users the consensus of an ALLOW policy whose condition holds counts — the rule a vote
// is accepted by (mayVoteOn) — who have an email address proven for them, never its submitter; and
// at most APPROVAL_EMAIL_BOUND of them to one address in a window (past it the email is skipped, the
// activity waits all the same, and a warning names the activity and the user). Who may vote is
// decided here, with the organization's authority the engine decided with; the rows of the
// activity's statement (store/approvalRequests.ts) then select their addresses, record each request
// and queue its message, so the email is committed with the activity and sent once per activity and
// user, whichever process writes. Nothing is queued unless SMTP is configured and
// SIGNET_APPROVAL_EMAILS is not false.
import { apiKeyCredentialType } from '../../auth/principal.ts';
import type { Config } from '../../config.ts';
import { activityKind, type Approver, type CredentialType } from '../../policy/index.ts';
import type { ActivityRecord } from '../../store/activities.ts';
import { readVoterCandidates, skippedApprovalRequests, type ApprovalEmailBound, type VoterCandidate } from '../../store/approvalRequests.ts';
import type { Queryable } from '../../store/db.ts';
import { lock, write, type Effect } from '../../store/effects.ts';
import { mayVoteOn, type Authority, type DecidedActivity } from './decide.ts';
import type { ActivityHandler } from '../handler.ts';

/** Users of an organization weighed against its policies for one activity, oldest first, at most. */
export const MAX_VOTER_CANDIDATES = 1000;

/**
 * Approval emails to one address at most, in a window: what an organization's activities may mail
 * to an address its root put on a user (once proven) is bounded like the codes sent to a contact.
 */
export const APPROVAL_EMAIL_BOUND: ApprovalEmailBound = { count: 10, windowSeconds: 3600 };

/** Where the engine says an approval email was skipped; Fastify's (pino) logger satisfies it. */
export interface ApprovalLogger {
  warn(object: object, message: string): void;
}

/** Longest summary of an intent, and longest value shown in it (characters). */
const SUMMARY_LENGTH = 300;
const VALUE_LENGTH = 60;

/** Fields never shown in a summary, whatever a handler's redaction left: their names say they may be secret. */
const SECRET_NAMES = /secret|passw|token|private|bundle|signature|otpcode|attestation/i;

/** Whether approval emails are queued: with an SMTP server, unless SIGNET_APPROVAL_EMAILS is false. */
export function approvalEmailsOn(config: Config): boolean {
  return config.smtpUrl !== undefined && config.approvalEmails !== false;
}

/** The waiting activity, as its email names it. */
export interface WaitingActivity {
  id: string;
  organizationId: string;
  type: string;
  createdAt: Date;
  /** The intent as stored (a handler's secrets already replaced). */
  intent: unknown;
  submitter: { userId: string; userName: string };
  /** Users who voted on it already (the submitter first): none of them is asked. */
  voted: readonly string[];
}

export interface ApprovalRequestInput {
  /** The organization's authority the activity was decided with. */
  authority: Authority;
  decided: DecidedActivity;
  /** Who approved it so far, the submitter first. */
  approvers: readonly Approver[];
  activity: WaitingActivity;
}

/**
 * The effects of the waiting activity's statement that ask who may vote on it (the requests, and the
 * lock taken before that statement, in its transaction, so the bound per address is exact); none
 * when approval emails are off. The requests are recorded at
 * the activity's moment (`activity.createdAt` for a new one, the vote's for one still waiting):
 * reportSkippedApprovals reads them by it once the statement committed.
 */
export async function approvalRequests(
  deps: { db: Queryable; config: Config },
  input: ApprovalRequestInput,
  now: Date,
): Promise<Effect[]> {
  const { config } = deps;
  const { activity } = input;
  // Only the organization's own users vote: a parent's authority, reaching into a sub-organization,
  // names none of them.
  if (!approvalEmailsOn(config) || input.authority.organizationId !== activity.organizationId.toLowerCase()) return [];
  const voterIds = await votersOf(deps.db, input);
  if (voterIds.length === 0) return [];
  // The addresses are locked first: the bound per address counts what concurrent requests wrote.
  return [
    lock('approvalAddresses', activity.organizationId, voterIds),
    write('requestApprovals', {
      organizationId: activity.organizationId,
      voterIds,
      exceptIds: activity.voted,
      content: {
        organizationId: activity.organizationId,
        activityId: activity.id,
        activityType: activity.type,
        summary: summaryOf(activity.type, activity.intent),
        ...(input.decided.summary ? { readable: input.decided.summary } : {}),
        submitter: activity.submitter,
        createdAt: activity.createdAt.toISOString(),
        link: `${config.publicUrl}/console/activities/${activity.id}`,
      },
      now,
      bound: APPROVAL_EMAIL_BOUND,
    }),
  ];
}

/**
 * After the statement of approvalRequests committed: a warning for each user whose approval email
 * for the activity, requested at `now`, was skipped because its address had APPROVAL_EMAIL_BOUND
 * emails in the window already. It names the activity and the user, never the address.
 */
export async function reportSkippedApprovals(deps: { db: Queryable; log?: ApprovalLogger | undefined }, activity: { id: string; organizationId: string }, now: Date): Promise<void> {
  if (!deps.log) return;
  for (const userId of await skippedApprovalRequests(deps.db, activity.id, now)) {
    deps.log.warn(
      { activityId: activity.id, organizationId: activity.organizationId, userId, limit: APPROVAL_EMAIL_BOUND.count, windowSeconds: APPROVAL_EMAIL_BOUND.windowSeconds },
      `approval email skipped: the user's address was sent ${APPROVAL_EMAIL_BOUND.count} approval emails within ${APPROVAL_EMAIL_BOUND.windowSeconds} seconds; the activity waits all the same`,
    );
  }
}

/** A stored waiting activity that `voterId`'s vote leaves waiting, as its email names it. */
export function waitingActivityOf(record: ActivityRecord, intent: unknown, voterId: string): WaitingActivity {
  const submitter = record.votes[0]!;
  return {
    id: record.id,
    organizationId: record.organizationId,
    type: record.type,
    createdAt: record.createdAt,
    intent,
    submitter: { userId: submitter.userId, userName: submitter.userName },
    voted: [...new Set([...record.votes.map((vote) => vote.userId), voterId])],
  };
}

/** A new activity that waits, as its email names it: its intent as it is stored (the handler's redaction). */
export function newWaitingActivity(
  handler: Pick<ActivityHandler, 'redact'>,
  fields: { id: string; organizationId: string; type: string; createdAt: Date; intent: unknown; submitter: { userId: string; userName: string } },
): WaitingActivity {
  const { userId, userName } = fields.submitter;
  return {
    id: fields.id,
    organizationId: fields.organizationId,
    type: fields.type,
    createdAt: fields.createdAt,
    intent: handler.redact ? handler.redact(fields.intent as Record<string, unknown>) : fields.intent,
    submitter: { userId, userName },
    voted: [userId],
  };
}

/**
 * Who may vote on the activity, but those who did: the root quorum's users, and the users (with an
 * email address proven for them, the first MAX_VOTER_CANDIDATES) an ALLOW policy's consensus counts.
 * Users are read only when a policy could count them.
 */
async function votersOf(db: Queryable, input: ApprovalRequestInput): Promise<string[]> {
  const { authority, decided, approvers, activity } = input;
  const voters = new Set(authority.rootQuorum.userIds);
  const policiesCount = !decided.rootQuorumOnly && authority.policies.some((policy) => policy.effect === 'EFFECT_ALLOW' && policy.consensus !== undefined);
  if (policiesCount) {
    const candidates = await readVoterCandidates(db, activity.organizationId, activity.voted, MAX_VOTER_CANDIDATES);
    for (const candidate of candidates) {
      if (!voters.has(candidate.id) && mayVoteOn(authority, decided, approvers, approverOf(candidate))) voters.add(candidate.id);
    }
  }
  for (const userId of activity.voted) voters.delete(userId);
  return [...voters];
}

/** A candidate as a policy's consensus sees a voter: the user, and each credential it could stamp with. */
function approverOf(candidate: VoterCandidate): Approver {
  return {
    user: { id: candidate.id, tags: candidate.tags, email: candidate.email, name: candidate.name },
    credentials: [
      ...candidate.apiKeys.map((key) => ({ id: key.id, user_id: candidate.id, type: apiKeyCredentialType(key.kind), public_key: key.publicKey, credential_id: '' })),
      ...candidate.authenticators.map((authenticator) => ({
        id: authenticator.id,
        user_id: candidate.id,
        type: 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR' as CredentialType,
        public_key: '',
        credential_id: authenticator.credentialId,
      })),
    ],
  };
}

/**
 * One line about an intent: the activity's kind, then its fields with plain values (text quoted and
 * cut, numbers, true or false; a list by its length), at most SUMMARY_LENGTH characters. Nested
 * objects and fields whose names say they may be secret are left out.
 */
export function summaryOf(type: string, intent: unknown): string {
  const kind = activityKind(type).toLowerCase().replaceAll('_', ' ');
  const fields =
    intent !== null && typeof intent === 'object' && !Array.isArray(intent)
      ? Object.entries(intent).flatMap(([name, value]) => {
          const shown = SECRET_NAMES.test(name) ? undefined : valueText(value);
          return shown === undefined ? [] : [`${name} ${shown}`];
        })
      : [];
  return cut(oneLine(fields.length > 0 ? `${kind}: ${fields.join(', ')}` : kind), SUMMARY_LENGTH);
}

function valueText(value: unknown): string | undefined {
  if (typeof value === 'string') return JSON.stringify(cut(oneLine(value), VALUE_LENGTH));
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.length === 1 ? '(1 item)' : `(${value.length} items)`;
  return undefined;
}

/** Control characters (line breaks among them) as spaces, runs of spaces as one. */
function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').replace(/ {2,}/g, ' ').trim();
}

function cut(text: string, length: number): string {
  const characters = [...text];
  return characters.length <= length ? text : `${characters.slice(0, length - 1).join('')}…`;
}
