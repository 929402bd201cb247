// Webhook endpoints (table webhook_endpoints): where an organization's activity events are posted,
// each with its subscriptions and its signing secret sealed by the caller (never read back but by the
// delivery worker). Here: the rows an activity's statement writes (create, update, delete) and the
// guards they depend on; the fan-out of an activity's event to the outbox, one message per active
// endpoint subscribed, as a row of the statement that changes the activity's status; the reads.
import { runWithCredential, type CredentialState, type CredentialUse } from './credentials.ts';
import type { Queryable } from './db.ts';
import { run, sql, type Sql } from './sql.ts';

/** One subscription of an endpoint, as stored and answered. */
export interface WebhookSubscription {
  eventType: string;
  filtersJson: string;
  isActive: boolean;
}

export interface StoredWebhookEndpoint {
  endpointId: string;
  organizationId: string;
  url: string;
  name: string;
  isActive: boolean;
  subscriptions: WebhookSubscription[];
  createdAt: Date;
  updatedAt: Date;
}

/** An endpoint to write, with its secret already sealed. */
export type NewWebhookEndpoint = Omit<StoredWebhookEndpoint, 'createdAt' | 'updatedAt'> & { sealedSecret: string };

/** What update_webhook_endpoint changes: each field given is set, each absent kept. */
export type WebhookEndpointChange = Partial<Pick<StoredWebhookEndpoint, 'url' | 'name' | 'isActive'>>;

interface EndpointRow {
  endpoint_id: string;
  organization_id: string;
  url: string;
  name: string;
  active: boolean;
  subscriptions: WebhookSubscription[];
  created_at: Date | string;
  updated_at: Date | string;
}

const COLUMNS = sql`e.endpoint_id, e.organization_id, e.url, e.name, e.active, e.subscriptions, e.created_at, e.updated_at`;

