// /admin/v1: operator endpoints for organizations, users, API keys, WebAuthn authenticators, the
// root quorum, sender domains, email templates and the delivery state of OTP messages. Bearer token compared
// in constant time; only from allowed client addresses.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
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
import { addEmailTemplate, listEmailTemplates, removeEmailTemplate } from '../admin/emailTemplates.ts';
import { pageRequest, pageRows } from '../queries/pagination.ts';
import { parseJsonDocument } from '../wire/jsonDocument.ts';
import { rootQuorumParameters } from '../activities/updateRootQuorum.ts';
import { schemaError } from '../wire/violations.ts';
import { OUTBOX_STATUSES } from '../store/outbox.ts';
import { TEMPLATE_LIMITS } from '../otp/emailTemplates.ts';
import { verifiedRegistration } from '../activities/passkeyRegistration.ts';
import { P256_PUBLIC_KEY_PATTERN } from '../keys/p256.ts';
import { MAX_EMAIL_LENGTH, MAX_PHONE_INPUT_LENGTH } from '../otp/contact.ts';
import { wholeNumberPattern } from '../wire/numberPattern.ts';
import { notFound, permissionDenied, SignetError } from '../errors.ts';
import type { AppDependencies } from './dependencies.ts';
import { rawBody } from './rawBody.ts';
import { addressMatcher } from './clientAddress.ts';

const name = z.string().trim().min(1).max(256);
const uuid = z.uuid({ message: 'must be a UUID' });
const publicKey = z.string().max(130).meta({
  pattern: P256_PUBLIC_KEY_PATTERN,
  description: 'A P-256 public key in hex (compressed or uncompressed) whose private key you hold: registered instead of a generated pair, and no apiPrivateKey is returned',
});

// The descriptions are the OpenAPI document's.
export const adminSchemas = {
  organization: z.strictObject({
    name: name.describe('Name of the organization'),
    userName: name.describe('Name of its first user; "root" by default').optional(),
    apiKeyName: name.describe('Name of the first user\'s API key; "root key" by default').optional(),
    publicKey: publicKey.optional(),
  }),
  // The contacts are checked by the rules of init_otp_auth's contact (admin/users.ts), which bound them.
  user: z.strictObject({
    userName: name.describe('Name of the user; defaults to the email, else the phone number, else "user"').optional(),
    email: z
      .string()
      .meta({ maxLength: MAX_EMAIL_LENGTH })
      .describe("Email address of the user, by which an OTP login finds it: checked like init_otp_auth's contact and stored in lowercase as it is (every spelling of an address is one contact); unique among the organization's users not removed")
      .optional(),
    phoneNumber: z
      .string()
      .meta({ maxLength: MAX_PHONE_INPUT_LENGTH })
      .describe("Phone number of the user in international form (+ and country code), stored in E.164; unique among the organization's users not removed")
      .optional(),
  }),
  apiKey: z.strictObject({
    userId: uuid.describe('The user of the organization who holds the key'),
    name: name.describe('Name of the API key').optional(),
    expiresInSeconds: z
      .number()
      .int()
      .min(1)
      .max(10 * 365 * 24 * 3600)
      .describe('Lifetime of the key in seconds, at most ten years; without it the key does not expire')
      .optional(),
    publicKey: publicKey.optional(),
  }),
  // The rules of update_root_quorum's parameters; each user is checked against the organization by admin/rootQuorums.ts.
  rootQuorum: rootQuorumParameters,
  senderDomain: z.strictObject({
    domain: z.string().max(253).describe('A domain name such as mail.example.com (stored in lower case): init_otp_auth\'s sendFromEmailAddress may then be on it'),
  }),
  emailTemplate: z.strictObject({
    name: name.describe('Name of the template').optional(),
    subject: z.string().max(TEMPLATE_LIMITS.subject).describe(`Subject line, a Handlebars template (e.g. "Your {{appName}} code"); not empty, at most ${TEMPLATE_LIMITS.subject} bytes`),
    html: z
      .string()
      .max(TEMPLATE_LIMITS.html)
      .describe(`HTML part, a Handlebars template that must show {{otpCode}} or {{magicLink}}; no raw output ({{{…}}}), partials or custom helpers; at most ${TEMPLATE_LIMITS.html} bytes`),
    text: z.string().max(TEMPLATE_LIMITS.text).describe(`Plain-text part, a Handlebars template; not empty, at most ${TEMPLATE_LIMITS.text} bytes`),
  }),
  deliveries: z.strictObject({
    status: z
      .enum(OUTBOX_STATUSES, { error: `must be one of ${OUTBOX_STATUSES.join(', ')}` })
      .describe('Only messages in this delivery state')
      .optional(),
    otpId: uuid.describe('Only the message of this OTP').optional(),
    limit: z
      .string()
      .regex(/^[1-9][0-9]{0,2}$/, 'must be a whole number from 1 to 500')
      .transform(Number)
      .refine((n) => n <= 500, 'must be a whole number from 1 to 500')
      .meta({ pattern: wholeNumberPattern(500), description: 'At most this many messages, newest first, a whole number from 1 to 500' })
      .default(50),
  }),
  authenticator: z.strictObject({
    name: name.describe('Name of the passkey'),
    /** base64url challenge the registration ceremony used. */
    challenge: z.string().min(16).max(1024).describe('The challenge the registration was made with, base64url (the browser SDK\'s encodedChallenge)'),
    attestation: z
      .record(z.string(), z.unknown())
      .describe(
        'The WebAuthn registration response: the W3C JSON of PublicKeyCredential.toJSON() ({id, rawId, type, response: {clientDataJSON, attestationObject, transports}}), or the attestation of the ecosystem\'s browser SDK ({credentialId, clientDataJson, attestationObject, transports}); verified before it is stored',
      ),
  }),
};

