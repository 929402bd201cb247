// The delete_oauth_providers activity (ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS): unbinds OpenID Connect
// identities from a user of the organization. The rows are deleted (no vote names a provider): an
// identity unbound logs in no more, and may be bound again, to this user or another.
import { z } from 'zod';
import { notFound } from '../../../errors.ts';
import { check, write } from '../../../store/effects.ts';
import type { ActivityHandler } from '../../handler.ts';
import { idList, objectExpected } from '../../wire/parameters.ts';
import { userIdParameter } from '../users/userChanges.ts';
import { MAX_OAUTH_PROVIDERS_PER_USER } from './oauthProviders.ts';

const parameters = z.strictObject(
  {
    userId: userIdParameter.describe('The user of the organization whose OAuth providers these are'),
    providerIds: idList('an OAuth provider id', 'OAuth provider ids')
      .min(1, 'must list at least one OAuth provider id')
      .max(MAX_OAUTH_PROVIDERS_PER_USER, `may hold at most ${MAX_OAUTH_PROVIDERS_PER_USER} OAuth provider ids`)
      .refine((ids) => new Set(ids.map((id) => id.toLowerCase())).size === ids.length, 'must not list a provider twice')
      .describe(`OAuth providers of the user to delete, 1 to ${MAX_OAUTH_PROVIDERS_PER_USER}; any other is a 404 and nothing is deleted`),
  },
  { error: objectExpected() },
);

const resultSchema = z.strictObject({ providerIds: z.array(z.uuid()).describe('The deleted OAuth providers, as listed') });

export const deleteOauthProviders: ActivityHandler<typeof parameters, z.infer<typeof resultSchema>> = {
  path: 'delete_oauth_providers',
  activityType: 'ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS',
  resource: 'CREDENTIAL',
  action: 'DELETE',
  reasons: ['OAUTH_PROVIDER_NOT_FOUND'],
  summary: "`{userId, providerIds}`, 1 to 10: unbinds identities from the user; its tokens log in no more; result `deleteOauthProvidersResult {providerIds}` ([OAuth](oauth.md))",
  description:
    "Unbinds OpenID Connect identities from a user of the organization (`@turnkey/http`'s `deleteOauthProviders`): oauth_login refuses their tokens from then on, and the identity may be bound again. A provider that is not the user's is a 404, and nothing is deleted.",
  intentKey: 'deleteOauthProvidersIntent',
  resultKey: 'deleteOauthProvidersResult',
  parameters,
  resultSchema,
  example: { userId: '4a1e9d2c-6b3f-4e8a-9c7d-1f2e3a4b5c6d', providerIds: ['9b8a7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d'] },

  async execute(context, intent) {
    const { organizationId } = context;
    const { userId } = intent;
    const ids = intent.providerIds.map((id) => id.toLowerCase());
    return {
      result: { providerIds: ids },
      effects: [
        check(
          'oauthProvidersOfUser',
          [organizationId, userId, ids],
          notFound('OAUTH_PROVIDER_NOT_FOUND', `parameters.providerIds: not every one is an OAuth provider of user ${userId} in organization ${organizationId}; nothing was deleted`),
        ),
        write('deleteOauthProviders', organizationId, userId, ids),
      ],
    };
  },
};
