// The update_webhook_endpoint activity (ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT): changes an endpoint's
// URL, name or whether it is active (an inactive one is sent nothing, and its messages still queued
// fail at delivery); the fields absent stay. Its secret stays. One that is not the organization's is
// a 404.
import { z } from 'zod';
import { write } from '../../../store/effects.ts';
import { findWebhookEndpoint } from '../../../store/webhookEndpoints.ts';
import type { ActivityHandler } from '../../handler.ts';
import { objectExpected } from '../../wire/parameters.ts';
import {
  checkWebhookUrl,
  endpointCheck,
  endpointId,
  endpointNotFound,
  renderWebhookEndpoint,
  webhookEndpointSchema,
  webhookName,
  webhookUrl,
} from './webhookEndpointPlans.ts';

const parameters = z.strictObject(
  {
    endpointId: endpointId.describe("The endpoint to change; another organization's is a 404"),
    url: webhookUrl().optional(),
    name: webhookName().optional(),
    isActive: z.boolean({ error: 'must be true or false' }).describe('Whether events are posted to it').optional(),
  },
  { error: objectExpected() },
);

const resultSchema = z.strictObject({
  endpointId: z.uuid().describe('The endpoint changed'),
  webhookEndpoint: webhookEndpointSchema.describe('The endpoint as it is now'),
});

export const updateWebhookEndpoint: ActivityHandler<typeof parameters, z.infer<typeof resultSchema>> = {
  path: 'update_webhook_endpoint',
  activityType: 'ACTIVITY_TYPE_UPDATE_WEBHOOK_ENDPOINT',
  resource: 'WEBHOOK_ENDPOINT',
  action: 'UPDATE',
  reasons: ['WEBHOOK_ENDPOINT_NOT_FOUND'],
  summary: '`{endpointId, url?, name?, isActive?}`; result `updateWebhookEndpointResult {endpointId, webhookEndpoint}`',
  description:
    "Changes a webhook endpoint's URL, name or whether it is active; the fields left out stay, and so does its secret. The URL is checked as create_webhook_endpoint checks it. One that is not the organization's is a 404.",
  intentKey: 'updateWebhookEndpointIntent',
  resultKey: 'updateWebhookEndpointResult',
  parameters,
  resultSchema,
  example: { endpointId: '6c1f2e3d-4b5a-4c7d-8e9f-0a1b2c3d4e5f', isActive: false },

  async execute(context, intent) {
    const { organizationId, now } = context;
    const id = intent.endpointId.toLowerCase();
    if (intent.url !== undefined) checkWebhookUrl(intent.url, context.config, 'parameters.url');
    const current = await findWebhookEndpoint(context.db, organizationId, id);
    if (!current) throw endpointNotFound(organizationId, id);
    const change = {
      ...(intent.url !== undefined ? { url: intent.url } : {}),
      ...(intent.name !== undefined ? { name: intent.name } : {}),
      ...(intent.isActive !== undefined ? { isActive: intent.isActive } : {}),
    };
    return {
      result: { endpointId: id, webhookEndpoint: renderWebhookEndpoint({ ...current, ...change, updatedAt: now }) },
      // A concurrent deletion commits first: this statement then finds it gone.
      effects: [endpointCheck(organizationId, id), write('updateWebhookEndpoint', organizationId, id, change, now)],
    };
  },
};
