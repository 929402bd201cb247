// The create_webhook_endpoint activity (ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT): an endpoint the
// organization's activity events are posted to, with its signing secret, which the answer to this
// request shows once (`webhookEndpoint.secret`) and the stored activity never holds. The endpoint is
// written with the activity in one statement, after the check, under the organization's lock, that
// the organization has room for it.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { invalidArgument } from '../../../errors.ts';
import { check, lock, write } from '../../../store/effects.ts';
import type { StoredWebhookEndpoint } from '../../../store/webhookEndpoints.ts';
import { newWebhookSecret } from '../../../wire/webhookSecret.ts';
import type { ActivityHandler } from '../../handler.ts';
import { objectExpected } from '../../wire/parameters.ts';
import {
  checkWebhookUrl,
  MAX_WEBHOOK_ENDPOINTS,
  renderWebhookEndpoint,
  subscriptionParameters,
  webhookEndpointSchema,
  webhookName,
  webhookUrl,
  WEBHOOK_EVENT_TYPES,
} from './webhookEndpointPlans.ts';

const parameters = z.strictObject(
  {
    url: webhookUrl(),
    name: webhookName(),
    subscriptions: z
      .array(subscriptionParameters, { error: 'must be an array of subscriptions' })
      .max(WEBHOOK_EVENT_TYPES.length, `may hold at most ${WEBHOOK_EVENT_TYPES.length} subscription (one per event type)`)
      .describe('The event types the endpoint receives; absent: ACTIVITY_UPDATES. [] subscribes to nothing (nothing is posted)')
      .optional(),
  },
  { error: objectExpected() },
);

const resultSchema = z.strictObject({
  endpointId: z.uuid().describe('Identifier of the new endpoint'),
  webhookEndpoint: webhookEndpointSchema
    .extend({
      secret: z
        .string()
        .describe(
          'The signing secret, `whsec_` and 32 bytes in base64: in the answer to the request that created the endpoint (or to the approval that executed it) only; "" when the activity is read again',
        ),
    })
    .describe('The new endpoint, with its signing secret shown this once'),
});

export const createWebhookEndpoint: ActivityHandler<typeof parameters, z.infer<typeof resultSchema>> = {
  path: 'create_webhook_endpoint',
  activityType: 'ACTIVITY_TYPE_CREATE_WEBHOOK_ENDPOINT',
  resource: 'WEBHOOK_ENDPOINT',
  action: 'CREATE',
  reasons: [],
  summary:
    '`{url, name, subscriptions?: [{eventType: "ACTIVITY_UPDATES", filtersJson?, isActive?}]}`: an endpoint the organization\'s activity events are posted to (`https`, a public host; at most 10 per organization); result `createWebhookEndpointResult {endpointId, webhookEndpoint}`, with the signing secret `webhookEndpoint.secret` in this answer only ([Webhooks](webhooks.md))',
  description:
    "Creates a webhook endpoint: each activity of the organization that starts waiting for approvals, completes, fails or is rejected is then posted to its URL, signed per the Standard Webhooks specification with the endpoint's secret, which this answer shows once. " +
    `An \`http://\` URL or a host that is not a public address is a 400 (unless the deployment allows it), as is an event type other than ACTIVITY_UPDATES and an endpoint past the ${MAX_WEBHOOK_ENDPOINTS} an organization may have.`,
  intentKey: 'createWebhookEndpointIntent',
  resultKey: 'createWebhookEndpointResult',
  parameters,
  resultSchema,
  example: { url: 'https://example.com/webhooks/signet', name: 'Activity feed', subscriptions: [{ eventType: 'ACTIVITY_UPDATES' }] },

  async execute(context, intent) {
    const { organizationId, now } = context;
    checkWebhookUrl(intent.url, context.config, 'parameters.url');
    const endpointId = randomUUID();
    const secret = newWebhookSecret(context.secret, endpointId);
    const subscriptions = (intent.subscriptions ?? [{ eventType: 'ACTIVITY_UPDATES' }]).map((s) => ({
      eventType: s.eventType,
      filtersJson: '',
      isActive: s.isActive ?? true,
    }));
    const endpoint: StoredWebhookEndpoint = { endpointId, organizationId, url: intent.url, name: intent.name, isActive: true, subscriptions, createdAt: now, updatedAt: now };
    return {
      result: { endpointId, webhookEndpoint: { ...renderWebhookEndpoint(endpoint), secret: secret.text } },
      secretFields: ['webhookEndpoint.secret'],
      effects: [
        // Concurrent creations count one after the other, so the bound is exact.
        lock('organization', organizationId),
        check(
          'webhookEndpointsRoomFor',
          [organizationId, MAX_WEBHOOK_ENDPOINTS],
          invalidArgument(`the organization has ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints, the most it may have; delete one first`),
        ),
        write('insertWebhookEndpoint', { ...endpoint, sealedSecret: secret.sealed }, now),
      ],
    };
  },
};