function fromRow(row: EndpointRow): StoredWebhookEndpoint {
  return {
    endpointId: row.endpoint_id,
    organizationId: row.organization_id,
    url: row.url,
    name: row.name,
    isActive: row.active,
    subscriptions: row.subscriptions,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

/** A guard condition: the organization has room for one more endpoint with at most `max` in all. */
export function webhookEndpointsRoomFor(organizationId: string, max: number): Sql {
  return sql`(SELECT count(*) FROM webhook_endpoints WHERE organization_id = ${organizationId}::uuid) < ${max}::int`;
}

/** A guard condition: the endpoint is one of the organization's. `endpointId` must be a UUID. */
export function webhookEndpointOfOrganization(organizationId: string, endpointId: string): Sql {
  return sql`EXISTS (SELECT 1 FROM webhook_endpoints WHERE endpoint_id = ${endpointId}::uuid AND organization_id = ${organizationId}::uuid)`;
}

/** A row of an activity's statement (`activity` yields its row): the new endpoint, created at `now`. */
export function insertWebhookEndpointOfActivity(activity: Sql, endpoint: NewWebhookEndpoint, now: Date): Sql {
  return sql`INSERT INTO webhook_endpoints (endpoint_id, organization_id, url, name, active, subscriptions, sealed_secret, created_at, updated_at)
             SELECT ${endpoint.endpointId}::uuid, ${endpoint.organizationId}::uuid, ${endpoint.url}, ${endpoint.name}, ${endpoint.isActive},
                    ${JSON.stringify(endpoint.subscriptions)}::jsonb, ${endpoint.sealedSecret}, ${now}::timestamptz, ${now}::timestamptz
               FROM ${activity}`;
}

/** A row of an activity's statement: sets the fields of the organization's endpoint that `change` gives, updated at `now`. */
export function updateWebhookEndpointOfActivity(activity: Sql, organizationId: string, endpointId: string, change: WebhookEndpointChange, now: Date): Sql {
  return sql`UPDATE webhook_endpoints
                SET url = coalesce(${change.url ?? null}::text, url),
                    name = coalesce(${change.name ?? null}::text, name),
                    active = coalesce(${change.isActive ?? null}::boolean, active),
                    updated_at = ${now}::timestamptz
              WHERE organization_id = ${organizationId}::uuid AND endpoint_id = ${endpointId}::uuid AND EXISTS (SELECT 1 FROM ${activity})`;
}

/** A row of an activity's statement: removes the organization's endpoint. Messages already queued for it fail at delivery. */
export function deleteWebhookEndpointOfActivity(activity: Sql, organizationId: string, endpointId: string): Sql {
  return sql`DELETE FROM webhook_endpoints
              WHERE organization_id = ${organizationId}::uuid AND endpoint_id = ${endpointId}::uuid AND EXISTS (SELECT 1 FROM ${activity})`;
}

/**
 * A row of the statement that writes an activity's status (`activity` yields its row once written):
 * one outbox message on channel 'webhook' for each active endpoint of the organization with an
 * active subscription to `eventType`: its payload the endpoint's id, its URL as the message's `to`
 * (what operators see; the worker posts to the endpoint's URL as it is at each attempt) and `event`. The message's
 * id is the event's id for its receiver. An organization without endpoints finds none in the index
 * and queues nothing.
 */
export function queueEndpointEvents(activity: Sql, organizationId: string, eventType: string, event: object): Sql {
  const subscribed = JSON.stringify([{ eventType, isActive: true }]);
  return sql`INSERT INTO outbox (id, organization_id, channel, payload, status, next_attempt_at)
             SELECT gen_random_uuid(), e.organization_id, 'webhook',
                    jsonb_build_object('endpointId', e.endpoint_id, 'to', e.url, 'event', ${JSON.stringify(event)}::jsonb), 'queued', now()
               FROM ${activity}, webhook_endpoints e
              WHERE e.organization_id = ${organizationId}::uuid AND e.active AND e.subscriptions @> ${subscribed}::jsonb`;
}

/** The organization's endpoints, oldest first, on behalf of a credential checked in the same statement. */
export async function listWebhookEndpointsFor(
  db: Queryable,
  use: CredentialUse,
  organizationId: string,
): Promise<{ refused?: CredentialState; endpoints?: StoredWebhookEndpoint[] }> {
  const { refused, rows } = await runWithCredential<EndpointRow>(
    db,
    use,
    sql`SELECT ${COLUMNS} FROM webhook_endpoints e WHERE e.organization_id = ${organizationId}::uuid`,
  );
  // The credential check wraps the statement in a join, which need not keep an order: sorted here.
  const inOrder = (a: StoredWebhookEndpoint, b: StoredWebhookEndpoint) =>
    a.createdAt.getTime() - b.createdAt.getTime() || (a.endpointId < b.endpointId ? -1 : a.endpointId > b.endpointId ? 1 : 0);
  return refused ? { refused } : { endpoints: rows.map(fromRow).sort(inOrder) };
}

/** The organization's endpoints, oldest first (the admin API's test delivery). */
export async function listWebhookEndpoints(db: Queryable, organizationId: string): Promise<StoredWebhookEndpoint[]> {
  const rows = await run<EndpointRow>(db, sql`SELECT ${COLUMNS} FROM webhook_endpoints e WHERE e.organization_id = ${organizationId}::uuid ORDER BY e.created_at, e.endpoint_id`);
  return rows.map(fromRow);
}

/** What the delivery worker reads of an endpoint at each attempt: where to post and the sealed secret; undefined once deleted. */
export async function findWebhookEndpointForDelivery(
  db: Queryable,
  endpointId: string,
): Promise<(StoredWebhookEndpoint & { sealedSecret: string }) | undefined> {
  const [row] = await run<EndpointRow & { sealed_secret: string }>(
    db,
    sql`SELECT ${COLUMNS}, e.sealed_secret FROM webhook_endpoints e WHERE e.endpoint_id = ${endpointId}::uuid`,
  );
  return row ? { ...fromRow(row), sealedSecret: row.sealed_secret } : undefined;
}

/** The organization's endpoint, as an activity reads it before it plans a change; undefined when it has none such. */
export async function findWebhookEndpoint(db: Queryable, organizationId: string, endpointId: string): Promise<StoredWebhookEndpoint | undefined> {
  const [row] = await run<EndpointRow>(
    db,
    sql`SELECT ${COLUMNS} FROM webhook_endpoints e WHERE e.organization_id = ${organizationId}::uuid AND e.endpoint_id = ${endpointId}::uuid`,
  );
  return row ? fromRow(row) : undefined;
}
