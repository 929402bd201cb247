// The delivery state of an organization's OTP messages, read from the outbox for operators:
// queued, sending, retrying, sent or failed, with attempts, the provider's message id and the
// last error. Failed messages stay listed; nothing is dropped silently.
import type { Channel, OutboxStatus } from '../delivery/outbox.ts';
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

interface DeliveryRow {
  id: string;
  otp_id: string | null;
  channel: Channel;
  to: string;
  status: OutboxStatus;
  attempts: number;
  provider_message_id: string | null;
  last_error: string | null;
  logo_error: string | null;
  created_at: Date;
  updated_at: Date;
  sent_at: Date | null;
  next_attempt_at: Date;
}

export async function listDeliveries(db: Queryable, organizationId: string, filter: DeliveryFilter): Promise<Delivery[]> {
  await requireOrganization(db, organizationId);
  const rows = await db.query<DeliveryRow>(
    `SELECT id, otp_id, channel, payload->>'to' AS to, status, attempts, provider_message_id, last_error,
            logo_error, created_at, updated_at, sent_at, next_attempt_at
       FROM outbox
      WHERE organization_id = $1
        AND ($2::text IS NULL OR status = $2)
        AND ($3::uuid IS NULL OR otp_id = $3)
      ORDER BY created_at DESC, id DESC
      LIMIT $4`,
    [organizationId, filter.status ?? null, filter.otpId ?? null, filter.limit],
  );
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
