// The OpenAPI 3.1 document, generated from the same zod schemas that validate requests, and a
// plain reference page rendered from it (/docs: no scripts, no outside assets).
import { z } from 'zod';
import type { ActivityHandler } from '../activities/handler.ts';
import { envelopeSchema } from '../activities/envelope.ts';
import type { QueryHandler } from '../queries/query.ts';
import { adminSchemas } from './adminRoutes.ts';
import { escapeHtml } from '../otp/messages.ts';

type JsonSchema = Record<string, unknown>;

function jsonSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });

const PUBLIC_ERRORS = {
  '400': errorResponse('Malformed JSON, a schema or rule violation (fields named in details), or the wrong type'),
  '401': errorResponse('Missing or malformed stamp, bad signature, unknown/revoked/expired credential, stale timestampMs'),
  '403': errorResponse('A valid credential of another organization'),
  '404': errorResponse('Unknown path or referenced object'),
  '413': errorResponse('Body over 1 MiB'),
  '415': errorResponse('Not application/json'),
  '429': errorResponse('Rate limit; see Retry-After'),
  '500': errorResponse('Server fault; nothing was stored'),
  '503': errorResponse('Database unavailable; nothing was stored'),
};

const EXAMPLE_ORGANIZATION = '9f5e7c2a-3b1d-4e6f-8a9b-0c1d2e3f4a5b';

function activityOperation(handler: ActivityHandler) {
  const envelope = jsonSchema(envelopeSchema);
  const properties = envelope.properties as Record<string, JsonSchema>;
  return {
    operationId: handler.path,
    summary: `Submit ${handler.activityType}`,
    tags: ['activities'],
    security: [{ ApiKeyStamp: [] }, { WebAuthnStamp: [] }],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: {
            ...envelope,
            properties: { ...properties, type: { type: 'string', const: handler.activityType }, parameters: jsonSchema(handler.parameters) },
          },
          example: { type: handler.activityType, timestampMs: '1795377000000', organizationId: EXAMPLE_ORGANIZATION, parameters: handler.example },
        },
      },
    },
    responses: {
      '200': {
        description: `The activity (new, or the stored one for a body submitted before); result under ${handler.resultKey}`,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/ActivityResponse' } } },
      },
      ...PUBLIC_ERRORS,
    },
  };
}

function queryOperation(query: QueryHandler) {
  return {
    operationId: query.path,
    summary: `Query ${query.path}`,
    tags: ['queries'],
    security: [{ ApiKeyStamp: [] }, { WebAuthnStamp: [] }],
    requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(query.request), example: query.example } } },
    responses: { '200': { description: 'The answer', content: { 'application/json': { schema: { type: 'object' } } } }, ...PUBLIC_ERRORS },
  };
}

const ADMIN_ROUTES: Array<{ method: 'get' | 'post' | 'delete'; path: string; summary: string; body?: z.ZodType; query?: z.ZodType }> = [
  { method: 'post', path: '/admin/v1/organizations', summary: 'Create an organization with a root user and API key', body: adminSchemas.organization },
  { method: 'post', path: '/admin/v1/organizations/{organizationId}/users', summary: 'Create a user with an email and phone number, each unique in the organization', body: adminSchemas.user },
  { method: 'get', path: '/admin/v1/organizations/{organizationId}/users', summary: 'List users not removed, newest first' },
  { method: 'get', path: '/admin/v1/organizations/{organizationId}/users/{userId}', summary: 'Show a user' },
  { method: 'delete', path: '/admin/v1/organizations/{organizationId}/users/{userId}', summary: 'Remove a user and revoke all its API keys and authenticators at once' },
  { method: 'post', path: '/admin/v1/organizations/{organizationId}/api-keys', summary: 'Create an API key', body: adminSchemas.apiKey },
  { method: 'delete', path: '/admin/v1/organizations/{organizationId}/api-keys/{apiKeyId}', summary: 'Revoke an API key' },
  { method: 'post', path: '/admin/v1/organizations/{organizationId}/sender-domains', summary: 'Register a sender domain', body: adminSchemas.senderDomain },
  { method: 'get', path: '/admin/v1/organizations/{organizationId}/sender-domains', summary: 'List sender domains' },
  { method: 'post', path: '/admin/v1/organizations/{organizationId}/email-templates', summary: 'Add an email template', body: adminSchemas.emailTemplate },
  { method: 'get', path: '/admin/v1/organizations/{organizationId}/email-templates', summary: 'List email templates, newest first' },
  { method: 'delete', path: '/admin/v1/organizations/{organizationId}/email-templates/{templateId}', summary: 'Remove an email template' },
  { method: 'get', path: '/admin/v1/organizations/{organizationId}/deliveries', summary: 'Delivery state of OTP messages, newest first', query: adminSchemas.deliveries },
  { method: 'post', path: '/admin/v1/organizations/{organizationId}/users/{userId}/authenticators', summary: 'Register a WebAuthn authenticator', body: adminSchemas.authenticator },
];