/** ?limit=&before=&after= of the admin lists: newest first, id cursors, like the public lists' paginationOptions. */
const ADMIN_PAGE_DEFAULT = 50;
export const adminPage = z.strictObject({
  limit: z
    .string()
    .regex(/^[1-9][0-9]{0,2}$/, 'must be a whole number from 1 to 500')
    .refine((n) => Number(n) <= 500, 'must be a whole number from 1 to 500')
    .meta({ pattern: wholeNumberPattern(500), description: 'At most this many items, a whole number from 1 to 500; 50 by default. A page also ends early before about 8 MiB' })
    .optional(),
  before: uuid.describe('Cursor: the first id of a page, for the page before it (newer items)').optional(),
  after: uuid.describe('Cursor: the last id of a page, for the next one (older items)').optional(),
});

/** The queries of the admin lists, for the OpenAPI document: a page, and the API keys' page with ?userId=. */
export const adminListQueries = {
  page: adminPage,
  apiKeys: adminPage.extend({ userId: uuid.describe("Only this user's keys").optional() }),
};

const params = {
  org: z.object({ organizationId: uuid }),
  orgKey: z.object({ organizationId: uuid, apiKeyId: uuid }),
  orgUser: z.object({ organizationId: uuid, userId: uuid }),
  orgTemplate: z.object({ organizationId: uuid, templateId: uuid }),
  orgDomain: z.object({ organizationId: uuid, domain: z.string().max(253) }),
};

function parse<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  // With the input, a field present but wrong is told apart from a missing one.
  const result = schema.safeParse(value, { reportInput: true });
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
          throw permissionDenied('ADDRESS_NOT_ALLOWED', 'the admin API only answers allowed client addresses (SIGNET_ADMIN_HOST)');
        }
        const header = request.headers.authorization ?? '';
        const match = /^Bearer (\S+)$/.exec(header);
        // Compare digests: constant time and independent of the token's length.
        if (!match || !timingSafeEqual(digest(match[1]!), expected)) {
          throw new SignetError(
            'ADMIN_TOKEN_INVALID',
            'the admin API needs Authorization: Bearer <token>, the token this server was given in SIGNET_ADMIN_TOKEN or, without it, ' +
              'the one it wrote to SIGNET_DATA_DIR/admin-token; the signet CLI sends it when it runs with the same SIGNET_ADMIN_TOKEN or SIGNET_DATA_DIR',
          );
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

      admin.get('/organizations', async (request) => {
        const query = parse(adminPage, request.query, 'invalid query');
        const page = await listOrganizations(db, pageRequest(query, ADMIN_PAGE_DEFAULT));
        return { organizations: pageRows(page, query, 'query', 'among the organizations') };
      });

      admin.get('/organizations/:organizationId/suborgs', async (request) => {
        const { organizationId } = parse(params.org, request.params, 'invalid path');
        const query = parse(adminPage, request.query, 'invalid query');
        const page = await listSubOrganizations(db, organizationId, pageRequest(query, ADMIN_PAGE_DEFAULT));
        return { subOrganizations: pageRows(page, query, 'query', "among the organization's sub-organizations") };
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

      admin.get('/organizations/:organizationId/api-keys', async (request) => {
        const { organizationId } = parse(params.org, request.params, 'invalid path');
        const { userId, ...query } = parse(adminListQueries.apiKeys, request.query, 'invalid query');
        const page = await listApiKeys(db, organizationId, pageRequest(query, ADMIN_PAGE_DEFAULT), userId);
        return { apiKeys: pageRows(page, query, 'query') };
      });

      admin.delete('/organizations/:organizationId/api-keys/:apiKeyId', async (request) => {
        const { organizationId, apiKeyId } = parse(params.orgKey, request.params, 'invalid path');
        return revokeApiKey(db, organizationId, apiKeyId);
      });

      admin.get('/organizations/:organizationId/root-quorum', async (request) => {
        const { organizationId } = parse(params.org, request.params, 'invalid path');
        return getRootQuorum(db, organizationId);
      });

      admin.put('/organizations/:organizationId/root-quorum', async (request) => {
        const { organizationId } = parse(params.org, request.params, 'invalid path');
        const input = parse(adminSchemas.rootQuorum, jsonBody(request), 'invalid root quorum');
        return setRootQuorum(db, organizationId, input);
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

      admin.delete('/organizations/:organizationId/sender-domains/:domain', async (request) => {
        const { organizationId, domain } = parse(params.orgDomain, request.params, 'invalid path');
        return removeSenderDomain(db, organizationId, domain);
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
        const verified = await verifiedRegistration(input.attestation, {
          expectedChallenge: input.challenge,
          origins: config.webauthnOrigins,
          rpId: config.webauthnRpId,
        });
        return registerAuthenticator(db, { organizationId, userId, name: input.name, ...verified });
      });

      admin.setNotFoundHandler((request) => {
        throw notFound('ROUTE_NOT_FOUND', `no admin route ${request.method} ${request.url.split('?')[0]}`);
      });
    },
    { prefix: '/admin/v1' },
  );
}
