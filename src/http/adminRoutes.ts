// /admin/v1: operator endpoints for organizations, users, API keys, WebAuthn authenticators, the
// root quorum, sender domains, email templates, the delivery state of OTP messages, webhook endpoints (a test event) and the embedded
// store's snapshot (a file, its fields as headers: adminApi.ts's download) and the re-sealing of wallet keys, each served
// as adminApi.ts declares it by a handler that calls the operator action of src/admin/. Bearer token
// compared in constant time; only from allowed client addresses; wrong tokens throttled per address.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import {
  addSenderDomain,
  createApiKey,
  createOrganization,
  listApiKeys,
  listOrganizations,
  listSubOrganizations,
  registerAuthenticator,
  listSenderDomains,
  removeSenderDomain,
  revokeApiKey,
} from '../admin/organizations.ts';
import { getRootQuorum, setRootQuorum } from '../admin/rootQuorums.ts';
import { createUser, getUser, listUsers, removeUser } from '../admin/users.ts';
import { listDeliveries } from '../admin/deliveries.ts';
import { listWebhookEndpoints, testWebhookEndpoint } from '../admin/webhooks.ts';
import { addEmailTemplate, listEmailTemplates, removeEmailTemplate } from '../admin/emailTemplates.ts';
import { storeSnapshot } from '../admin/backup.ts';
import { createAuthProxyConfig, deleteAuthProxyConfig, listAuthProxyConfigs } from '../admin/authProxyConfigs.ts';
import { rewrapKeyMaterial, type RewrapLog } from '../admin/keyRewrap.ts';
import { pageRequest, pageRows } from '../queries/pagination.ts';
import { parseJsonDocument } from '../wire/jsonDocument.ts';
import { schemaError } from '../wire/violations.ts';
import { verifiedRegistration } from '../activities/handlers/credentials/passkeyRegistration.ts';
import { notFound, permissionDenied, SignetError } from '../errors.ts';
import { ADMIN_PAGE_DEFAULT, ADMIN_PREFIX, ADMIN_ROUTES, downloadHeader, type AdminRoute, type AdminRoutes } from './adminApi.ts';
import type { AppDependencies } from './dependencies.ts';
import { rawBody } from './rawBody.ts';
import { addressMatcher } from './clientAddress.ts';
import { AuthFailureThrottle } from './authFailureThrottle.ts';

// The bodies, where the OpenAPI test has always read them.

/** The answer of a download route: its answer's fields (sent as headers) and the file. */
interface AdminFile<Fields> {
  fields: Fields;
  file: Buffer;
}

/** What a route's handler is given, checked by the route's schemas, and what it answers. */
type AdminHandler<Route extends AdminRoute<any, any, any, any, any>> = (request: {
  params: z.output<Route['params']>;
  query: z.output<NonNullable<Route['query']>>;
  body: z.output<NonNullable<Route['body']>>;
  /** The request's logger. */
  log: RewrapLog;
}) => Promise<[NonNullable<Route['download']>] extends [never] ? z.input<Route['answer']> : AdminFile<z.input<Route['answer']>>>;

type AdminHandlers = { [Name in keyof AdminRoutes]: AdminHandler<AdminRoutes[Name]> };

