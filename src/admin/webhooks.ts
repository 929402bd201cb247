// Operator actions on an organization's webhook endpoints (which its users manage with the
// create/update/delete_webhook_endpoint activities): list them, and post a test event to one — queued
// in the outbox like any event (signed, delivered by the worker with its checks) and followed until
// its first attempt is recorded, so `signet webhook test` prints what the receiver answered.
import { randomUUID } from 'node:crypto';
import { notFound } from '../errors.ts';
import type { Queryable } from '../store/db.ts';
import { enqueue, findOutboxMessage } from '../store/outbox.ts';
import { findWebhookEndpoint, listWebhookEndpoints as listEndpoints } from '../store/webhookEndpoints.ts';
import type { WebhookEndpointSummary, WebhookTest } from './answers.ts';
import { requireOrganization } from './organizations.ts';

/** The synthetic activity a test event carries: the nil UUID, so a receiver can tell it from a real one. */
export const TEST_ACTIVITY_ID = '00000000-0000-0000-0000-000000000000';
export const TEST_ACTIVITY_TYPE = 'ACTIVITY_TYPE_WEBHOOK_TEST';

/** How long the admin API waits for the test event's first attempt: the sender's timeout and some. */
const TEST_WAIT_MS = 15_000;

export async function listWebhookEndpoints(db: Queryable, organizationId: string): Promise<WebhookEndpointSummary[]> {
  await requireOrganization(db, organizationId);
  return (await listEndpoints(db, organizationId)).map((endpoint) => ({
    endpointId: endpoint.endpointId,
    name: endpoint.name,
    url: endpoint.url,
    isActive: endpoint.isActive,
    eventTypes: endpoint.subscriptions.filter((s) => s.isActive).map((s) => s.eventType),
    createdAt: endpoint.createdAt.toISOString(),
  }));
}

/**
 * Queues a test event for the endpoint (ACTIVITY_UPDATES, `test: true`, a synthetic completed
 * activity), wakes the worker and waits until its first attempt is recorded (or TEST_WAIT_MS pass):
 * the message's state, the receiver's answer, the error. A failed attempt is retried as any event is.
 */
export async function testWebhookEndpoint(db: Queryable, organizationId: string, endpointId: string, wake: () => void): Promise<WebhookTest> {
  await requireOrganization(db, organizationId);
  const endpoint = await findWebhookEndpoint(db, organizationId, endpointId);
  if (!endpoint) throw notFound('WEBHOOK_ENDPOINT_NOT_FOUND', `no webhook endpoint ${endpointId} in organization ${organizationId}; \`signet webhook list --org ${organizationId}\` lists them`);
  const now = new Date().toISOString();
  const event = {
    type: 'ACTIVITY_UPDATES',
    test: true,
    activity: { id: TEST_ACTIVITY_ID, organizationId, status: 'ACTIVITY_STATUS_COMPLETED', type: TEST_ACTIVITY_TYPE, fingerprint: '', createdAt: now, updatedAt: now },
  };
  const outboxId = await enqueue(db, { id: randomUUID(), organizationId, channel: 'webhook', payload: { endpointId: endpoint.endpointId, to: endpoint.url, event } });
  wake();
  const deadline = Date.now() + TEST_WAIT_MS;
  for (;;) {
    const message = (await findOutboxMessage(db, organizationId, outboxId))!;
    const attempted = message.status === 'sent' || message.status === 'failed' || message.status === 'retrying';
    if (attempted || Date.now() >= deadline) {
      return {
        outboxId,
        endpointId: endpoint.endpointId,
        url: endpoint.url,
        status: message.status,
        attempts: message.attempts,
        receiverAnswer: message.provider_message_id,
        lastError: message.last_error,
      };
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
