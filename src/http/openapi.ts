// The OpenAPI 3.1 document, generated from the zod schemas that validate requests (with their
// descriptions and bounds) and those that describe the answers: every route, its request and
// answer, the status codes it can give in Signet's error shape (src/errors.ts), the security schemes and
// an introduction (openapiSchemas.ts). The admin routes are those adminApi.ts declares. /docs renders
// it (openapiRoutes.ts).
import { CONFIG_HEADER } from '../authProxy/authProxy.ts';
import { AUTH_PROXY_ROUTES, type AuthProxyRoute } from '../authProxy/routes.ts';
import { z } from 'zod';
import { activityAnswer } from '../activities/wire/activitySchema.ts';
import { byPath } from '../activities/lifecycle/intake.ts';
import { voteRoutes, type VoteRoute } from '../activities/lifecycle/votes.ts';
import { envelopeSchema } from '../activities/wire/envelope.ts';
import type { ActivityHandler } from '../activities/handler.ts';
import { reasonsOfActivity, type ActivityDeclaration } from '../activities/declarations.ts';
import { grpcCodeOf, REASONS, reasonsOfStatus, type Reason } from '../errors.ts';
import type { QueryHandler } from '../queries/query.ts';
import { ADMIN_ROUTE_LIST, adminStatuses, downloadHeader, type AdminRoute } from './adminApi.ts';
import { errorSchema, INTRODUCTION, serviceAnswers, TAGS } from './openapiSchemas.ts';

type JsonSchema = Record<string, unknown>;

const COMPONENT_REF = '#/components/schemas/';

/** Every `$ref` into `$defs` made to point at components.schemas instead. */
function toComponentRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toComponentRefs);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, entry]) => [
      key,
      key === '$ref' && typeof entry === 'string' ? entry.replace('#/$defs/', COMPONENT_REF) : toComponentRefs(entry),
    ]),
  );
}

/** Converts zod schemas to JSON Schema; those with a meta id become components, referenced where used. */
class Schemas {
  readonly components: Record<string, JsonSchema> = {};
  private readonly named = new Map<z.ZodType, string>();

  /** Requests are described as they may be sent (`input`: defaults optional), answers as sent (`output`). */
  convert(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const { $schema: _drop, $defs, ...rest } = z.toJSONSchema(schema, {
      io,
      unrepresentable: 'any',
      // A timestamp's format says it all; zod's 300-character regular expression for it would only be noise.
      override: ({ jsonSchema }) => {
        if (jsonSchema.format === 'date-time') delete jsonSchema.pattern;
      },
    }) as JsonSchema & { $defs?: Record<string, JsonSchema> };
    for (const [id, definition] of Object.entries($defs ?? {})) this.add(id, toComponentRefs(definition) as JsonSchema);
    return toComponentRefs(rest) as JsonSchema;
  }

  /** A reference to `schema` as the component `name` (the first name given to a schema is kept). */
  ref(schema: z.ZodType, name: string, io: 'input' | 'output'): { $ref: string } {
    let id = this.named.get(schema);
    if (id === undefined) {
      id = name;
      this.named.set(schema, id);
      this.add(id, this.convert(schema, io));
    }
    return { $ref: COMPONENT_REF + id };
  }

  private add(id: string, definition: JsonSchema) {
    const known = this.components[id];
    if (known && JSON.stringify(known) !== JSON.stringify(definition)) throw new Error(`OpenAPI: two different schemas are named ${id}`);
    this.components[id] = definition;
  }
}

const json = (schema: unknown) => ({ 'application/json': { schema } });

/** The statuses of error answers, each a component response in the Error shape; routes list the ones they can give. */
export const ERROR_STATUSES = ['400', '401', '403', '404', '408', '413', '415', '429', '431', '500', '501', '503'] as const;
type ErrorStatus = (typeof ERROR_STATUSES)[number];