/** Each route's handler: the operator action of src/admin/ it calls, and a list's page. */
function adminHandlers({ db, config, kek, onQueued }: AppDependencies): AdminHandlers {
  return {
    createOrganization: async ({ body }) =>
      createOrganization(db, {
        name: body.name,
        ...(body.userName ? { userName: body.userName } : {}),
        ...(body.apiKeyName ? { apiKeyName: body.apiKeyName } : {}),
        ...(body.publicKey ? { publicKey: body.publicKey } : {}),
      }),
    listOrganizations: async ({ query }) => {
      const page = await listOrganizations(db, pageRequest(query, ADMIN_PAGE_DEFAULT));
      return { organizations: pageRows(page, query, 'query', 'among the organizations') };
    },
    listSubOrganizations: async ({ params, query }) => {
      const page = await listSubOrganizations(db, params.organizationId, pageRequest(query, ADMIN_PAGE_DEFAULT));
      return { subOrganizations: pageRows(page, query, 'query', "among the organization's sub-organizations") };
    },
    createUser: async ({ params, body }) =>
      createUser(db, params.organizationId, {
        ...(body.userName !== undefined ? { userName: body.userName } : {}),
        ...(body.email !== undefined ? { email: body.email } : {}),
        ...(body.phoneNumber !== undefined ? { phoneNumber: body.phoneNumber } : {}),
      }),
    listUsers: async ({ params, query }) => {
      const page = await listUsers(db, params.organizationId, pageRequest(query, ADMIN_PAGE_DEFAULT));
      return { users: pageRows(page, query, 'query') };
    },
    getUser: async ({ params }) => getUser(db, params.organizationId, params.userId),
    removeUser: async ({ params }) => removeUser(db, params.organizationId, params.userId),
    createApiKey: async ({ params, body }) =>
      createApiKey(db, {
        organizationId: params.organizationId,
        userId: body.userId,
        ...(body.name ? { name: body.name } : {}),
        ...(body.expiresInSeconds !== undefined ? { expiresInSeconds: body.expiresInSeconds } : {}),
        ...(body.publicKey ? { publicKey: body.publicKey } : {}),
      }),
    listApiKeys: async ({ params, query: { userId, ...query } }) => {
      const page = await listApiKeys(db, params.organizationId, pageRequest(query, ADMIN_PAGE_DEFAULT), userId);
      return { apiKeys: pageRows(page, query, 'query') };
    },
    revokeApiKey: async ({ params }) => revokeApiKey(db, params.organizationId, params.apiKeyId),
    getRootQuorum: async ({ params }) => getRootQuorum(db, params.organizationId),
    setRootQuorum: async ({ params, body }) => setRootQuorum(db, params.organizationId, body),
    addSenderDomain: async ({ params, body }) => addSenderDomain(db, params.organizationId, body.domain),
    listSenderDomains: async ({ params, query }) => {
      const page = await listSenderDomains(db, params.organizationId, pageRequest(query, ADMIN_PAGE_DEFAULT));
      return { senderDomains: pageRows(page, query, 'query') };
    },
    removeSenderDomain: async ({ params }) => removeSenderDomain(db, params.organizationId, params.domain),
    addEmailTemplate: async ({ params, body }) =>
      addEmailTemplate(db, params.organizationId, {
        subject: body.subject,
        html: body.html,
        text: body.text,
        ...(body.name ? { name: body.name } : {}),
      }),
    listEmailTemplates: async ({ params, query }) => {
      const page = await listEmailTemplates(db, params.organizationId, pageRequest(query, ADMIN_PAGE_DEFAULT));
      return { emailTemplates: pageRows(page, query, 'query') };
    },
    removeEmailTemplate: async ({ params }) => removeEmailTemplate(db, params.organizationId, params.templateId),
    listDeliveries: async ({ params, query }) => ({ deliveries: await listDeliveries(db, params.organizationId, query) }),
    listWebhookEndpoints: async ({ params }) => ({ webhookEndpoints: await listWebhookEndpoints(db, params.organizationId) }),
    testWebhookEndpoint: async ({ params }) => testWebhookEndpoint(db, params.organizationId, params.endpointId, onQueued ?? (() => {})),
    createAuthProxyConfig: async ({ params, body }) => createAuthProxyConfig(db, kek, params.organizationId, body),
    listAuthProxyConfigs: async ({ query }) => ({ authProxyConfigs: await listAuthProxyConfigs(db, query.organizationId) }),
    deleteAuthProxyConfig: async ({ params }) => deleteAuthProxyConfig(db, params.configId),
    registerAuthenticator: async ({ params, body }) => {
      const verified = await verifiedRegistration(body.attestation, {
        expectedChallenge: body.challenge,
        origins: config.webauthnOrigins,
        rpId: config.webauthnRpId,
      });
      return registerAuthenticator(db, { organizationId: params.organizationId, userId: params.userId, name: body.name, ...verified });
    },
    backup: async () => storeSnapshot(db, config),
    rewrapKeys: async ({ log }) => rewrapKeyMaterial(db, kek, log),
  };
}

