// /admin/v1: operator endpoints for organizations, users, API keys, WebAuthn authenticators,
// sender domains, email templates and the delivery state of OTP messages. Bearer token compared
// in constant time; only from allowed client addresses.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  addSenderDomain,
  createApiKey,
  createOrganization,
  registerAuthenticator,
  listSenderDomains,
  revokeApiKey,
} from '../admin/organizations.ts';
import { createUser, getUser, listUsers, removeUser } from '../admin/users.ts';
import { listDeliveries } from '../admin/deliveries.ts';
import { addEmailTemplate, listEmailTemplates, removeEmailTemplate } from '../admin/emailTemplates.ts';
import { pageRequest, pageRows } from '../queries/pagination.ts';
import { parseJsonDocument } from '../activities/jsonDocument.ts';
import { schemaError } from '../activities/violations.ts';
import { OUTBOX_STATUSES } from '../store/outbox.ts';
import { TEMPLATE_LIMITS } from '../otp/emailTemplates.ts';
import { verifyAuthenticatorRegistration } from '../keys/verifyAuthenticatorRegistration.ts';
import { notFound, permissionDenied, unauthenticated } from '../errors.ts';
import { rawBody, type AppDependencies } from './app.ts';
import { addressMatcher } from './clientAddress.ts';

const name = z.string().trim().min(1).max(256);
const uuid = z.uuid({ message: 'must be a UUID' });

export const adminSchemas = {
  organization: z.strictObject({
    name,
    userName: name.optional(),
    apiKeyName: name.optional(),
    publicKey: z.string().max(130).optional(),
  }),
  // The contacts are checked by the rules of init_otp_auth's contact (admin/users.ts), which bound them.
  user: z.strictObject({ userName: name.optional(), email: z.string().optional(), phoneNumber: z.string().optional() }),
  apiKey: z.strictObject({
    userId: uuid,
    name: name.optional(),
    expiresInSeconds: z.number().int().min(1).max(10 * 365 * 24 * 3600).optional(),
    publicKey: z.string().max(130).optional(),
  }),
  senderDomain: z.strictObject({ domain: z.string().max(253) }),
  emailTemplate: z.strictObject({
    name: name.optional(),
    subject: z.string().max(TEMPLATE_LIMITS.subject),
    html: z.string().max(TEMPLATE_LIMITS.html),
    text: z.string().max(TEMPLATE_LIMITS.text),
  }),
  deliveries: z.strictObject({
    status: z.enum(OUTBOX_STATUSES, { error: `must be one of ${OUTBOX_STATUSES.join(', ')}` }).optional(),
    otpId: uuid.optional(),
    limit: z
      .string()
      .regex(/^[1-9][0-9]{0,2}$/, 'must be a whole number from 1 to 500')
      .transform(Number)
      .refine((n) => n <= 500, 'must be a whole number from 1 to 500')
      .default(50),
  }),
  authenticator: z.strictObject({
    name,
    /** base64url challenge the registration ceremony used. */
    challenge: z.string().min(16).max(1024),
    attestation: z.record(z.string(), z.unknown()),
  }),
};

/** ?limit=&before=&after= of the admin lists: newest first, id cursors, like the public lists' paginationOptions. */
const ADMIN_PAGE_DEFAULT = 50;
const adminPage = z.strictObject({
  limit: z
    .string()
    .regex(/^[1-9][0-9]{0,2}$/, 'must be a whole number from 1 to 500')
    .refine((n) => Number(n) <= 500, 'must be a whole number from 1 to 500')
    .optional(),
  before: uuid.optional(),
  after: uuid.optional(),
});

const params = {
  org: z.object({ organizationId: uuid }),
  orgKey: z.object({ organizationId: uuid, apiKeyId: uuid }),
  orgUser: z.object({ organizationId: uuid, userId: uuid }),
  orgTemplate: z.object({ organizationId: uuid, templateId: uuid }),
};

function parse<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw schemaError(result.error, '', what);
  return result.data;
}