/** The reasons an answer of `status` can carry, from the table in src/errors.ts: one line each. */
function reasonList(status: ErrorStatus): string {
  return reasonLines(reasonsOfStatus(Number(status)));
}

/** These reasons, one line each with its gRPC code and meaning. */
function reasonLines(reasons: readonly Reason[]): string {
  return reasons.map((reason) => `- \`${reason}\` (gRPC code ${grpcCodeOf(reason)}): ${REASONS[reason].meaning}`).join('\n');
}

const ERRORS = Object.fromEntries(
  ERROR_STATUSES.map((status) => [status, `turnkeyErrorCode (in details) says why:\n\n${reasonList(status)}`]),
) as Record<ErrorStatus, string>;

/** Answers every route can give, whatever it is (the HTTP parser's and the server's). */
const ALWAYS: ErrorStatus[] = ['408', '431', '500'];
const PUBLIC_ERRORS: ErrorStatus[] = ['400', '401', '403', '408', '413', '415', '429', '431', '500', '503'];

function errorResponses(statuses: readonly ErrorStatus[], specific: Partial<Record<ErrorStatus, string>> = {}) {
  const sorted = [...new Set(statuses)].sort();
  return Object.fromEntries(
    sorted.map((status) => [
      status,
      specific[status]
        ? { description: `${specific[status]}. turnkeyErrorCode (in details) says why:\n\n${reasonList(status)}`, content: json({ $ref: `${COMPONENT_REF}Error` }) }
        : { $ref: `#/components/responses/Error${status}` },
    ]),
  );
}

// What a 404 of each query path means (paths without one answer none for a valid request). An
// activity's error answers come from the reasons its handlers declare (activityErrorResponses).
const NOT_FOUND: Record<string, string> = {
  get_activity: 'No such activity in the organization',
  get_policy_evaluations: 'No such activity in the organization',
  get_smart_contract_interface: 'No such interface in the organization',
  get_app_proofs: 'No such activity in the organization',
  list_app_proofs: 'No such activity in the organization',
};

const NOT_AUTHORIZED =
  "A valid credential of another organization; or the organization's root quorum and policies do not allow the activity and no more approvals could: " +
  'the message says implicit deny, or names the DENY policy (id and name), and turnkeyErrorCode is REQUEST_NOT_AUTHORIZED; ' +
  'nothing was stored (code 7). For approve_activity/reject_activity: the user may not vote on the activity';

/**
 * The error answers of an activity: a status for each of the reasons its handlers may give (their
 * own and every activity's, activities/declarations.ts), listing those reasons. A status whose
 * reasons are all of that status's refers to the shared response.
 */
function activityErrorResponses(handlers: readonly ActivityDeclaration[]) {
  const reasons = reasonsOfActivity(handlers);
  const statuses = [...new Set(reasons.map((reason) => String(REASONS[reason].status) as ErrorStatus))].sort();
  return Object.fromEntries(
    statuses.map((status) => {
      const own = reasons.filter((reason) => String(REASONS[reason].status) === status);
      const lead = status === '403' ? `${NOT_AUTHORIZED}. ` : '';
      if (!lead && own.length === reasonsOfStatus(Number(status)).length) return [status, { $ref: `#/components/responses/Error${status}` }];
      return [status, { description: `${lead}turnkeyErrorCode (in details) says why:\n\n${reasonLines(own)}`, content: json({ $ref: `${COMPONENT_REF}Error` }) }];
    }),
  );
}

const STAMPED = [{ ApiKeyStamp: [] }, { WebAuthnStamp: [] }];
const EXAMPLE_ORGANIZATION = '9f5e7c2a-3b1d-4e6f-8a9b-0c1d2e3f4a5b';
const pascal = (words: string) => words.toLowerCase().replace(/(^|_)([a-z0-9])/g, (_m, _s, c: string) => c.toUpperCase());

