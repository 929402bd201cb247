// get_api_keys, get_api_key, get_authenticators and get_authenticator (@turnkey/http's getApiKeys,
// getApiKey, getAuthenticators and getAuthenticator): the organization's credentials in the
// ecosystem's shapes (render.ts's apiKeyObject and authenticatorObject). A revoked credential is
// gone for these queries. The lists give what may still stamp: an expired key never can again (and
// session keys expire by the thousand), so it is left out; get_api_key still answers it, its
// createdAt and expirationSeconds saying when it expired.
import { z } from 'zod';
import { apiKeySchema, authenticatorSchema } from '../activities/wire/activitySchema.ts';
import { apiKeyObject, authenticatorObject } from '../activities/wire/render.ts';
import { notFound } from '../errors.ts';
import { findLiveApiKeyFor, listUsableApiKeysFor } from '../store/apiKeys.ts';
import { findLiveAuthenticatorFor, listLiveAuthenticatorsFor } from '../store/authenticators.ts';
import { granted, type QueryHandler } from './query.ts';

/** get_api_keys and get_authenticators answer this many at most, oldest first (the ecosystem's requests have no pages). */
export const CREDENTIALS_LIMIT = 1000;

const organizationId = z.uuid({ message: 'must be the UUID of your organization' }).describe('Unique identifier of your organization');
const organization = '9f5e7c2a-3b1d-4e6f-8a9b-0c1d2e3f4a5b';
const user = '4b1e6d3c-8a2f-4c5e-9d7b-1a2b3c4d5e6f';

export const getApiKeys: QueryHandler = {
  path: 'get_api_keys',
  description:
    `The organization's API keys and session keys that may still stamp (\`@turnkey/http\`'s \`getApiKeys\`), of one user when userId is given: ` +
    `neither revoked nor expired, oldest first, the first ${CREDENTIALS_LIMIT} at most.`,
  example: { organizationId: organization, userId: user },
  request: z.strictObject({
    organizationId,
    userId: z.uuid({ message: 'must be a user id (a UUID)' }).optional().describe("Only this user's keys; none for a user not of the organization"),
  }),
  answer: z.strictObject({
    apiKeys: z.array(apiKeySchema).max(CREDENTIALS_LIMIT).describe(`The keys neither revoked nor expired, oldest first: the first ${CREDENTIALS_LIMIT} at most`),
  }),
  async run(context, query: { organizationId: string; userId?: string }) {
    const { apiKeys } = granted(
      context,
      await listUsableApiKeysFor(context.db, context.principal.credential, { ...query, now: context.now, limit: CREDENTIALS_LIMIT }),
    );
    return { apiKeys: apiKeys!.map(apiKeyObject) };
  },
};

export const getApiKey: QueryHandler = {
  path: 'get_api_key',
  description: "One API key or session key of the organization (`@turnkey/http`'s `getApiKey`), expired or not; a revoked key, or another organization's, is a 404.",
  example: { organizationId: organization, apiKeyId: '7c3a9e1f-2b4d-4f6a-8c0e-5d7f9a1b3c5e' },
  request: z.strictObject({
    organizationId,
    apiKeyId: z.uuid({ message: 'must be an API key id (a UUID)' }).describe("The key to read; a revoked key, or another organization's, is a 404"),
  }),
  answer: z.strictObject({ apiKey: apiKeySchema }),
  async run(context, query: { organizationId: string; apiKeyId: string }) {
    const { apiKey } = granted(context, await findLiveApiKeyFor(context.db, context.principal.credential, query.organizationId, query.apiKeyId));
    if (!apiKey) throw notFound('API_KEY_NOT_FOUND', `no API key ${query.apiKeyId} in organization ${query.organizationId}`);
    return { apiKey: apiKeyObject(apiKey) };
  },
};

export const getAuthenticators: QueryHandler = {
  path: 'get_authenticators',
  description: `The user's passkeys not revoked (\`@turnkey/http\`'s \`getAuthenticators\`), oldest first, the first ${CREDENTIALS_LIMIT} at most.`,
  example: { organizationId: organization, userId: user },
  request: z.strictObject({
    organizationId,
    userId: z.uuid({ message: 'must be a user id (a UUID)' }).describe("The user whose passkeys to list; none for a user not of the organization"),
  }),
  answer: z.strictObject({
    authenticators: z
      .array(authenticatorSchema)
      .max(CREDENTIALS_LIMIT)
      .describe(`The user's passkeys not revoked, oldest first: the first ${CREDENTIALS_LIMIT} at most`),
  }),
  async run(context, query: { organizationId: string; userId: string }) {
    const { authenticators } = granted(
      context,
      await listLiveAuthenticatorsFor(context.db, context.principal.credential, { ...query, limit: CREDENTIALS_LIMIT }),
    );
    return { authenticators: authenticators!.map(authenticatorObject) };
  },
};

export const getAuthenticator: QueryHandler = {
  path: 'get_authenticator',
  description: "One passkey of the organization (`@turnkey/http`'s `getAuthenticator`); a revoked one, or another organization's, is a 404.",
  example: { organizationId: organization, authenticatorId: '1d3f5a7c-9e2b-4d6f-8a1c-3e5f7a9b1d2e' },
  request: z.strictObject({
    organizationId,
    authenticatorId: z
      .uuid({ message: 'must be an authenticator id (a UUID)' })
      .describe("The passkey to read; a revoked one, or another organization's, is a 404"),
  }),
  answer: z.strictObject({ authenticator: authenticatorSchema }),
  async run(context, query: { organizationId: string; authenticatorId: string }) {
    const { authenticator } = granted(
      context,
      await findLiveAuthenticatorFor(context.db, context.principal.credential, query.organizationId, query.authenticatorId),
    );
    if (!authenticator) throw notFound('AUTHENTICATOR_NOT_FOUND', `no authenticator ${query.authenticatorId} in organization ${query.organizationId}`);
    return { authenticator: authenticatorObject(authenticator) };
  },
};