const PLAIN_ROUTES: Array<{ path: string; summary: string }> = [
  { path: '/healthz', summary: 'The process answers: {"status":"ok"}' },
  { path: '/readyz', summary: 'The database answers: {"status":"ok"}, else 503' },
  { path: '/metrics', summary: 'Prometheus metrics (text exposition format); only to the addresses in SIGNET_METRICS_HOST, loopback by default' },
  { path: '/.well-known/jwks.json', summary: 'Public keys of verify_otp tokens' },
  { path: '/openapi.json', summary: 'This document' },
  { path: '/docs', summary: 'A readable reference page' },
];

export function buildOpenApi(handlers: readonly ActivityHandler[], queries: readonly QueryHandler[], version: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const handler of handlers) paths[`/public/v1/submit/${handler.path}`] = { post: activityOperation(handler) };
  for (const query of queries) paths[`/public/v1/query/${query.path}`] = { post: queryOperation(query) };
  for (const route of ADMIN_ROUTES) {
    const parameters: object[] = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }));
    if (route.query) {
      const query = jsonSchema(route.query) as { properties?: Record<string, object> };
      for (const [name, schema] of Object.entries(query.properties ?? {})) parameters.push({ name, in: 'query', required: false, schema });
    }
    paths[route.path] = {
      ...paths[route.path],
      [route.method]: {
        summary: route.summary,
        tags: ['admin'],
        security: [{ AdminToken: [] }],
        ...(parameters.length ? { parameters } : {}),
        ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(route.body) } } } } : {}),
        responses: { '200': { description: 'Done' }, '400': errorResponse('Bad input'), '401': errorResponse('Missing or wrong token'), '403': errorResponse('Client address not allowed'), '404': errorResponse('Unknown object') },
      },
    };
  }
  for (const route of PLAIN_ROUTES) paths[route.path] = { get: { summary: route.summary, tags: ['service'], responses: { '200': { description: 'OK' } } } };

  return {
    openapi: '3.1.0',
    info: {
      title: 'Signet',
      version,
      description: 'Stamped activity submission: every request body is signed (X-Stamp or X-Stamp-WebAuthn) over its exact bytes.',
    },
    paths,
    components: {
      securitySchemes: {
        ApiKeyStamp: { type: 'apiKey', in: 'header', name: 'X-Stamp', description: 'base64url JSON {publicKey, scheme: "SIGNATURE_SCHEME_TK_API_P256", signature}: DER ECDSA P-256 over SHA-256 of the body' },
        WebAuthnStamp: { type: 'apiKey', in: 'header', name: 'X-Stamp-WebAuthn', description: 'JSON {credentialId, authenticatorData, clientDataJson, signature}; challenge = hex SHA-256 of the body' },
        AdminToken: { type: 'http', scheme: 'bearer' },
      },
      schemas: {
        Error: {
          type: 'object',
          required: ['code', 'message', 'details'],
          properties: { code: { type: 'integer', description: 'gRPC status code' }, message: { type: 'string' }, details: { type: 'array', items: { type: 'object' } } },
        },
        ActivityResponse: {
          type: 'object',
          required: ['activity'],
          properties: {
            activity: {
              type: 'object',
              required: ['id', 'organizationId', 'status', 'type', 'timestampMs', 'intent', 'result', 'votes', 'fingerprint', 'canApprove', 'canReject', 'createdAt', 'updatedAt'],
              properties: {
                id: { type: 'string', format: 'uuid' },
                organizationId: { type: 'string', format: 'uuid' },
                status: { type: 'string' },
                type: { type: 'string' },
                timestampMs: { type: 'string' },
                intent: { type: 'object' },
                result: { type: 'object' },
                votes: { type: 'array', items: { type: 'object' } },
                fingerprint: { type: 'string' },
                canApprove: { type: 'boolean' },
                canReject: { type: 'boolean' },
                createdAt: { type: 'string', format: 'date-time' },
                updatedAt: { type: 'string', format: 'date-time' },
                appProofs: { type: 'array', items: { type: 'object' } },
              },
            },
          },
        },
      },
    },
  };
}

/** The reference page: every path with its summary, body schema and example, as plain HTML. */
export function renderDocs(document: ReturnType<typeof buildOpenApi>): string {
  const sections = Object.entries(document.paths).map(([path, methods]) =>
    Object.entries(methods)
      .map(([method, operation]) => {
        const op = operation as { summary?: string; requestBody?: { content: { 'application/json': { schema: unknown; example?: unknown } } } };
        const body = op.requestBody?.content['application/json'];
        return `<section><h3><code>${method.toUpperCase()} ${escapeHtml(path)}</code></h3><p>${escapeHtml(op.summary ?? '')}</p>${
          body?.example ? `<details open><summary>Example body</summary><pre>${escapeHtml(JSON.stringify(body.example, null, 2))}</pre></details>` : ''
        }${body ? `<details><summary>Body schema</summary><pre>${escapeHtml(JSON.stringify(body.schema, null, 2))}</pre></details>` : ''}</section>`;
      })
      .join('\n'),
  );
  return `<!doctype html><html><head><meta charset="utf-8"><title>Signet API reference</title>
<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#111}section{border-top:1px solid #ddd;padding:.5rem 0}pre{background:#f6f6f6;padding:.75rem;overflow:auto}code{font-size:1rem}</style>
</head><body><h1>Signet API reference</h1><p>${escapeHtml(document.info.description)} The machine-readable document is at <a href="/openapi.json">/openapi.json</a>.</p>
${sections.join('\n')}
</body></html>`;
}