function activityOperation(schemas: Schemas, path: string, handlers: ReadonlyArray<ActivityHandler | VoteRoute>) {
  const bodies = handlers.map((handler) => {
    const types = [handler.activityType, ...(handler.otherActivityTypes ?? [])];
    const parameters = schemas.ref(handler.parameters, `${pascal(handler.activityType.replace(/^ACTIVITY_TYPE_/, ''))}Parameters`, 'input');
    const envelope = schemas.convert(envelopeSchema, 'input') as { properties: Record<string, JsonSchema> };
    const schema = {
      ...envelope,
      title: handler.activityType,
      properties: {
        ...envelope.properties,
        type: { ...envelope.properties.type, ...(types.length === 1 ? { const: types[0] } : { enum: types }) },
        parameters: { ...parameters, description: envelope.properties.parameters!.description },
      },
    };
    const answer = schemas.convert('selection' in handler ? handler.answer : activityAnswer(handler), 'output') as {
      title?: string;
      properties: { activity: { properties: { intent: { properties: Record<string, unknown>; required?: string[] } } } };
    };
    // The intent is the parameters as accepted: the request's own schema (a vote answers with another activity).
    if (!('selection' in handler)) {
      const intent = answer.properties.activity.properties.intent;
      intent.properties[handler.intentKey] = { ...parameters, description: 'The parameters as accepted, defaults filled in' };
      intent.required = [handler.intentKey];
    }
    answer.title = `${handler.activityType} answer`;
    return {
      schema,
      answer,
      example: { type: handler.activityType, timestampMs: '1795377000000', organizationId: EXAMPLE_ORGANIZATION, parameters: handler.example },
    };
  });
  const one = bodies.length === 1;
  const content = one
    ? { schema: bodies[0]!.schema, example: bodies[0]!.example }
    : {
        schema: { oneOf: bodies.map((body) => body.schema) },
        examples: Object.fromEntries(handlers.map((handler, i) => [handler.activityType, { summary: handler.activityType, value: bodies[i]!.example }])),
      };
  const resultKeys = [...new Set(handlers.map((handler) => handler.resultKey))].join(' or ');
  return {
    operationId: path,
    summary: handlers.map((handler) => handler.activityType).join(' or '),
    description: handlers.map((handler) => handler.description ?? '').join('\n\n'),
    tags: ['activities'],
    security: handlers.some((handler) => handler.acceptsAttestedStamp) ? [...STAMPED, { AttestedStamp: [] }] : STAMPED,
    requestBody: { required: true, content: { 'application/json': content } },
    responses: {
      '200': {
        description:
          `The activity, new or (for a body submitted before) the stored one; its result under ${resultKeys}. Allowed at once, it is ` +
          '`ACTIVITY_STATUS_COMPLETED`; when more approvals could allow it, it is stored as `ACTIVITY_STATUS_CONSENSUS_NEEDED` with ' +
          'nothing executed, and runs at the approve_activity that allows it',
        content: json(one ? bodies[0]!.answer : { oneOf: bodies.map((body) => body.answer) }),
      },
      ...activityErrorResponses(handlers),
    },
  };
}

function queryOperation(schemas: Schemas, query: QueryHandler) {
  return {
    operationId: query.path,
    summary: `Query ${query.path}`,
    description: query.description ?? '',
    tags: ['queries'],
    security: [...STAMPED, { ReadOnlySession: [] }],
    requestBody: { required: true, content: { 'application/json': { schema: schemas.convert(query.request, 'input'), example: query.example } } },
    responses: {
      '200': { description: 'The answer', content: json(schemas.convert(query.answer ?? z.record(z.string(), z.unknown()), 'output')) },
      ...errorResponses([...PUBLIC_ERRORS, ...(NOT_FOUND[query.path] ? (['404'] as const) : [])], NOT_FOUND[query.path] ? { '404': NOT_FOUND[query.path] } : {}),
    },
  };
}

/** The route's description, and the signet command that calls it. */
function adminDescription(route: AdminRoute): string | undefined {
  const command = route.cli && `The CLI: signet ${route.cli.name} ${route.cli.sub}.`;
  return [route.description, command].filter(Boolean).join(' ') || undefined;
}

