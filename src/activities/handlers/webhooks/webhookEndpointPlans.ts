// What create_webhook_endpoint, update_webhook_endpoint and delete_webhook_endpoint share: the fields
// of an endpoint as they take them, the URL rule, the endpoint object as answers show it (the
// list_webhook_endpoints query renders it too), and the check of an endpoint that must be the
// organization's.
import { z } from 'zod';
import type { Config } from '../../../config.ts';
import { invalidField, notFound } from '../../../errors.ts';
import type { StoredWebhookEndpoint } from '../../../store/webhookEndpoints.ts';
import { check, type Effect } from '../../../store/effects.ts';
import { literalHostProblem } from '../../../wire/publicAddress.ts';
import { NOT_STORABLE, storable, trimmedName } from '../../wire/parameters.ts';

/** Endpoints an organization may have: each activity of the organization is posted to each. */
export const MAX_WEBHOOK_ENDPOINTS = 10;
export const MAX_WEBHOOK_NAME_LENGTH = 256;
export const MAX_WEBHOOK_URL_LENGTH = 2048;
/** The event types Signet sends. */
export const WEBHOOK_EVENT_TYPES = ['ACTIVITY_UPDATES'] as const;

export const endpointId = z.uuid({ message: 'must be a webhook endpoint id (a UUID)' });

export const webhookName = () =>
  trimmedName(MAX_WEBHOOK_NAME_LENGTH).describe(`Name of the endpoint, 1 to ${MAX_WEBHOOK_NAME_LENGTH} characters once spaces around it are trimmed`);

/**
 * A URL as written: at most MAX_WEBHOOK_URL_LENGTH characters, https (http only where the deployment
 * allows it, checked at execution: webhookUrlProblem), without user or password. Stored as given.
 */
export const webhookUrl = () =>
  z
    .string({ error: 'must be a string' })
    .max(MAX_WEBHOOK_URL_LENGTH, { error: `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`, abort: true })
    .refine(storable, { error: NOT_STORABLE, abort: true })
    .superRefine((value, ctx) => {
      const url = parsedUrl(value);
      if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
        ctx.addIssue({ code: 'custom', message: 'must be an https:// URL, e.g. https://example.com/webhooks/signet' });
      } else if (url.username || url.password) {
        ctx.addIssue({ code: 'custom', message: 'must not carry a user or password; authenticate deliveries by their signature' });
      }
    })
    .describe(
      `Where events are posted: an \`https://\` URL, at most ${MAX_WEBHOOK_URL_LENGTH} characters, whose host is a name or a public unicast address ` +
        '(checked again after DNS at each delivery). `http://`, loopback and private addresses only where the deployment sets SIGNET_WEBHOOK_ALLOW_INSECURE',
    );

function parsedUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

/** Why this deployment refuses the URL (a syntactically valid one): http, or a literal host that is not public. */
export function webhookUrlProblem(value: string, config: Config): string | undefined {
  if (config.webhookAllowInsecure) return undefined;
  const url = new URL(value);
  if (url.protocol !== 'https:') return 'must be an https:// URL (http:// is accepted only where the deployment sets SIGNET_WEBHOOK_ALLOW_INSECURE)';
  const problem = literalHostProblem(url.hostname);
  return problem ? `${problem}; webhooks are posted to public addresses only` : undefined;
}

/** A 400 naming `field` when this deployment refuses the URL. */
export function checkWebhookUrl(value: string, config: Config, field: string): void {
  const problem = webhookUrlProblem(value, config);
  if (problem) throw invalidField(field, problem);
}

/** One subscription as create_webhook_endpoint takes it: an event type Signet sends, no filters. */
export const subscriptionParameters = z.strictObject({
  eventType: z
    .string({ error: 'must be a string' })
    .refine((value) => (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value), {
      error: (issue) => `must be ${WEBHOOK_EVENT_TYPES.join(' or ')}, the event types Signet sends; got ${JSON.stringify(issue.input).slice(0, 80)}`,
    })
    .describe(`The event type: ${WEBHOOK_EVENT_TYPES.join(', ')} (an activity waits for approvals, completes, fails or is rejected)`),
  filtersJson: z
    .string({ error: 'must be a string' })
    .refine((value) => value === '' || value === '{}', { error: 'Signet does not filter events: send "" or "{}", or leave it out' })
    .describe('"" or "{}": Signet sends every activity of the organization')
    .optional(),
  isActive: z.boolean({ error: 'must be true or false' }).describe('Whether events of this type are sent (default true)').optional(),
});

export const subscriptionSchema = z.strictObject({
  eventType: z.string().describe('The event type, ACTIVITY_UPDATES'),
  filtersJson: z.string().describe('"" (no filter)'),
  isActive: z.boolean().describe('Whether events of this type are sent'),
});

export const webhookEndpointSchema = z
  .strictObject({
    endpointId: z.uuid().describe('Identifier of the endpoint'),
    organizationId: z.uuid().describe('The organization whose activities it receives'),
    url: z.string().describe('Where events are posted'),
    name: z.string().describe('Name of the endpoint'),
    isActive: z.boolean().describe('Whether events are posted to it'),
    subscriptions: z.array(subscriptionSchema).describe('The event types it receives'),
    createdAt: z.iso.datetime().describe('Creation time (RFC 3339)'),
    updatedAt: z.iso.datetime().describe('Time of the last update (RFC 3339)'),
  })
  .meta({ id: 'WebhookEndpoint', description: "A webhook endpoint of the organization: where its activities' events are posted, signed with the endpoint's secret" });

export type RenderedWebhookEndpoint = z.infer<typeof webhookEndpointSchema>;

/** An endpoint on the wire; times in RFC 3339 like every Signet time. */
export function renderWebhookEndpoint(endpoint: StoredWebhookEndpoint): RenderedWebhookEndpoint {
  return {
    endpointId: endpoint.endpointId,
    organizationId: endpoint.organizationId,
    url: endpoint.url,
    name: endpoint.name,
    isActive: endpoint.isActive,
    subscriptions: endpoint.subscriptions.map(({ eventType, filtersJson, isActive }) => ({ eventType, filtersJson, isActive })),
    createdAt: endpoint.createdAt.toISOString(),
    updatedAt: endpoint.updatedAt.toISOString(),
  };
}

/** The 404 of an endpoint that is not the organization's. */
export function endpointNotFound(organizationId: string, id: string) {
  return notFound('WEBHOOK_ENDPOINT_NOT_FOUND', `parameters.endpointId: no webhook endpoint ${id} in organization ${organizationId}`);
}

/** The check that the endpoint is (still, in the statement) the organization's. */
export function endpointCheck(organizationId: string, id: string): Effect {
  return check('webhookEndpointOfOrganization', [organizationId, id], endpointNotFound(organizationId, id));
}
