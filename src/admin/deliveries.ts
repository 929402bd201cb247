// The delivery state of an organization's OTP messages, read from the outbox for operators:
// queued, sending, retrying, sent or failed, with attempts, the provider's message id and the
// last error. Failed messages stay listed; nothing is dropped silently.
import { listOutboxMessages, type Channel, type OutboxStatus } from '../store/outbox.ts';
import type { Queryable } from '../store/db.ts';
import { requireOrganization } from './organizations.ts';

export interface Delivery {
  outboxId: string;
  otpId: string | null;
  channel: Channel;
  /** The recipient: an email address or an E.164 phone number. */
  to: string;
  status: OutboxStatus;
  attempts: number;
  providerMessageId: string | null;
  lastError: string | null;
  /** Why an email went out without its logo. */
  logoError: string | null;
  createdAt: string;
  updatedAt: string;
  sentAt: string | null;
  /** When a queued or retrying message is due next. */
  nextAttemptAt: string | null;
}

export interface DeliveryFilter {
  status?: OutboxStatus;
  otpId?: string;
  /** At most this many, newest first. */
  limit: number;
}

export async function listDeliveries(db: Queryable, organizationId: string, filter: DeliveryFilter): Promise<Delivery[]> {
  await requireOrganization(db, organizationId);
  const rows = await listOutboxMessages(db, organizationId, filter);
  return rows.map((row) => ({
    outboxId: row.id,
    otpId: row.otp_id,
    channel: row.channel,
    to: row.to,
    status: row.status,
    attempts: row.attempts,
    providerMessageId: row.provider_message_id,
    lastError: row.last_error,
    logoError: row.logo_error,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    sentAt: row.sent_at?.toISOString() ?? null,
    nextAttemptAt: row.status === 'queued' || row.status === 'retrying' ? row.next_attempt_at.toISOString() : null,
  }));
}