function parse<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  // With the input, a field present but wrong is told apart from a missing one.
  const result = schema.safeParse(value, { reportInput: true });
  if (!result.success) throw schemaError(result.error, '', what);
  return result.data;
}

/** The request's path parameters, query and body, each checked by the route's schema (in that order) when the route has one. */
function checkedRequest(route: AdminRoute, request: FastifyRequest) {
  return {
    params: parse(route.params, request.params, 'invalid path'),
    query: route.query ? parse(route.query, request.query, 'invalid query') : undefined,
    body: route.body ? parse(route.body, parseJsonDocument(rawBody(request)), route.invalidBody ?? 'invalid body') : undefined,
  };
}

/** The route's path below /admin/v1 as Fastify writes it: `{organizationId}` → `:organizationId`. */
function fastifyPath(route: AdminRoute): string {
  return route.path.slice(ADMIN_PREFIX.length).replace(/\{(\w+)\}/g, ':$1');
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

export function registerAdminRoutes(app: FastifyInstance, deps: AppDependencies) {
  const { config } = deps;
  const expected = digest(deps.adminToken);
  const allowed = addressMatcher(config.adminHosts);
  const handlers = adminHandlers(deps);
  // Its own budget per address, apart from the public API's: a client with a wrong stamp on the same
  // host does not lock the operator out, nor do wrong admin tokens slow the public API.
  const throttle = new AuthFailureThrottle(config.authFailureLimit, () => deps.clock().getTime(), 'the admin token');
  const { count, windowSeconds } = config.authFailureLimit;

  app.register(
    async (admin) => {
      admin.addHook('onRequest', async (request) => {
        if (!allowed(request.ip)) {
          throw permissionDenied('ADDRESS_NOT_ALLOWED', 'the admin API only answers allowed client addresses (SIGNET_ADMIN_HOST)');
        }
        // Before the token is compared, the right one included: were it let through, an address that
        // spent its failures would still tell a right guess (200) from a wrong one (429) at full speed.
        throttle.check(request.ip, () => undefined);
        const header = request.headers.authorization ?? '';
        const match = /^Bearer (\S+)$/.exec(header);
        // Compare digests: constant time and independent of the token's length.
        if (!match || !timingSafeEqual(digest(match[1]!), expected)) {
          if (throttle.failed(request.ip)) {
            // Once per burst, not per request: what follows is answered 429 until the budget refills.
            request.log.warn(
              { clientAddress: request.ip, limit: `${count}/${windowSeconds}` },
              'admin token failures throttled',
            );
          }
          throw new SignetError(
            'ADMIN_TOKEN_INVALID',
            'the admin API needs Authorization: Bearer <token>, the token this server was given in SIGNET_ADMIN_TOKEN or, without it, ' +
              'the one it wrote to SIGNET_DATA_DIR/admin-token; the signet CLI sends it when it runs with the same SIGNET_ADMIN_TOKEN or SIGNET_DATA_DIR',
          );
        }
      });

      for (const [routeName, route] of Object.entries(ADMIN_ROUTES) as Array<[keyof AdminRoutes, AdminRoute]>) {
        // The route's own handler, typed by its declaration above; here every route is the same shape.
        const handler = handlers[routeName] as AdminHandler<AdminRoute>;
        admin.route({
          method: route.method.toUpperCase(),
          url: fastifyPath(route),
          handler: async (request, reply) => {
            const answer = await handler({ ...checkedRequest(route, request), log: request.log });
            if (!route.download) return answer;
            const { fields, file } = answer as AdminFile<Record<string, string>>;
            for (const [field, value] of Object.entries(fields)) reply.header(downloadHeader(field), value);
            return reply.type(route.download.mediaType).send(file);
          },
        });
      }

      admin.setNotFoundHandler((request) => {
        throw notFound('ROUTE_NOT_FOUND', `no admin route ${request.method} ${request.url.split('?')[0]}`);
      });
    },
    { prefix: ADMIN_PREFIX },
  );
}
