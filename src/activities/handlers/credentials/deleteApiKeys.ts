// The delete_api_keys activity (ACTIVITY_TYPE_DELETE_API_KEYS): revokes API keys (session keys too)
// of a user of the organization. A key is never deleted, since votes name the keys that stamped them:
// it is revoked, and every statement stamped with it from then on, in any process, refuses it. The
// key that stamps the request may be among them: the activity completes, and the key's next request
// is refused.
import { z } from 'zod';
import type { ActivityHandler } from '../../handler.ts';
import { apiKeys } from './credentialKinds.ts';
import { idList } from '../../wire/parameters.ts';

export const MAX_DELETED_API_KEYS = 100;

const parameters = z.strictObject({
  userId: z.uuid({ message: 'must be a user id (a UUID)' }).describe('The user of the organization whose keys these are'),
  apiKeyIds: idList('an API key id', 'API key ids')
    .min(1, 'must list at least one API key id')
    .max(MAX_DELETED_API_KEYS, `may hold at most ${MAX_DELETED_API_KEYS} API key ids`)
    .refine((ids) => new Set(ids.map((id) => id.toLowerCase())).size === ids.length, 'must not list a key twice')
    .describe(`Keys of the user to revoke, 1 to ${MAX_DELETED_API_KEYS}, each not revoked yet; any other is a 404 and nothing is revoked`),
});

const resultSchema = z.strictObject({ apiKeyIds: z.array(z.uuid()).describe('The revoked API keys, as listed') });

export const deleteApiKeys: ActivityHandler<typeof parameters, z.infer<typeof resultSchema>> = {
  path: 'delete_api_keys',
  activityType: 'ACTIVITY_TYPE_DELETE_API_KEYS',
  resource: 'CREDENTIAL',
  action: 'DELETE',
  reasons: ['API_KEY_NOT_FOUND'],
  summary:
    "`{userId, apiKeyIds}`, 1 to 100: revokes keys of the user at once, in every process (kept, revoked: votes name them; the key stamping the request may be one); a key not the user's or revoked already is a 404 and nothing is revoked; result `deleteApiKeysResult {apiKeyIds}`",
  description:
    "Revokes API keys of a user of the organization at once (they are kept, revoked, since votes name them); the key stamping the request may be one of them. A key that is not the user's, or is revoked already, is a 404 naming it, and nothing is revoked.",
  intentKey: 'deleteApiKeysIntent',
  resultKey: 'deleteApiKeysResult',
  parameters,
  resultSchema,
  example: { userId: '4a1e9d2c-6b3f-4e8a-9c7d-1f2e3a4b5c6d', apiKeyIds: ['9b8a7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d'] },

  async execute(context, intent) {
    const { organizationId, now } = context;
    const userId = intent.userId.toLowerCase();
    const ids = intent.apiKeyIds.map((id) => id.toLowerCase());
    return {
      result: { apiKeyIds: ids },
      effects: apiKeys.revoke(organizationId, userId, ids, now, (i) => `parameters.apiKeyIds[${i}]`),
    };
  },
};
