// The activity object on the wire (DESIGN §2.4): the seed's nested shape plus the flat keys that
// existing clients read. One stored record renders the same bytes on every read.
import type { AppProof } from './appProofs.ts';
import type { ActivityHandler } from './handler.ts';

export interface VoteRecord {
  id: string;
  userId: string;
  userName: string;
  activityId: string;
  selection: string;
  message: string;
  publicKey: string;
  signature: string;
  scheme: string;
  createdAt: Date;
}

export interface ActivityRecord {
  id: string;
  organizationId: string;
  type: string;
  status: string;
  fingerprint: string;
  timestampMs: string;
  intent: object;
  result: object;
  votes: VoteRecord[];
  createdAt: Date;
  updatedAt: Date;
  /** Present when the activity was submitted with generateAppProofs: true. */
  appProofs?: AppProof[];
}

function renderVote(vote: VoteRecord) {
  return {
    id: vote.id,
    userId: vote.userId,
    user: { userId: vote.userId, userName: vote.userName },
    activityId: vote.activityId,
    selection: vote.selection,
    message: vote.message,
    publicKey: vote.publicKey,
    signature: vote.signature,
    scheme: vote.scheme,
    createdAt: vote.createdAt.toISOString(),
  };
}

export function renderActivity(handler: ActivityHandler, record: ActivityRecord) {
  const intent = { [handler.intentKey]: record.intent };
  const result = { [handler.resultKey]: record.result };
  const votes = record.votes.map(renderVote);
  // A completed activity can no longer be approved or rejected.
  const open = record.status !== 'ACTIVITY_STATUS_COMPLETED' && record.status !== 'ACTIVITY_STATUS_FAILED';
  const common = {
    id: record.id,
    organizationId: record.organizationId,
    status: record.status,
    type: record.type,
  };
  const bookkeeping = {
    votes,
    fingerprint: record.fingerprint,
    canApprove: open,
    canReject: open,
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
  };
  return {
    activity: {
      ...common,
      timestampMs: record.timestampMs,
      intent,
      result: { activity: { ...common, intent, result, ...bookkeeping }, ...result },
      ...bookkeeping,
      ...(record.appProofs ? { appProofs: record.appProofs } : {}),
    },
  };
}
