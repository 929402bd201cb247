// The delete_webhook_endpoint activity (ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT): removes an endpoint of
// the organization; nothing more is posted to it, and its messages still queued fail at delivery.
// One that is not the organization's is a 404.
import { z } from 'zod';
import { write } from '../../../store/effects.ts';
import type { ActivityHandler } from '../../handler.ts';
import { endpointCheck, endpointId } from './webhookEndpointPlans.ts';

const parameters = z.strictObject({
  endpointId: endpointId.describe("The endpoint to delete; another organization's is a 404"),
});
const resultSchema = z.strictObject({ endpointId: z.uuid().describe('The deleted endpoint') });

export const deleteWebhookEndpoint: ActivityHandler<typeof parameters, z.infer<typeof resultSchema>> = {
  path: 'delete_webhook_endpoint',
  activityType: 'ACTIVITY_TYPE_DELETE_WEBHOOK_ENDPOINT',
  resource: 'WEBHOOK_ENDPOINT',
  action: 'DELETE',
  reasons: ['WEBHOOK_ENDPOINT_NOT_FOUND'],
  summary: '`{endpointId}`; result `deleteWebhookEndpointResult {endpointId}`',
  description: "Deletes a webhook endpoint of the organization: nothing more is posted to it. One that is not the organization's is a 404.",
  intentKey: 'deleteWebhookEndpointIntent',
  resultKey: 'deleteWebhookEndpointResult',
  parameters,
  resultSchema,
  example: { endpointId: '6c1f2e3d-4b5a-4c7d-8e9f-0a1b2c3d4e5f' },

  async execute(context, intent) {
    const id = intent.endpointId.toLowerCase();
    return {
      result: { endpointId: id },
      effects: [endpointCheck(context.organizationId, id), write('deleteWebhookEndpoint', context.organizationId, id)],
    };
  },
};
