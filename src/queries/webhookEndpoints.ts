// list_webhook_endpoints (@turnkey/http's listWebhookEndpoints): the organization's webhook
// endpoints, oldest first, without their secrets (shown once, at creation).
import { z } from 'zod';
import { MAX_WEBHOOK_ENDPOINTS, renderWebhookEndpoint, webhookEndpointSchema } from '../activities/handlers/webhooks/webhookEndpointPlans.ts';
import { listWebhookEndpointsFor } from '../store/webhookEndpoints.ts';
import { granted, type QueryHandler } from './query.ts';

export const listWebhookEndpoints: QueryHandler = {
  path: 'list_webhook_endpoints',
  description: `The organization's webhook endpoints, oldest first, without their secrets; there are at most ${MAX_WEBHOOK_ENDPOINTS}, so in one answer.`,
  example: { organizationId: '9f5e7c2a-3b1d-4e6f-8a9b-0c1d2e3f4a5b' },
  request: z.strictObject({
    organizationId: z.uuid({ message: 'must be the UUID of your organization' }).describe('Unique identifier of your organization'),
  }),
  answer: z.strictObject({
    webhookEndpoints: z.array(webhookEndpointSchema).max(MAX_WEBHOOK_ENDPOINTS).describe("The organization's webhook endpoints, oldest first"),
  }),
  async run(context, query: { organizationId: string }) {
    const { endpoints } = granted(context, await listWebhookEndpointsFor(context.db, context.principal.credential, query.organizationId));
    return { webhookEndpoints: endpoints!.map(renderWebhookEndpoint) };
  },
};