/** A download's answer: the file, and the answer's fields as headers. */
function adminDownload(schemas: Schemas, route: AdminRoute) {
  const { properties = {} } = schemas.convert(route.answer, 'output') as { properties?: Record<string, JsonSchema> };
  const headers = Object.fromEntries(
    Object.entries(properties).map(([field, { description, ...schema }]) => [downloadHeader(field), { description, required: true, schema }]),
  );
  return { description: route.download!.description, headers, content: { [route.download!.mediaType]: { schema: { type: 'string', format: 'binary' } } } };
}

function adminOperation(schemas: Schemas, route: AdminRoute) {
  const parameters: object[] = [];
  for (const [where, schema] of [['path', route.params], ['query', route.query]] as const) {
    if (!schema) continue;
    const { properties = {}, required = [] } = schemas.convert(schema, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [name, { description, ...parameter }] of Object.entries(properties)) {
      parameters.push({ name, in: where, required: where === 'path' || required.includes(name), description, schema: parameter });
    }
  }
  const description = adminDescription(route);
  return {
    summary: route.summary,
    ...(description ? { description } : {}),
    tags: ['admin'],
    security: [{ AdminToken: [] }],
    ...(parameters.length ? { parameters } : {}),
    ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: schemas.convert(route.body, 'input'), example: route.example } } } } : {}),
    responses: {
      '200': route.download ? adminDownload(schemas, route) : { description: 'The answer', content: json(schemas.convert(route.answer, 'output')) },
      ...errorResponses([...ALWAYS, ...adminStatuses(route)], {
        '401': 'Missing or wrong Authorization: Bearer token (SIGNET_ADMIN_TOKEN or the admin-token file) (code 16)',
        '403': 'The client address is not in SIGNET_ADMIN_HOST (code 7)',
        '429': 'Too many missing or wrong tokens from this client address (SIGNET_AUTH_FAILURE_LIMIT), the right token included until Retry-After (code 8)',
        '404': route.notFound,
      }),
    },
  };
}

/** A route of the auth proxy: its configuration named in a header, no stamp (it stamps as the configuration's user). */
function authProxyOperation(schemas: Schemas, route: AuthProxyRoute) {
  return {
    operationId: `auth_proxy_${route.name}`,
    summary: route.summary,
    description:
      "As @turnkey/core's authProxyUrl calls it ([Auth proxy](auth-proxy.md)): done as the configuration's dedicated user, as far as the organization's root quorum and policies allow it. A page's Origin must be one the configuration allows (else a 403 with no CORS header).",
    tags: ['auth proxy'],
    parameters: [{ name: CONFIG_HEADER, in: 'header', required: true, description: "The configuration's id (authProxyConfigId)", schema: { type: 'string', format: 'uuid' } }],
    requestBody: { required: false, content: { 'application/json': { schema: schemas.convert(route.body, 'input') } } },
    responses: {
      '200': { description: 'The answer', content: json(schemas.convert(route.answer, 'output')) },
      ...errorResponses([...PUBLIC_ERRORS, '404', '501'], {
        '404': 'No auth proxy configuration of this id, or no account to log in',
        '429': 'Too many requests from this client address to this configuration, or codes for this contact (AUTH_PROXY_RATE_LIMITED), or an OTP limit of init_otp',
      }),
    },
  };
}

