// The delivery state of an organization's OTP messages, read from the outbox for operators:
// queued, sending, retrying, sent or failed, with attempts, the provider's message id and the
// last error. Failed messages stay listed; nothing is dropped silently.
import { z } from 'zod';
import { listOutboxMessages, OUTBOX_STATUSES } from '../store/outbox.ts';
import type { Queryable } from '../store/db.ts';
import { wholeNumberPattern } from '../wire/numberPattern.ts';
import type { Delivery } from './answers.ts';
import { requireOrganization } from './organizations.ts';

/** Which messages to list: the admin API's query (…/deliveries?status=&otpId=&limit=), with the OpenAPI document's descriptions. */
export const deliveryFilter = z.strictObject({
  status: z
    .enum(OUTBOX_STATUSES, { error: `must be one of ${OUTBOX_STATUSES.join(', ')}` })
    .describe('Only messages in this delivery state')
    .optional(),
  otpId: z.uuid({ message: 'must be a UUID' }).describe('Only the message of this OTP').optional(),
  limit: z
    .string()
    .regex(/^[1-9][0-9]{0,2}$/, 'must be a whole number from 1 to 500')
    .transform(Number)
    .refine((n) => n <= 500, 'must be a whole number from 1 to 500')
    .meta({ pattern: wholeNumberPattern(500), description: 'At most this many messages, newest first, a whole number from 1 to 500' })
    .default(50),
});
export type DeliveryFilter = z.output<typeof deliveryFilter>;

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