function jsonBody(request: FastifyRequest): unknown {
  return parseJsonDocument(rawBody(request));
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

export function registerAdminRoutes(app: FastifyInstance, deps: AppDependencies) {
  const { db, config } = deps;
  const expected = digest(deps.adminToken);
  const allowed = addressMatcher(config.adminHosts);

  app.register(
    async (admin) => {
      admin.addHook('onRequest', async (request) => {
        if (!allowed(request.ip)) {
          throw permissionDenied('the admin API only answers allowed client addresses (SIGNET_ADMIN_HOST)');
        }
        const header = request.headers.authorization ?? '';
        const match = /^Bearer (\S+)$/.exec(header);
        // Compare digests: constant time and independent of the token's length.
        if (!match || !timingSafeEqual(digest(match[1]!), expected)) {
          throw unauthenticated('admin API needs Authorization: Bearer <token> (SIGNET_ADMIN_TOKEN or the admin-token file)');
        }
      });

      admin.post('/organizations', async (request) => {
        const input = parse(adminSchemas.organization, jsonBody(request), 'invalid organization');
        return createOrganization(db, {
          name: input.name,
          ...(input.userName ? { userName: input.userName } : {}),
          ...(input.apiKeyName ? { apiKeyName: input.apiKeyName } : {}),
          ...(input.publicKey ? { publicKey: input.publicKey } : {}),
        });
      });

      admin.post('/organizations/:organizationId/users', async (request) => {
        const { organizationId } = parse(params.org, request.params, 'invalid path');
        const input = parse(adminSchemas.user, jsonBody(request), 'invalid user');
        return createUser(db, organizationId, {
          ...(input.userName !== undefined ? { userName: input.userName } : {}),
          ...(input.email !== undefined ? { email: input.email } : {}),
          ...(input.phoneNumber !== undefined ? { phoneNumber: input.phoneNumber } : {}),
        });
      });

      admin.get('/organizations/:organizationId/users', async (request) => {
        const { organizationId } = parse(params.org, request.params, 'invalid path');
        const query = parse(adminPage, request.query, 'invalid query');
        const page = await listUsers(db, organizationId, pageRequest(query, ADMIN_PAGE_DEFAULT));
        return { users: pageRows(page, query, 'query') };
      });

      admin.get('/organizations/:organizationId/users/:userId', async (request) => {
        const { organizationId, userId } = parse(params.orgUser, request.params, 'invalid path');
        return getUser(db, organizationId, userId);
      });

      admin.delete('/organizations/:organizationId/users/:userId', async (request) => {
        const { organizationId, userId } = parse(params.orgUser, request.params, 'invalid path');
        return removeUser(db, organizationId, userId);
      });

      admin.post('/organizations/:organizationId/api-keys', async (request) => {
        const { organizationId } = parse(params.org, request.params, 'invalid path');
        const input = parse(adminSchemas.apiKey, jsonBody(request), 'invalid API key');
        return createApiKey(db, {
          organizationId,
          userId: input.userId,
          ...(input.name ? { name: input.name } : {}),
          ...(input.expiresInSeconds !== undefined ? { expiresInSeconds: input.expiresInSeconds } : {}),
          ...(input.publicKey ? { publicKey: input.publicKey } : {}),
        });
      });

      admin.delete('/organizations/:organizationId/api-keys/:apiKeyId', async (request) => {
        const { organizationId, apiKeyId } = parse(params.orgKey, request.params, 'invalid path');
        return revokeApiKey(db, organizationId, apiKeyId);
      });

      admin.post('/organizations/:organizationId/sender-domains', async (request) => {
        const { organizationId } = parse(params.org, request.params, 'invalid path');
        const input = parse(adminSchemas.senderDomain, jsonBody(request), 'invalid sender domain');
        return addSenderDomain(db, organizationId, input.domain);
      });

      admin.get('/organizations/:organizationId/sender-domains', async (request) => {
        const { organizationId } = parse(params.org, request.params, 'invalid path');
        const query = parse(adminPage, request.query, 'invalid query');
        const page = await listSenderDomains(db, organizationId, pageRequest(query, ADMIN_PAGE_DEFAULT));
        return { senderDomains: pageRows(page, query, 'query') };
      });

      admin.post('/organizations/:organizationId/email-templates', async (request) => {
        const { organizationId } = parse(params.org, request.params, 'invalid path');
        const input = parse(adminSchemas.emailTemplate, jsonBody(request), 'invalid email template');
        return addEmailTemplate(db, organizationId, {
          subject: input.subject,
          html: input.html,
          text: input.text,
          ...(input.name ? { name: input.name } : {}),
        });
      });

      admin.get('/organizations/:organizationId/email-templates', async (request) => {
        const { organizationId } = parse(params.org, request.params, 'invalid path');
        const query = parse(adminPage, request.query, 'invalid query');
        const page = await listEmailTemplates(db, organizationId, pageRequest(query, ADMIN_PAGE_DEFAULT));
        return { emailTemplates: pageRows(page, query, 'query') };
      });

      admin.delete('/organizations/:organizationId/email-templates/:templateId', async (request) => {
        const { organizationId, templateId } = parse(params.orgTemplate, request.params, 'invalid path');
        return removeEmailTemplate(db, organizationId, templateId);
      });

      admin.get('/organizations/:organizationId/deliveries', async (request) => {
        const { organizationId } = parse(params.org, request.params, 'invalid path');
        const query = parse(adminSchemas.deliveries, request.query, 'invalid query');
        return { deliveries: await listDeliveries(db, organizationId, query) };
      });

      admin.post('/organizations/:organizationId/users/:userId/authenticators', async (request) => {
        const { organizationId, userId } = parse(params.orgUser, request.params, 'invalid path');
        const input = parse(adminSchemas.authenticator, jsonBody(request), 'invalid authenticator');
        const verified = await verifyAuthenticatorRegistration(input.attestation, {
          expectedChallenge: input.challenge,
          origins: config.webauthnOrigins,
          rpId: config.webauthnRpId,
        });
        return registerAuthenticator(db, { organizationId, userId, name: input.name, ...verified });
      });

      admin.setNotFoundHandler((request) => {
        throw notFound(`no admin route ${request.method} ${request.url.split('?')[0]}`);
      });
    },
    { prefix: '/admin/v1' },
  );
}