function serviceRoutes(schemas: Schemas) {
  const answer = (schema: z.ZodType, description = 'OK') => ({ description, content: json(schemas.convert(schema, 'output')) });
  const service = (summary: string, description: string, responses: Record<string, unknown>) => ({ get: { summary, description, tags: ['service'], responses } });
  return {
    '/healthz': service('Liveness', 'The process answers; for a supervisor\'s liveness check.', { '200': answer(serviceAnswers.status), ...errorResponses(ALWAYS) }),
    '/readyz': service('Readiness', 'The database answers within SIGNET_DATABASE_TIMEOUT_MS: point the load balancer here.', {
      '200': answer(serviceAnswers.status),
      '503': answer(serviceAnswers.unavailable, 'The database did not answer in time, or the process is shutting down'),
      ...errorResponses(['408', '431', '500']),
    }),
    '/metrics': service('Prometheus metrics', 'The Prometheus text exposition format, only to the addresses in SIGNET_METRICS_HOST (loopback by default). Scrape each process directly.', {
      '200': { description: 'The metrics', content: { 'text/plain; version=0.0.4': { schema: { type: 'string' } } } },
      ...errorResponses([...ALWAYS, '403'], { '403': 'The client address is not in SIGNET_METRICS_HOST (code 7)' }),
    }),
    '/.well-known/jwks.json': service('Public keys of the verification tokens', 'A JWKS: any JOSE library checks verify_otp V1 tokens with it (issuer "signet", ES256). Cached for 5 minutes.', {
      '200': answer(serviceAnswers.jwks),
      ...errorResponses([...ALWAYS, '503']),
    }),
    '/.well-known/signet-keys.json': service(
      "Signet's signing keys, for the ecosystem's verifiers",
      "The four public keys, each exactly what @turnkey/crypto's verifiers take as their dangerouslyOverride…PublicKey argument. Per deployment and the same in every process: pin them once.",
      { '200': answer(serviceAnswers.signetKeys), ...errorResponses([...ALWAYS, '503']) },
    ),
    '/openapi.json': service('This document', 'OpenAPI 3.1, generated from the schemas that validate requests.', {
      '200': { description: 'The document', content: json({ type: 'object' }) },
      ...errorResponses(ALWAYS),
    }),
    '/docs': service('The API reference', 'This document as a readable page (Swagger UI, served by Signet itself: no request leaves its origin).', {
      '200': { description: 'The page', content: { 'text/html': { schema: { type: 'string' } } } },
      ...errorResponses(ALWAYS),
    }),
    '/docs/assets/{file}': {
      get: {
        summary: 'A file of the reference page',
        description: 'The script and style sheet of /docs, from the installed swagger-ui-dist package; cached by the browser.',
        tags: ['service'],
        parameters: [{ name: 'file', in: 'path', required: true, description: 'The file', schema: { type: 'string', enum: ['swagger-ui-bundle.js', 'swagger-ui.css', 'signet-docs.js'] } }],
        responses: {
          '200': { description: 'The file', content: { 'text/javascript': { schema: { type: 'string' } }, 'text/css': { schema: { type: 'string' } } } },
          ...errorResponses([...ALWAYS, '404'], { '404': 'No such file' }),
        },
      },
    },
    '/console': service('The console', 'The web console (docs/console.md): a page that signs in with a passkey or an API key and stamps every request it makes to this API in the browser. Strict Content-Security-Policy; nothing is loaded from elsewhere.', {
      '200': { description: 'The page', content: { 'text/html': { schema: { type: 'string' } } } },
      ...errorResponses([...ALWAYS, '404'], { '404': 'The console is not built in this installation' }),
    }),
    '/console/*': service('A page of the console', 'Any path under /console/ (but assets/) answers the console\'s page, which shows the view the path names, e.g. /console/activities/<id>.', {
      '200': { description: 'The page', content: { 'text/html': { schema: { type: 'string' } } } },
      ...errorResponses([...ALWAYS, '404'], { '404': 'A path under /console/assets/ that is no file, or the console is not built' }),
    }),
    '/console/assets/{file}': {
      get: {
        summary: 'A file of the console',
        description: "The console's script and style sheet; their names carry their content's hash, so they are cached for good.",
        tags: ['service'],
        parameters: [{ name: 'file', in: 'path', required: true, description: 'The file, as the page names it', schema: { type: 'string', pattern: '^console-[A-Z0-9]+\\.(js|css)$' } }],
        responses: {
          '200': { description: 'The file', content: { 'text/javascript': { schema: { type: 'string' } }, 'text/css': { schema: { type: 'string' } } } },
          ...errorResponses([...ALWAYS, '404'], { '404': 'No such file' }),
        },
      },
    },
    '/': {
      get: {
        summary: 'To the API reference',
        description: 'Redirects to /docs.',
        tags: ['service'],
        responses: { '302': { description: 'Location: docs', headers: { Location: { description: 'docs', schema: { type: 'string' } } } }, ...errorResponses(ALWAYS) },
      },
    },
  };
}

export function buildOpenApi(handlers: readonly ActivityHandler[], queries: readonly QueryHandler[], version: string) {
  const schemas = new Schemas();
  schemas.convert(errorSchema, 'output'); // the component every error answer refers to
  const paths: Record<string, Record<string, unknown>> = {};
  // The activities, then the votes on them (a route family of its own, declared by the votes module).
  for (const [path, declared] of byPath<ActivityHandler | VoteRoute>([...handlers, ...voteRoutes])) {
    paths[`/public/v1/submit/${path}`] = { post: activityOperation(schemas, path, declared) };
  }
  for (const query of queries) paths[`/public/v1/query/${query.path}`] = { post: queryOperation(schemas, query) };
  for (const route of ADMIN_ROUTE_LIST) paths[route.path] = { ...paths[route.path], [route.method]: adminOperation(schemas, route) };
  for (const route of AUTH_PROXY_ROUTES) paths[`/v1/${route.name}`] = { post: authProxyOperation(schemas, route) };
  Object.assign(paths, serviceRoutes(schemas));

  return {
    openapi: '3.1.0',
    info: { title: 'Signet API', version, description: INTRODUCTION, license: { name: 'Apache-2.0', identifier: 'Apache-2.0' } },
    tags: TAGS,
    paths,
    components: {
      securitySchemes: {
        ApiKeyStamp: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Stamp',
          description:
            'An API key or session key: base64url of the JSON {publicKey, scheme: "SIGNATURE_SCHEME_TK_API_P256", signature}, signature being strict DER ECDSA P-256 over SHA-256 of the exact body bytes, in hex. See "How a stamp is built".',
        },
        WebAuthnStamp: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Stamp-WebAuthn',
          description:
            'A passkey: the JSON {credentialId, authenticatorData, clientDataJson, signature} of a WebAuthn assertion whose challenge is the UTF-8 bytes of the lowercase hex SHA-256 of the body. See "How a stamp is built".',
        },
        AttestedStamp: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Stamp-Attested',
          description:
            'stamp_login only: base64url (or plain) JSON {publicKeyAttestation: a verificationToken of verify_otp, scheme: "STAMP_ATTESTED_SCHEME_P256_VERIFICATION_TOKEN", publicKey: the key the token is bound to, signature: strict DER ECDSA P-256 over SHA-256 of the exact body bytes by that key, in hex}, as @turnkey/core\'s AttestedStamper builds it. The request is the user whose email or phone number the token names; the token logs in once.',
        },
        ReadOnlySession: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Session',
          description:
            "Queries only, without a stamp: the session of create_read_only_session, as @turnkey/sdk-browser sends its readOnlySession. The query reads as the session's user until the session ends; an activity sent so is a 403 READ_ONLY_SESSION.",
        },
        AdminToken: { type: 'http', scheme: 'bearer', description: 'SIGNET_ADMIN_TOKEN, or the token Signet generated into SIGNET_DATA_DIR/admin-token' },
      },
      responses: Object.fromEntries(
        Object.entries(ERRORS).map(([status, description]) => [`Error${status}`, { description, content: json({ $ref: `${COMPONENT_REF}Error` }) }]),
      ),
      schemas: schemas.components,
    },
  };
}

export type OpenApiDocument = ReturnType<typeof buildOpenApi>;
